package dev.questionflow.api.admin;

import dev.questionflow.api.payload.StoredTextReseal;
import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.security.SecurityRequirement;
import io.swagger.v3.oas.annotations.tags.Tag;
import org.springframework.security.access.prepost.PreAuthorize;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RestController;

/** The customer text stored in Redis, sealed again (docs/runbook.md, "Customer data at rest"). */
@Tag(name = "admin")
@RestController
@RequestMapping(AdminController.BASE + "/stored-text")
@SecurityRequirement(name = "bearer")
@PreAuthorize("hasRole('ADMIN')")
class StoredTextController {

  private final StoredTextReseal reseal;

  StoredTextController(StoredTextReseal reseal) {
    this.reseal = reseal;
  }

  @Operation(
      summary =
          "Rewrite the text stored in Redis (tickets, session history, FAQ changes) sealed to its place"
              + " under the first key of PAYLOAD_KEYS; then set PAYLOAD_SEALED_ONLY=true (409 without Redis or keys)")
  @PostMapping("/reseal")
  StoredTextReseal.Report reseal() {
    return reseal.run();
  }
}
