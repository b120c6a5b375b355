package dev.questionflow.api.admin;

import dev.questionflow.activities.learning.FaqChange;
import dev.questionflow.activities.learning.FaqLearning;
import dev.questionflow.api.security.Requester;
import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.security.SecurityRequirement;
import io.swagger.v3.oas.annotations.tags.Tag;
import jakarta.validation.constraints.Max;
import jakarta.validation.constraints.Min;
import java.util.List;
import org.springframework.security.access.prepost.PreAuthorize;
import org.springframework.validation.annotation.Validated;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

/**
 * The audit of what staff taught the FAQ from tickets, and the way back: list and revert pack
 * changes (admin role). A revert is live on every instance within a poll interval.
 */
@Tag(name = "admin")
@RestController
@RequestMapping(AdminController.BASE + "/faq/changes")
@Validated
@SecurityRequirement(name = "bearer")
@PreAuthorize("hasRole('ADMIN')")
class FaqChangesController {

  private final FaqLearning learning;

  FaqChangesController(FaqLearning learning) {
    this.learning = learning;
  }

  @Operation(
      operationId = "listFaqChanges",
      summary =
          "Pack changes made from tickets (phrasings, entries), newest first, with who, when, which ticket"
              + " and whether and by whom they were reverted")
  @GetMapping
  List<FaqChange> list(@RequestParam(defaultValue = "100") @Min(1) @Max(1000) int limit) {
    return learning.changes(limit);
  }

  @Operation(
      summary =
          "Revert a pack change on every instance (404 unknown version; 409 already reverted, or an entry"
              + " that still has live phrasings: revert those first)")
  @PostMapping("/{version}/revert")
  FaqChange revert(@PathVariable @Min(1) long version) {
    return learning.revert(version, Requester.current().name());
  }
}
