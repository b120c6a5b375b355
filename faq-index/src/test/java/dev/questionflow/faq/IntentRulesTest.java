package dev.questionflow.faq;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class IntentRulesTest {

  static final FaqPack PACK = FaqPacks.loadFromClasspath("banking77");

  @ParameterizedTest
  @CsvSource(
      delimiter = '|',
      value = {
        "This is unacceptable, I want to complain | complaint",
        "I want to file a complaint about your staff | complaint",
        "Worst bank ever | complaint",
        "terrible service, I am disgusted | complaint",
        "This is ridiculous | complaint",
        "can I talk to a human | human_agent",
        "Please let me speak with a real person | human_agent",
        "connect me to an agent | human_agent",
        "I need to speak to a representative now | human_agent",
        "hi | greeting",
        "Hello there! | greeting",
        "good morning | greeting",
        "Someone used my card without asking | fraud_report",
        "I think this is fraud | fraud_report",
        "there is an unauthorised payment on my account | fraud_report",
        "my card was stolen | fraud_report",
      })
  void matchesFirstRule(String text, String intent) {
    assertThat(IntentRules.match(PACK, text)).contains(intent);
  }

  @ParameterizedTest
  @CsvSource(
      delimiter = '|',
      value = {
        "How do I top up my account?",
        "hi, my card is not working",
        "when will my card arrive",
        "what is the exchange rate for USD",
      })
  void noRuleForOrdinaryQuestions(String text) {
    assertThat(IntentRules.match(PACK, text)).isEmpty();
  }

  @Test
  void blankAndHugeInputs() {
    assertThat(IntentRules.match(PACK, null)).isEmpty();
    assertThat(IntentRules.match(PACK, "")).isEmpty();
    assertThat(IntentRules.match(PACK, "   ")).isEmpty();
    assertThat(IntentRules.match(PACK, "a".repeat(100_000))).isEmpty();
  }
}
