package dev.questionflow.api.question;

import dev.questionflow.api.ratelimit.AccessLimiter;
import dev.questionflow.api.ratelimit.Admission;
import dev.questionflow.api.ratelimit.AdmittedQuestion;
import dev.questionflow.api.ratelimit.ClientIp;
import dev.questionflow.api.security.Requester;
import dev.questionflow.api.web.ForbiddenException;
import dev.questionflow.api.web.RequestIdFilter;
import dev.questionflow.workflows.question.QuestionStatus;
import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.headers.Header;
import io.swagger.v3.oas.annotations.media.Content;
import io.swagger.v3.oas.annotations.media.Schema;
import io.swagger.v3.oas.annotations.responses.ApiResponse;
import io.swagger.v3.oas.annotations.tags.Tag;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.validation.Valid;
import java.net.URI;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.security.access.prepost.PreAuthorize;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.servlet.mvc.method.annotation.SseEmitter;

@Tag(
    name = "questions",
    description = "Ask a question, follow its status and read its answer (chat back ends)")
@RestController
@RequestMapping("/api/v1/questions")
class QuestionController {

  private final QuestionService questions;
  private final StatusStreams streams;
  private final AccessLimiter limits;
  private final ClientIp clientIp;

  QuestionController(
      QuestionService questions, StatusStreams streams, AccessLimiter limits, ClientIp clientIp) {
    this.questions = questions;
    this.streams = streams;
    this.limits = limits;
    this.clientIp = clientIp;
  }

  @Operation(summary = "Accept a question: starts its workflow and returns the workflow ID at once")
  @ApiResponse(
      responseCode = "202",
      description = "Accepted: the question's workflow ID; follow its status at statusUrl",
      headers =
          @Header(
              name = "Location",
              description = "the status URL (statusUrl)",
              schema = @Schema(type = "string")))
  @PostMapping(consumes = MediaType.APPLICATION_JSON_VALUE)
  @PreAuthorize("hasRole('CALLER')")
  ResponseEntity<AdmittedQuestion> ask(@Valid @RequestBody AskRequest request) {
    Requester requester = Requester.current();
    mayAsk(requester, request);
    String traced =
        RequestIdFilter.current(); // the caller's X-Request-Id when usable (RequestIdFilter)
    // per-user limit: 429 before anything starts; over the global limit only "queued" (per caller
    // and IP: every
    // request, AccessLimitFilter)
    Admission admission = limits.admit(requester.ownerKey() + "|" + request.userId(), null);
    Accepted accepted;
    try {
      accepted = questions.ask(requester, request, traced);
    } catch (RuntimeException e) {
      limits.refund(admission); // nothing started
      throw e;
    }
    if (accepted.duplicate()) {
      limits.refund(admission); // a second click on "send" does not count twice
    }
    return ResponseEntity.accepted()
        .location(URI.create(accepted.statusUrl()))
        .body(new AdmittedQuestion(accepted, admission.queued()));
  }

  /**
   * A caller may assert a tier up to its key's and, as a web visitor, only itself as the user:
   * refused with 403 rather than silently changed, so a misconfigured back end notices.
   */
  private static void mayAsk(Requester requester, AskRequest request) {
    if (request.tier() != null && request.tier().compareTo(requester.maxTier()) > 0) {
      throw new ForbiddenException(
          "caller " + requester.name() + " may not assert tier " + request.tier());
    }
    if (requester.kind() == Requester.Kind.WEB_VISITOR
        && !requester.visitorId().equals(request.userId())) {
      throw new ForbiddenException("a web visitor asks as itself: userId must be its visitorId");
    }
  }

  @Operation(
      summary =
          "Stage, queue position, ETA and answer of a question (a workflow query); its owner, staff or admin")
  @GetMapping("/{workflowId}")
  QuestionStatus status(@PathVariable String workflowId) {
    return questions.status(Requester.current(), workflowId);
  }

  @Operation(
      summary =
          "Server-Sent Events: one 'status' event per change, then 'answer' with the final answer")
  @ApiResponse(
      responseCode = "200",
      description = "The event stream (docs/api.md, Endpoints)",
      content =
          @Content(
              mediaType = MediaType.TEXT_EVENT_STREAM_VALUE,
              schema = @Schema(type = "string")))
  @GetMapping(path = "/{workflowId}/events", produces = MediaType.TEXT_EVENT_STREAM_VALUE)
  SseEmitter events(@PathVariable String workflowId, HttpServletRequest request) {
    Requester requester = Requester.current();
    questions.requireReadable(requester, workflowId); // 404 before the stream opens
    // a question streamed here already: its other streams' status, not a read of Redis per stream
    QuestionStatus shown = streams.shown(workflowId);
    QuestionStatus first = shown != null ? shown : questions.status(workflowId);
    String address = requester.kind() == Requester.Kind.WEB_VISITOR ? clientIp.of(request) : null;
    return streams.open(requester, address, workflowId, first);
  }
}
