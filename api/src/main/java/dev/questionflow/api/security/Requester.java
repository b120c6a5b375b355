package dev.questionflow.api.security;

import dev.questionflow.workflows.question.Question.Tier;
import java.util.List;
import org.springframework.security.core.Authentication;
import org.springframework.security.core.context.SecurityContextHolder;

/**
 * Who is calling, as established by Spring Security: the principal of every authenticated request.
 *
 * @param name the caller's name (a back end's key name, the staff member, {@code web}, {@code
 *     local})
 * @param kind what kind of caller
 * @param visitorId the server-chosen ID of an anonymous web visitor (null for every other kind)
 * @param maxTier the highest tier this caller may assert for its questions
 */
public record Requester(String name, Kind kind, String visitorId, Tier maxTier) {

  /** The caller name of every web visitor's questions. */
  public static final String WEB = "web";

  /** The caller of trial mode. */
  public static final String LOCAL = "local";

  public enum Kind {
    /** A chat back end with an API key: asks for the end users it has authenticated. */
    BACKEND("ROLE_CALLER"),
    /** The public chat page: an anonymous visitor with a signed web session, always STANDARD. */
    WEB_VISITOR("ROLE_CALLER"),
    STAFF("ROLE_STAFF"),
    /** Admins are staff too (role hierarchy in {@link SecurityConfig}). */
    ADMIN("ROLE_ADMIN"),
    /** Trial mode on loopback: a caller, staff and admin at once. */
    LOCAL("ROLE_CALLER", "ROLE_ADMIN"),
    /** Prometheus with {@code METRICS_API_KEY}: reads {@code /actuator/prometheus} only. */
    METRICS("ROLE_METRICS"),
    /** Signed in with the identity provider but holding none of our roles. */
    NO_ROLE();

    private final List<String> roles;

    Kind(String... roles) {
      this.roles = List.of(roles);
    }

    public List<String> roles() {
      return roles;
    }
  }

  public static Requester backend(String name, Tier maxTier) {
    return new Requester(name, Kind.BACKEND, null, maxTier);
  }

  public static Requester visitor(String visitorId) {
    return new Requester(WEB, Kind.WEB_VISITOR, visitorId, Tier.STANDARD);
  }

  public static Requester staff(String name) {
    return new Requester(name, Kind.STAFF, null, Tier.STANDARD);
  }

  public static Requester admin(String name) {
    return new Requester(name, Kind.ADMIN, null, Tier.STANDARD);
  }

  public static Requester metrics(String name) {
    return new Requester(name, Kind.METRICS, null, Tier.STANDARD);
  }

  public static Requester withoutRole(String name) {
    return new Requester(name, Kind.NO_ROLE, null, Tier.STANDARD);
  }

  public static Requester local() {
    return new Requester(LOCAL, Kind.LOCAL, null, Tier.VIP);
  }

  /** May ask questions. */
  public boolean asks() {
    return kind == Kind.BACKEND || kind == Kind.WEB_VISITOR || kind == Kind.LOCAL;
  }

  /** May read every question and ticket (staff, admin, trial mode). */
  public boolean seesAll() {
    return kind == Kind.STAFF || kind == Kind.ADMIN || kind == Kind.LOCAL;
  }

  /**
   * Whose questions these are: a back end owns the questions it asked for its users (it has
   * authenticated them); a web visitor only its own.
   */
  public String ownerKey() {
    return kind == Kind.WEB_VISITOR ? "web:" + visitorId : "caller:" + name;
  }

  /** The key a per-caller access limit counts this requester under. */
  public String limitKey() {
    return kind.name().toLowerCase() + ":" + (visitorId != null ? visitorId : name);
  }

  /**
   * The requester of the current request; fails when there is none (Spring Security let nobody in
   * unnamed).
   */
  public static Requester current() {
    Authentication authentication = SecurityContextHolder.getContext().getAuthentication();
    if (authentication != null && authentication.getPrincipal() instanceof Requester requester) {
      return requester;
    }
    throw new IllegalStateException("no authenticated requester on this request");
  }
}
