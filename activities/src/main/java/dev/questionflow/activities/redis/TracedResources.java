package dev.questionflow.activities.redis;

import io.lettuce.core.resource.ClientResources;
import io.lettuce.core.resource.DefaultClientResources;
import io.lettuce.core.tracing.Tracing;

/**
 * The client resources of a traced Redis client. Lettuce takes a {@link Tracing} only through its
 * resources, and a client given resources does not shut them down: its connector does.
 */
record TracedResources(ClientResources resources) {

  /** Resources with this tracing, or null when it is disabled (the client's own default). */
  static TracedResources of(Tracing tracing) {
    if (tracing == null || !tracing.isEnabled()) {
      return null;
    }
    return new TracedResources(DefaultClientResources.builder().tracing(tracing).build());
  }

  static void shutdown(TracedResources traced) {
    if (traced != null) {
      traced.resources().shutdown();
    }
  }
}
