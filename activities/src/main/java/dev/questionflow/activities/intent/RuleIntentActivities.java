package dev.questionflow.activities.intent;

import dev.questionflow.faq.FaqMatcher;
import dev.questionflow.faq.FaqPack;
import dev.questionflow.faq.IntentRules;
import dev.questionflow.workflows.intent.IntentActivities;
import dev.questionflow.workflows.intent.IntentResult;
import java.util.Map;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Intent detection: the pack's keyword/regex rules first (complaints, asking for a person, fraud),
 * then the FAQ matcher (a pack's entries are its intents, e.g. BANKING77's 77), else the default
 * "general question" intent.
 */
public class RuleIntentActivities implements IntentActivities {

  private static final Logger log = LoggerFactory.getLogger(RuleIntentActivities.class);

  private final FaqPack pack;
  private final FaqMatcher matcher;
  private final Supplier<Map<String, String>> modelsDown;

  public RuleIntentActivities(FaqPack pack, FaqMatcher matcher) {
    this(pack, matcher, () -> null);
  }

  /**
   * @param modelsDown the models that cannot answer now (see {@link IntentResult#modelsDown()}),
   *     reported with the intent: the first step of every question, so no step is added for it
   */
  public RuleIntentActivities(
      FaqPack pack, FaqMatcher matcher, Supplier<Map<String, String>> modelsDown) {
    this.pack = pack;
    this.matcher = matcher;
    this.modelsDown = modelsDown;
  }

  @Override
  public IntentResult classifyIntent(String text) {
    var rule = IntentRules.match(pack, text);
    if (rule.isPresent()) {
      return result(rule.get(), "rules");
    }
    try {
      var match = matcher.best(text);
      if (match.isPresent()) {
        return result(match.get().faqId(), matcher.level());
      }
    } catch (RuntimeException e) {
      log.warn(
          "FAQ matcher failed during intent detection, using the default intent: {}", e.toString());
    }
    return result(DEFAULT_INTENT, "default");
  }

  private IntentResult result(String intent, String source) {
    return new IntentResult(intent, source, modelsDown.get());
  }
}
