package dev.questionflow.api.payload;

import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

/** A Temporal server is configured but no payload keys: refuse to start, and say how to fix it. */
class MissingPayloadKeysException extends IllegalStateException {

  MissingPayloadKeysException() {
    super(
        "TEMPORAL_ADDRESS is set but PAYLOAD_KEYS is not: customer questions and answers would be stored in plain"
            + " text in Temporal's history");
  }

  /**
   * Turns the exception into Spring Boot's "APPLICATION FAILED TO START" text instead of a trace.
   */
  static class Analyzer extends AbstractFailureAnalyzer<MissingPayloadKeysException> {
    @Override
    protected FailureAnalysis analyze(Throwable root, MissingPayloadKeysException cause) {
      return new FailureAnalysis(
          cause.getMessage() + ".",
          "Make a key and give every instance (and bin/replay) the same list:\n"
              + "    export PAYLOAD_KEYS=\"k1:$(openssl rand -base64 32)\"\n"
              + "Keep it secret (a secret manager, not the repository); to rotate, put the new key first and keep"
              + " the old ones after it (docs/runbook.md, \"Customer data at rest\").\n"
              + "To store plain payloads on purpose (e.g. a throwaway test server), set PAYLOAD_ENCRYPTION=off.",
          cause);
    }
  }
}
