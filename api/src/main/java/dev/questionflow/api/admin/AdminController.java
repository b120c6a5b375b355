package dev.questionflow.api.admin;

import dev.questionflow.workflows.deadletter.DeadLetterStatus;
import dev.questionflow.workflows.question.Stage;
import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.Parameter;
import io.swagger.v3.oas.annotations.responses.ApiResponse;
import io.swagger.v3.oas.annotations.security.SecurityRequirement;
import io.swagger.v3.oas.annotations.tags.Tag;
import jakarta.validation.Valid;
import jakarta.validation.constraints.Max;
import jakarta.validation.constraints.Min;
import jakarta.validation.constraints.Size;
import java.time.Duration;
import java.util.List;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.http.ProblemDetail;
import org.springframework.http.ResponseEntity;
import org.springframework.security.access.prepost.PreAuthorize;
import org.springframework.validation.annotation.Validated;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

/**
 * The admin API for support engineers (admin role: ADMIN_API_KEY or an OIDC admin; see
 * docs/runbook.md).
 */
@Tag(name = "admin", description = "Operating questions and dead letters (admins)")
@RestController
@RequestMapping(AdminController.BASE)
@Validated
@SecurityRequirement(name = "bearer")
@PreAuthorize("hasRole('ADMIN')")
class AdminController {

  static final String BASE = "/api/v1/admin";

  record RerunRequest(@Size(max = 500) String reason) {}

  private final AdminService admin;

  AdminController(AdminService admin) {
    this.admin = admin;
  }

  @Operation(
      summary =
          "Running questions started at least olderThanSeconds ago (optionally in one stage), oldest first")
  @GetMapping("/questions/stuck")
  List<AdminService.WaitingQuestion> stuck(
      @RequestParam(defaultValue = "60") @Min(0) @Max(86_400 * 30) long olderThanSeconds,
      @Parameter(description = "e.g. WAITING_IN_QUEUE") @RequestParam(required = false) Stage stage,
      @RequestParam(defaultValue = "50") @Min(1) @Max(500) int limit) {
    return admin.stuck(Duration.ofSeconds(olderThanSeconds), stage, limit);
  }

  @Operation(
      summary =
          "Tickets the helpdesk has not taken yet (running dead-letter workflows) with their status")
  @GetMapping("/dead-letters")
  List<AdminService.DeadLetterView> deadLetters(
      @RequestParam(defaultValue = "50") @Min(1) @Max(500) int limit) {
    return admin.deadLetters(limit);
  }

  @Operation(
      summary =
          "Try delivering a dead-letter ticket now (after the helpdesk is fixed); delivery is idempotent")
  @ApiResponse(responseCode = "202", description = "Redelivery asked for")
  @PostMapping("/dead-letters/{ticketId}/redrive")
  ResponseEntity<DeadLetterStatus> redrive(@PathVariable @Size(max = 128) String ticketId) {
    return ResponseEntity.accepted().body(admin.redrive(ticketId));
  }

  @Operation(
      summary =
          "Re-run a question: reset its workflow to the last good point (default) or to its start")
  @ApiResponse(responseCode = "202", description = "The new run started")
  @PostMapping("/questions/{workflowId}/rerun")
  ResponseEntity<AdminService.Rerun> rerun(
      @PathVariable @Size(max = 256) String workflowId,
      @RequestParam(defaultValue = "LAST_GOOD") AdminService.RerunFrom from,
      @Valid @RequestBody(required = false) RerunRequest request) {
    String reason =
        request == null || request.reason() == null || request.reason().isBlank()
            ? "re-run through the admin API"
            : request.reason();
    return ResponseEntity.accepted().body(admin.rerun(workflowId, from, reason));
  }

  @Operation(
      summary = "A workflow run's history as JSON, for bin/replay --file or the Temporal tools")
  @GetMapping(path = "/questions/{workflowId}/history", produces = MediaType.APPLICATION_JSON_VALUE)
  String history(
      @PathVariable @Size(max = 256) String workflowId,
      @RequestParam(required = false) @Size(max = 64) String runId) {
    return admin.historyJson(workflowId, runId);
  }

  @ExceptionHandler(AdminService.VisibilityUnavailableException.class)
  ProblemDetail visibilityUnavailable(AdminService.VisibilityUnavailableException e) {
    ProblemDetail problem =
        ProblemDetail.forStatusAndDetail(HttpStatus.NOT_IMPLEMENTED, e.getMessage());
    problem.setTitle("No visibility store");
    return problem;
  }
}
