package dev.questionflow.api.ticket;

import com.fasterxml.jackson.annotation.JsonUnwrapped;
import dev.questionflow.activities.session.SessionStore;
import dev.questionflow.activities.ticket.Ticket;
import dev.questionflow.activities.ticket.TicketInbox;
import dev.questionflow.api.question.Accepted;
import dev.questionflow.api.question.NotFoundException;
import dev.questionflow.api.question.QuestionService;
import dev.questionflow.api.security.Requester;
import dev.questionflow.api.web.ConflictException;
import dev.questionflow.faq.FaqPack;
import dev.questionflow.workflows.question.StaffReply;
import dev.questionflow.workflows.session.SessionKeys;
import io.swagger.v3.oas.annotations.Operation;
import jakarta.validation.Valid;
import jakarta.validation.constraints.Max;
import jakarta.validation.constraints.Min;
import jakarta.validation.constraints.NotBlank;
import jakarta.validation.constraints.Size;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Comparator;
import java.util.List;
import org.springframework.http.ResponseEntity;
import org.springframework.security.access.prepost.PreAuthorize;
import org.springframework.validation.annotation.Validated;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

/**
 * The built-in ticket inbox for support staff (the staff console and the API): list handed-over
 * questions, see one with what the FAQ matcher found and its session's recent turns, answer it.
 * Staff role only; the agent of a reply is the signed-in staff member.
 */
@RestController
@RequestMapping("/api/v1/tickets")
@Validated
@PreAuthorize("hasRole('STAFF')")
class TicketController {

  record ReplyRequest(@NotBlank @Size(max = 4000) String text) {}

  /** What staff need of a ticket in the list: no other turns of the customer's session. */
  record TicketView(
      String ticketId,
      String workflowId,
      Ticket.Status status,
      Instant createdAt,
      long waitingSeconds,
      String question,
      String intent,
      int priority,
      List<String> candidateFaqIds,
      String reason,
      String caller,
      String userId,
      String sessionId,
      String agent,
      String reply,
      Instant answeredAt) {

    static TicketView of(Ticket ticket, Instant now) {
      Instant until = ticket.answeredAt() != null ? ticket.answeredAt() : now;
      return new TicketView(
          ticket.ticketId(),
          ticket.workflowId(),
          ticket.status(),
          ticket.createdAt(),
          Math.max(0, Duration.between(ticket.createdAt(), until).toSeconds()),
          ticket.question(),
          ticket.intent(),
          ticket.priority(),
          ticket.candidateFaqIds(),
          ticket.reason(),
          ticket.caller(),
          ticket.userId(),
          ticket.sessionId(),
          ticket.agent(),
          ticket.reply(),
          ticket.answeredAt());
    }
  }

  record Candidate(String faqId, String question, String answer) {}

  record RecentTurn(String question, String answer, String level, Instant at) {}

  /**
   * The ticket's own fields at the top level (as before the console), then what the console shows
   * beside it.
   */
  record TicketDetail(
      @JsonUnwrapped TicketView ticket, List<Candidate> candidates, List<RecentTurn> recentTurns) {}

  private final TicketInbox inbox;
  private final QuestionService questions;
  private final SessionStore sessions;
  private final FaqPack faq;
  private final Clock clock = Clock.systemUTC();

  TicketController(
      TicketInbox inbox, QuestionService questions, SessionStore sessions, FaqPack faq) {
    this.inbox = inbox;
    this.questions = questions;
    this.sessions = sessions;
    this.faq = faq;
  }

  @Operation(summary = "Tickets by status, longest waiting first (staff)")
  @GetMapping
  List<TicketView> list(
      @RequestParam(defaultValue = "OPEN") Ticket.Status status,
      @RequestParam(defaultValue = "50") @Min(1) @Max(500) int limit) {
    Instant now = clock.instant();
    return inbox.list(status, limit).stream()
        .map(ticket -> TicketView.of(ticket, now))
        .sorted(Comparator.comparing(TicketView::createdAt))
        .toList();
  }

  @Operation(
      summary = "One ticket with the FAQ candidates and the recent turns of its session (staff)")
  @GetMapping("/{ticketId}")
  TicketDetail get(@PathVariable String ticketId) {
    Ticket ticket = find(ticketId);
    List<Candidate> candidates =
        ticket.candidateFaqIds() == null
            ? List.of()
            : ticket.candidateFaqIds().stream()
                .map(
                    id ->
                        faq.entry(id)
                            .map(entry -> new Candidate(id, entry.question(), entry.answer()))
                            .orElse(new Candidate(id, null, null)))
                .toList();
    List<RecentTurn> turns =
        sessions
            .history(SessionKeys.of(ticket.caller(), ticket.userId(), ticket.sessionId()))
            .stream()
            .filter(turn -> !ticket.workflowId().equals(turn.workflowId()))
            .map(turn -> new RecentTurn(turn.question(), turn.answer(), turn.level(), turn.at()))
            .toList();
    return new TicketDetail(TicketView.of(ticket, clock.instant()), candidates, turns);
  }

  @Operation(
      summary =
          "Answer a ticket as the signed-in staff member; the reply becomes the question's answer (HUMAN)")
  @PostMapping("/{ticketId}/reply")
  ResponseEntity<Accepted> reply(
      @PathVariable String ticketId, @Valid @RequestBody ReplyRequest reply) {
    Ticket ticket = find(ticketId);
    if (ticket.status() == Ticket.Status.ANSWERED) {
      throw new ConflictException(
          "ticket " + ticketId + " was already answered by " + ticket.agent());
    }
    String agent = Requester.current().name();
    try {
      questions.deliverStaffReply(
          ticket.workflowId(), new StaffReply(ticketId, agent, reply.text()));
    } catch (io.temporal.client.WorkflowNotFoundException e) {
      throw new ConflictException(
          "the question of ticket " + ticketId + " is closed and can no longer be answered");
    }
    String statusUrl = "/api/v1/questions/" + ticket.workflowId();
    return ResponseEntity.accepted().body(new Accepted(ticket.workflowId(), statusUrl, false));
  }

  private Ticket find(String ticketId) {
    return inbox.find(ticketId).orElseThrow(() -> new NotFoundException("no ticket " + ticketId));
  }
}
