package dev.questionflow.activities.intent;

import dev.questionflow.faq.FaqPack;
import dev.questionflow.faq.IntentRules;
import dev.questionflow.workflows.intent.IntentActivities;
import dev.questionflow.workflows.intent.IntentResult;

/** First-level intent detection: the pack's keyword/regex rules, else the default "general question" intent. */
public class RuleIntentActivities implements IntentActivities {

  private final FaqPack pack;

  public RuleIntentActivities(FaqPack pack) {
    this.pack = pack;
  }

  @Override
  public IntentResult classifyIntent(String text) {
    return IntentRules.match(pack, text)
        .map(intent -> new IntentResult(intent, "rules"))
        .orElseGet(() -> new IntentResult(DEFAULT_INTENT, "default"));
  }
}
