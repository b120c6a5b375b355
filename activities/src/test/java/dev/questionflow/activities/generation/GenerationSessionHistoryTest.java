package dev.questionflow.activities.generation;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.questionflow.activities.fakemodel.FakeModelServer;
import dev.questionflow.activities.fakemodel.FakeModelServer.Reply;
import dev.questionflow.activities.resilience.DependencyBreakers;
import dev.questionflow.activities.resilience.UpstreamErrors;
import dev.questionflow.activities.session.InMemorySessionStore;
import dev.questionflow.activities.session.SessionLimits;
import dev.questionflow.activities.session.SessionStore;
import dev.questionflow.activities.session.Turn;
import dev.questionflow.workflows.generation.GenerationRequest;
import dev.questionflow.workflows.generation.GenerationResult;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The session's previous turns reach the model as user/assistant messages, over real HTTP to the
 * fake server.
 */
class GenerationSessionHistoryTest {

  private final FakeModelServer fake = FakeModelServer.start();
  private final SimpleMeterRegistry meters = new SimpleMeterRegistry();

  @AfterEach
  void stop() {
    fake.close();
  }

  private OpenAiGenerationActivities activities(SessionStore sessions) {
    return new OpenAiGenerationActivities(
        new ModelSettings(
            fake.baseUrl(), "test-key", "fake-model", Duration.ofSeconds(5), "Northwind Bank"),
        null,
        RateLimitPolicy.DEFAULT,
        DependencyBreakers.withSpecDefaults(),
        new UpstreamErrors(meters),
        sessions);
  }

  private static void answered(
      SessionStore store, String sessionId, String workflowId, String q, String a) {
    store.join(sessionId, workflowId);
    store.finish(sessionId, workflowId, new Turn(workflowId, q, a, "LLM", Instant.now()));
  }

  /** A customer message as the model receives it: inside the customer fence. */
  private static String fenced(String text) {
    return "<customer_message>\n" + text + "\n</customer_message>";
  }

  /** role: content of every message of the one recorded request. */
  private List<String> messagesSent() {
    assertThat(fake.calls()).hasSize(1);
    List<String> messages = new ArrayList<>();
    for (JsonNode m : fake.calls().get(0).body().path("messages")) {
      messages.add(m.path("role").asText() + ": " + m.path("content").asText());
    }
    return messages;
  }

  @Test
  void thePreviousTurnsComeBeforeTheNewQuestion() {
    fake.script(call -> Reply.text("It was sent on Monday."));
    SessionStore store = new InMemorySessionStore();
    answered(store, "s1", "q-1", "I ordered a new card.", "Thanks, your order is noted.");
    answered(store, "s1", "q-2", "How long does it take?", "Cards arrive within 3-5 working days.");
    answered(store, "other", "q-9", "Unrelated question", "Unrelated answer");

    GenerationResult result =
        activities(store)
            .generateAnswer(new GenerationRequest("When was it sent?", List.of(), null, "s1"));

    assertThat(result.text()).isEqualTo("It was sent on Monday.");
    List<String> messages = messagesSent();
    assertThat(messages).hasSize(6);
    assertThat(messages.get(0))
        .startsWith("system: You are the customer service assistant of Northwind Bank");
    assertThat(messages.subList(1, 6))
        .containsExactly(
            "user: " + fenced("I ordered a new card."),
            "assistant: Thanks, your order is noted.",
            "user: " + fenced("How long does it take?"),
            "assistant: Cards arrive within 3-5 working days.",
            "user: " + fenced("When was it sent?"));
    assertThat(fake.calls().get(0).userMessage()).isEqualTo("When was it sent?");
  }

  @Test
  void personalDataInTheQuestionAndTheHistoryNeverReachesTheModel() {
    fake.script(call -> Reply.text("We have blocked the card."));
    SessionStore store = new InMemorySessionStore();
    // written straight to the store, as turns recorded before redaction existed were
    answered(
        store,
        "s1",
        "q-1",
        "My card 4111 1111 1111 1111 was stolen, call me on +44 20 7946 0958",
        "We will call you on +44 20 7946 0958.");

    activities(store)
        .generateAnswer(
            new GenerationRequest(
                "Please block 4111111111111111 too, my ID is 11010519491231002X",
                List.of(),
                null,
                "s1"));

    String sent = fake.calls().get(0).body().toString();
    assertThat(sent)
        .doesNotContain("4111")
        .doesNotContain("7946")
        .doesNotContain("11010519491231002X")
        .contains("My card [CARD] was stolen, call me on [PHONE]")
        .contains("We will call you on [PHONE].")
        .contains("Please block [CARD] too, my ID is [CN_ID]");
  }

  @Test
  void onlyTheLastMaxTurnsAreSent() {
    fake.script(call -> Reply.text("ok"));
    SessionStore store =
        new InMemorySessionStore(new SessionLimits(2, Duration.ofMinutes(30)), Clock.systemUTC());
    for (int i = 1; i <= 4; i++) {
      answered(store, "s1", "q-" + i, "question " + i, "answer " + i);
    }

    activities(store).generateAnswer(new GenerationRequest("question 5", List.of(), null, "s1"));

    assertThat(messagesSent().subList(1, 6))
        .containsExactly(
            "user: " + fenced("question 3"),
            "assistant: answer 3",
            "user: " + fenced("question 4"),
            "assistant: answer 4",
            "user: " + fenced("question 5"));
  }

  @Test
  void withoutASessionTheModelSeesOnlyTheQuestion() {
    fake.script(call -> Reply.text("ok"));
    SessionStore store = new InMemorySessionStore();
    answered(store, "s1", "q-1", "earlier", "earlier answer");

    activities(store).generateAnswer(new GenerationRequest("hello", List.of(), null));

    List<String> messages = messagesSent();
    assertThat(messages).hasSize(2);
    assertThat(messages.get(1)).isEqualTo("user: " + fenced("hello"));
  }

  @Test
  void anUnreadableHistoryIsNotAFailure() {
    fake.script(call -> Reply.text("ok"));
    SessionStore broken =
        new InMemorySessionStore() {
          @Override
          public List<Turn> history(String sessionId) {
            throw new IllegalStateException("redis down");
          }
        };

    GenerationResult result =
        activities(broken).generateAnswer(new GenerationRequest("hello", List.of(), null, "s1"));

    assertThat(result.outcome()).isEqualTo(GenerationResult.Outcome.ANSWERED);
    assertThat(messagesSent()).hasSize(2);
  }
}
