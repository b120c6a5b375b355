package dev.questionflow.activities.template;

import dev.questionflow.faq.FaqEntry;
import dev.questionflow.faq.FaqPack;
import dev.questionflow.workflows.question.Answer;
import dev.questionflow.workflows.question.AnswerLevel;
import dev.questionflow.workflows.template.TemplateActivities;
import dev.questionflow.workflows.template.TemplateRequest;
import io.temporal.failure.ApplicationFailure;

/**
 * Renders a FAQ entry's standard answer, always with the "simplified mode" notice so nobody
 * mistakes it.
 */
public class FaqTemplateActivities implements TemplateActivities {

  public static final String NOTICE =
      "Simplified mode: this is a standard answer from our help centre. Reply if it does not help.";

  private final FaqPack pack;

  public FaqTemplateActivities(FaqPack pack) {
    this.pack = pack;
  }

  @Override
  public Answer renderFaqAnswer(TemplateRequest request) {
    FaqEntry entry =
        pack.entry(request.faqId())
            .orElseThrow(
                () ->
                    ApplicationFailure.newNonRetryableFailure(
                        "no FAQ entry " + request.faqId() + " in pack " + pack.id(),
                        "UnknownFaqEntry"));
    AnswerLevel level = request.level() == null ? AnswerLevel.FAQ : request.level();
    return new Answer(entry.answer().strip(), level, entry.id(), null, NOTICE, request.reason());
  }
}
