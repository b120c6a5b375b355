package dev.questionflow.api.ticket;

import com.fasterxml.jackson.annotation.JsonUnwrapped;
import dev.questionflow.activities.learning.ChangeRejected;
import dev.questionflow.activities.learning.FaqChange;
import dev.questionflow.activities.learning.FaqLearning;
import dev.questionflow.activities.learning.LiveFaq;
import dev.questionflow.activities.session.SessionStore;
import dev.questionflow.activities.ticket.Ticket;
import dev.questionflow.activities.ticket.TicketInbox;
import dev.questionflow.api.question.Accepted;
import dev.questionflow.api.question.NotFoundException;
import dev.questionflow.api.question.QuestionService;
import dev.questionflow.api.security.Requester;
import dev.questionflow.api.web.ConflictException;
import dev.questionflow.workflows.question.StaffReply;
import dev.questionflow.workflows.session.SessionKeys;
import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.media.Content;
import io.swagger.v3.oas.annotations.media.Schema;
import io.swagger.v3.oas.annotations.responses.ApiResponse;
import io.swagger.v3.oas.annotations.tags.Tag;
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
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.http.MediaType;
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
@Tag(name = "tickets", description = "Handed-over questions and staff replies (staff)")
@RestController
@RequestMapping("/api/v1/tickets")
@Validated
@PreAuthorize("hasRole('STAFF')")
class TicketController {

  @Schema(
      description =
          "The reply; with learn, the ticket also teaches the FAQ (docs/runbook.md \"Teaching the FAQ\")")
  record ReplyRequest(
      @NotBlank @Size(max = 4000) String text,
      @Schema(description = "optional: turn this ticket into FAQ knowledge") @Valid Learn learn) {}

  /**
   * Exactly one of {@code asPhrasingOf} and {@code newEntry}.
   *
   * @param phrasing the text to learn instead of the customer's question (e.g. without the noise);
   *     redacted either way
   */
  @Schema(
      description =
          "Exactly one of asPhrasingOf (an existing entry's id: the question becomes a phrasing of it)"
              + " and newEntry (a new entry whose answer is the reply)")
  record Learn(
      @Schema(example = "card_arrival") @Size(max = 64) String asPhrasingOf,
      @Valid NewEntry newEntry,
      @Schema(description = "learn this text instead of the customer's question")
          @Size(max = FaqLearning.MAX_TEXT)
          String phrasing) {}

  /**
   * @param question the entry's standard question; omitted: the customer's question
   */
  record NewEntry(
      @Schema(example = "branch_opening_hours", description = "lower case, digits and _")
          @NotBlank
          @Size(max = 64)
          String id,
      @Size(max = FaqLearning.MAX_TEXT) String question) {}

  /** The 202 answer of a reply, with the pack change it made (null without learn). */
  record Replied(@JsonUnwrapped Accepted accepted, FaqChange learned) {}

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

  private static final Logger log = LoggerFactory.getLogger(TicketController.class);

  private final TicketInbox inbox;
  private final QuestionService questions;
  private final SessionStore sessions;
  private final LiveFaq faq;
  private final FaqLearning learning;
  private final Clock clock = Clock.systemUTC();

  TicketController(
      TicketInbox inbox,
      QuestionService questions,
      SessionStore sessions,
      LiveFaq faq,
      FaqLearning learning) {
    this.inbox = inbox;
    this.questions = questions;
    this.sessions = sessions;
    this.faq = faq;
    this.learning = learning;
  }

  // named: two methods called list would get their IDs in scan order (list, list_1)
  @Operation(
      operationId = "listTickets",
      summary = "Tickets by status, longest waiting first (staff)")
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
                        faq.pack()
                            .entry(id)
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
          "Answer a ticket as the signed-in staff member; the reply becomes the question's answer (HUMAN)."
              + " With learn, the question also becomes a phrasing of an entry, or a new entry answered by"
              + " the reply, live on every instance (400 when the change is bad: nothing is sent then)")
  @ApiResponse(responseCode = "202", description = "The reply is on its way to the question")
  @ApiResponse(
      responseCode = "409",
      description = "The ticket is already answered",
      content =
          @Content(
              mediaType = MediaType.APPLICATION_PROBLEM_JSON_VALUE,
              schema = @Schema(ref = "Problem")))
  @PostMapping("/{ticketId}/reply")
  ResponseEntity<Replied> reply(
      @PathVariable String ticketId, @Valid @RequestBody ReplyRequest reply) {
    Ticket ticket = find(ticketId);
    if (ticket.status() == Ticket.Status.ANSWERED) {
      throw new ConflictException(
          "ticket " + ticketId + " was already answered by " + ticket.agent());
    }
    String agent = Requester.current().name();
    // checked and saved before the reply goes out, so a bad change sends nothing; undone below when
    // the reply cannot be delivered
    FaqChange learned = reply.learn() == null ? null : learn(ticket, agent, reply);
    try {
      questions.deliverStaffReply(
          ticket.workflowId(), new StaffReply(ticketId, agent, reply.text()));
    } catch (io.temporal.client.WorkflowNotFoundException e) {
      undo(learned, ticketId);
      throw new ConflictException(
          "the question of ticket " + ticketId + " is closed and can no longer be answered");
    } catch (RuntimeException e) {
      undo(learned, ticketId);
      throw e;
    }
    String statusUrl = "/api/v1/questions/" + ticket.workflowId();
    return ResponseEntity.accepted()
        .body(new Replied(new Accepted(ticket.workflowId(), statusUrl, false), learned));
  }

  private FaqChange learn(Ticket ticket, String agent, ReplyRequest reply) {
    Learn learn = reply.learn();
    boolean phrasing = learn.asPhrasingOf() != null && !learn.asPhrasingOf().isBlank();
    if (phrasing == (learn.newEntry() != null)) {
      throw new ChangeRejected(
          ChangeRejected.Why.INVALID, "learn needs exactly one of asPhrasingOf and newEntry");
    }
    String text = learn.phrasing() != null ? learn.phrasing() : ticket.question();
    return phrasing
        ? learning.addPhrasing(learn.asPhrasingOf(), text, ticket.ticketId(), agent)
        : learning.addEntry(
            learn.newEntry().id(),
            learn.newEntry().question(),
            reply.text(),
            text,
            ticket.ticketId(),
            agent);
  }

  private void undo(FaqChange learned, String ticketId) {
    if (learned == null) {
      return;
    }
    try {
      learning.revert(learned.version(), "system: the reply to ticket " + ticketId + " failed");
    } catch (RuntimeException e) {
      log.error(
          "pack change {} stays although the reply to ticket {} failed: revert it in the admin API",
          learned.version(),
          ticketId,
          e);
    }
  }

  private Ticket find(String ticketId) {
    return inbox.find(ticketId).orElseThrow(() -> new NotFoundException("no ticket " + ticketId));
  }
}
