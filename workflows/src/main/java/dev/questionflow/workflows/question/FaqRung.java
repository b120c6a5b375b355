package dev.questionflow.workflows.question;

import dev.questionflow.workflows.retrieval.RetrievalResult;
import dev.questionflow.workflows.template.TemplateActivities;
import dev.questionflow.workflows.template.TemplateRequest;
import io.temporal.failure.ActivityFailure;
import io.temporal.workflow.Workflow;
import org.slf4j.Logger;

/**
 * The FAQ entry's standard answer (L3 semantic, L4 keyword): rendered by the template stage, or
 * taken as the retrieval stage found it, which needs no activity and so is ready at any deadline.
 */
final class FaqRung {

  private static final Logger log = Workflow.getLogger(FaqRung.class);

  private final TemplateActivities templates =
      Workflow.newLocalActivityStub(TemplateActivities.class);

  /** Rendered by the template stage, or taken as is if that fails. */
  Answer rendered(Question question, RetrievalResult found, Problems problems) {
    String reason = problems.reason();
    try {
      return templates
          .renderFaqAnswer(
              new TemplateRequest(found.best().faqId(), question.channel(), reason, level(found)))
          .withReason(reason);
    } catch (ActivityFailure e) {
      log.warn("template stage failed, giving the standard reply: {}", Problems.failureType(e));
      problems.add("template", Problems.failureType(e));
      return prepared(found, problems);
    }
  }

  /** The matched entry's standard answer as the retrieval stage found it. */
  static Answer prepared(RetrievalResult found, Problems problems) {
    return new Answer(
        found.best().answer(),
        level(found),
        found.best().faqId(),
        null,
        QuestionWorkflowImpl.STANDARD_REPLY_NOTICE,
        problems.reason());
  }

  /** For a customer who asked again while a model works on a fuller answer, which follows. */
  static Answer askedAgain(RetrievalResult found, Problems problems) {
    return prepared(found, problems)
        .withNotice(
            "Here is our standard answer right away; our assistant's fuller answer follows.");
  }

  /** The hot-entry cache needs no embedding model either: it is a keyword-level (L4) answer. */
  private static AnswerLevel level(RetrievalResult found) {
    return RetrievalResult.SEMANTIC.equals(found.method()) ? AnswerLevel.FAQ : AnswerLevel.KEYWORD;
  }
}
