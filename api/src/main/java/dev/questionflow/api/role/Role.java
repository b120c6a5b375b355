package dev.questionflow.api.role;

import java.util.Locale;
import org.springframework.core.env.Environment;

/**
 * What an instance does ({@code cs.role}, {@code CS_ROLE}): {@code all} (the default) serves the
 * HTTP API and runs the Temporal workers; {@code api} serves the API and runs no worker, so the
 * HTTP side scales apart from the workers; {@code worker} runs the workers and answers only health
 * and metrics ({@code /actuator}).
 */
public enum Role {
  ALL,
  API,
  WORKER;

  public static final String PROPERTY = "cs.role";

  public boolean servesApi() {
    return this != WORKER;
  }

  public boolean runsWorkers() {
    return this != API;
  }

  /** The role the environment names; unset is {@link #ALL}, anything else unknown is refused. */
  public static Role of(Environment environment) {
    String value = environment.getProperty(PROPERTY);
    if (value == null || value.isBlank()) {
      return ALL;
    }
    try {
      return valueOf(value.strip().toUpperCase(Locale.ROOT));
    } catch (IllegalArgumentException e) {
      throw new IllegalStateException(
          "CS_ROLE (cs.role) must be all, api or worker, not '" + value + "'", e);
    }
  }

  @Override
  public String toString() {
    return name().toLowerCase(Locale.ROOT);
  }
}
