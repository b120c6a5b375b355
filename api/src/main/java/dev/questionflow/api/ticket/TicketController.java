package dev.questionflow.api.ticket;

import dev.questionflow.activities.ticket.Ticket;
import dev.questionflow.activities.ticket.TicketInbox;
import dev.questionflow.api.question.Accepted;
import dev.questionflow.api.question.NotFoundException;
import dev.questionflow.api.question.QuestionService;
import dev.questionflow.api.web.ConflictException;
import dev.questionflow.workflows.question.StaffReply;
import io.swagger.v3.oas.annotations.Operation;
import jakarta.validation.Valid;
import jakarta.validation.constraints.Max;
import jakarta.validation.constraints.Min;
import jakarta.validation.constraints.NotBlank;
import jakarta.validation.constraints.Size;
import java.util.List;
import org.springframework.http.ResponseEntity;
import org.springframework.validation.annotation.Validated;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

/** The built-in ticket inbox for support staff: list handed-over questions and answer them. */
@RestController
@RequestMapping("/api/v1/tickets")
@Validated
class TicketController {

  record ReplyRequest(@NotBlank @Size(max = 128) String agent, @NotBlank @Size(max = 4000) String text) {}

  private final TicketInbox inbox;
  private final QuestionService questions;

  TicketController(TicketInbox inbox, QuestionService questions) {
    this.inbox = inbox;
    this.questions = questions;
  }

  @Operation(summary = "Tickets by status, oldest first")
  @GetMapping
  List<Ticket> list(
      @RequestParam(defaultValue = "OPEN") Ticket.Status status,
      @RequestParam(defaultValue = "50") @Min(1) @Max(500) int limit) {
    return inbox.list(status, limit);
  }

  @GetMapping("/{ticketId}")
  Ticket get(@PathVariable String ticketId) {
    return inbox.find(ticketId).orElseThrow(() -> new NotFoundException("no ticket " + ticketId));
  }

  @Operation(summary = "Answer a ticket; the reply becomes the question's answer (level HUMAN)")
  @PostMapping("/{ticketId}/reply")
  ResponseEntity<Accepted> reply(@PathVariable String ticketId, @Valid @RequestBody ReplyRequest reply) {
    Ticket ticket = get(ticketId);
    if (ticket.status() == Ticket.Status.ANSWERED) {
      throw new ConflictException("ticket " + ticketId + " was already answered by " + ticket.agent());
    }
    try {
      questions.deliverStaffReply(ticket.workflowId(), new StaffReply(ticketId, reply.agent(), reply.text()));
    } catch (io.temporal.client.WorkflowNotFoundException e) {
      throw new ConflictException("the question of ticket " + ticketId + " is closed and can no longer be answered");
    }
    String statusUrl = "/api/v1/questions/" + ticket.workflowId();
    return ResponseEntity.accepted().body(new Accepted(ticket.workflowId(), statusUrl, false));
  }
}
