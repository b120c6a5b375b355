package dev.questionflow.api.question;

import dev.questionflow.workflows.question.QuestionStatus;
import io.swagger.v3.oas.annotations.Operation;
import jakarta.validation.Valid;
import java.net.URI;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.servlet.mvc.method.annotation.SseEmitter;

@RestController
@RequestMapping("/api/v1/questions")
class QuestionController {

  private final QuestionService questions;
  private final StatusStreams streams;

  QuestionController(QuestionService questions, StatusStreams streams) {
    this.questions = questions;
    this.streams = streams;
  }

  @Operation(summary = "Accept a question: starts its workflow and returns the workflow ID at once")
  @PostMapping(consumes = MediaType.APPLICATION_JSON_VALUE)
  ResponseEntity<Accepted> ask(@Valid @RequestBody AskRequest request) {
    Accepted accepted = questions.ask(request);
    return ResponseEntity.accepted().location(URI.create(accepted.statusUrl())).body(accepted);
  }

  @Operation(summary = "Stage, queue position, ETA and answer of a question (a workflow query)")
  @GetMapping("/{workflowId}")
  QuestionStatus status(@PathVariable String workflowId) {
    return questions.status(workflowId);
  }

  @Operation(summary = "Server-Sent Events: one 'status' event per change, then 'answer' with the final answer")
  @GetMapping(path = "/{workflowId}/events", produces = MediaType.TEXT_EVENT_STREAM_VALUE)
  SseEmitter events(@PathVariable String workflowId) {
    QuestionStatus first = questions.status(workflowId); // 404 before the stream opens
    return streams.open(workflowId, first);
  }
}
