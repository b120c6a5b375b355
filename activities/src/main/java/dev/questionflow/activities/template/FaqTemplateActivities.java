package dev.questionflow.activities.template;

import dev.questionflow.faq.FaqEntry;
import dev.questionflow.faq.FaqPack;
import dev.questionflow.workflows.question.Answer;
import dev.questionflow.workflows.question.AnswerLevel;
import dev.questionflow.workflows.template.TemplateActivities;
import dev.questionflow.workflows.template.TemplateRequest;
import io.temporal.failure.ApplicationFailure;
import java.util.Optional;
import java.util.function.Function;

/**
 * Renders a FAQ entry's standard answer, always with the "simplified mode" notice so nobody
 * mistakes it.
 */
public class FaqTemplateActivities implements TemplateActivities {

  public static final String NOTICE =
      "Simplified mode: this is a standard answer from our help centre. Reply if it does not help.";

  private final String packId;
  private final Function<String, Optional<FaqEntry>> entries;

  public FaqTemplateActivities(FaqPack pack) {
    this(pack.id(), pack::entry);
  }

  /**
   * @param entries the entry by id, learned entries included (see {@code LiveFaq#entry})
   */
  public FaqTemplateActivities(String packId, Function<String, Optional<FaqEntry>> entries) {
    this.packId = packId;
    this.entries = entries;
  }

  @Override
  public Answer renderFaqAnswer(TemplateRequest request) {
    FaqEntry entry =
        entries
            .apply(request.faqId())
            .orElseThrow(
                () ->
                    ApplicationFailure.newNonRetryableFailure(
                        "no FAQ entry " + request.faqId() + " in pack " + packId,
                        "UnknownFaqEntry"));
    AnswerLevel level = request.level() == null ? AnswerLevel.FAQ : request.level();
    return new Answer(entry.answer().strip(), level, entry.id(), null, NOTICE, request.reason());
  }
}
