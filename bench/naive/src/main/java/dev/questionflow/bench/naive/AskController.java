package dev.questionflow.bench.naive;

import com.fasterxml.jackson.annotation.JsonInclude;
import dev.langchain4j.data.message.SystemMessage;
import dev.langchain4j.data.message.UserMessage;
import dev.langchain4j.model.chat.ChatModel;
import dev.langchain4j.model.chat.response.ChatResponse;
import dev.questionflow.faq.FaqMatch;
import java.util.Optional;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.http.ProblemDetail;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RestController;

/**
 * {@code POST /ask}: the model answers inside the request, on the Tomcat thread; when the call
 * fails (any exception, the 30 s timeout included, after langchain4j's own retries) the FAQ matcher
 * answers; when it abstains too, 503 problem+json.
 */
@RestController
class AskController {

  static final String SYSTEM_PROMPT =
      "You are the customer-service assistant of Northwind Bank. Answer the customer's question"
          + " briefly, politely and accurately, in the language of the question. If you do not know"
          + " the answer, say so and suggest contacting our support team.";

  record AskRequest(String question) {}

  /**
   * @param level "llm" (the model answered) or "faq" (the FAQ entry's standard answer)
   * @param faqId the matched entry, with level "faq" only
   */
  @JsonInclude(JsonInclude.Include.NON_NULL)
  record AskResponse(String answer, String level, String faqId) {}

  private final ChatModel model;
  private final NaiveBotApplication.Faq faq;

  AskController(ChatModel model, NaiveBotApplication.Faq faq) {
    this.model = model;
    this.faq = faq;
  }

  @PostMapping("/ask")
  ResponseEntity<?> ask(@RequestBody AskRequest request) {
    String question = request == null ? null : request.question();
    if (question == null || question.isBlank()) {
      return problem(HttpStatus.BAD_REQUEST, "The body must be {\"question\": \"...\"}.");
    }
    try {
      ChatResponse response =
          model.chat(SystemMessage.from(SYSTEM_PROMPT), UserMessage.from(question));
      String text = response.aiMessage() == null ? null : response.aiMessage().text();
      if (text != null && !text.isBlank()) {
        return ResponseEntity.ok(new AskResponse(text.strip(), "llm", null));
      }
      // an empty answer is no answer: the FAQ below
    } catch (RuntimeException e) {
      // any failure of the call: timeout, connection refused, 5xx, 429, 4xx... the FAQ below
    }
    Optional<FaqMatch> match;
    try {
      match = faq.matcher().best(question);
    } catch (RuntimeException e) {
      match = Optional.empty();
    }
    if (match.isPresent()) {
      FaqMatch m = match.get();
      return ResponseEntity.ok(new AskResponse(m.entry().answer().strip(), "faq", m.faqId()));
    }
    return problem(
        HttpStatus.SERVICE_UNAVAILABLE,
        "The model could not answer and no FAQ entry matches the question.");
  }

  private static ResponseEntity<ProblemDetail> problem(HttpStatus status, String detail) {
    return ResponseEntity.status(status)
        .contentType(MediaType.APPLICATION_PROBLEM_JSON)
        .body(ProblemDetail.forStatusAndDetail(status, detail));
  }
}
