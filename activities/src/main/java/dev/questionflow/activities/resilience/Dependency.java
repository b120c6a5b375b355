package dev.questionflow.activities.resilience;

import java.util.Arrays;

/**
 * The upstream dependencies that have their own circuit breaker. {@link #id()} is the name used in
 * configuration ({@code cs.resilience.breakers.<id>}), as the breaker name and as the {@code
 * dependency} tag of metrics.
 */
public enum Dependency {
  PRIMARY_MODEL("primary-model"),
  BACKUP_MODEL("backup-model"),
  EMBEDDING("embedding"),
  REDIS("redis"),
  HELPDESK("helpdesk");

  private final String id;

  Dependency(String id) {
    this.id = id;
  }

  public String id() {
    return id;
  }

  /** A model (primary or backup): one of several that can answer, so one may be ejected. */
  public boolean isModel() {
    return this == PRIMARY_MODEL || this == BACKUP_MODEL;
  }

  /**
   * The dependency named {@code id}; dashes and case do not count, because an environment variable
   * ({@code CS_RESILIENCE_BREAKERS_PRIMARYMODEL_WAITINOPEN}) binds the map key as {@code
   * primarymodel}.
   *
   * @throws IllegalArgumentException for an unknown id (a typo in application.yml fails the start)
   */
  public static Dependency fromId(String id) {
    return Arrays.stream(values())
        .filter(d -> d.id.equals(id) || d.id.replace("-", "").equalsIgnoreCase(id))
        .findFirst()
        .orElseThrow(
            () ->
                new IllegalArgumentException(
                    "unknown dependency '"
                        + id
                        + "', expected one of "
                        + Arrays.stream(values()).map(Dependency::id).toList()));
  }

  @Override
  public String toString() {
    return id;
  }
}
