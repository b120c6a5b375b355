package dev.questionflow.api.security;

import dev.questionflow.api.ratelimit.AccessLimiter;
import dev.questionflow.api.ratelimit.ClientIp;
import jakarta.servlet.http.HttpServletRequest;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.springframework.security.authentication.AuthenticationManager;
import org.springframework.security.authentication.AuthenticationManagerResolver;
import org.springframework.security.core.AuthenticationException;

/**
 * Failed authentications per client address (issue 28): every credential that is refused (a wrong
 * API key; a forged, expired or foreign token or web-session cookie) takes a token of its address's
 * bucket in the access limiter (Bucket4j, shared through Redis like the other limits). Once an
 * address has used them up, its requests with a credential get {@code 429} with {@code Retry-After}
 * before the credential is checked, whether it is right or wrong; other addresses are not affected,
 * and requests without a credential are not counted (they are 401 anyway).
 *
 * <p>Spring Security has no such limit of its own; this wraps the bearer-token authentication
 * manager, the one place every credential passes. The "refuse before checking" decision is kept per
 * instance (a map of blocked addresses, so a good credential costs no extra Redis call); the count
 * is shared, so on another instance an address's next failed attempt is refused (429) and blocks it
 * there too.
 */
public final class FailedAuthentications {

  /** Refused before the credential was checked: 429 (ProblemResponses). */
  public static final class TooManyFailedAuthentications extends AuthenticationException {
    private final long retryAfterSeconds;

    TooManyFailedAuthentications(long retryAfterSeconds) {
      super(
          "too many failed authentications from this address; retry in "
              + retryAfterSeconds
              + " s");
      this.retryAfterSeconds = retryAfterSeconds;
    }

    public long retryAfterSeconds() {
      return retryAfterSeconds;
    }
  }

  /** Blocked addresses kept at most; beyond it the shared count still refuses (after a check). */
  private static final int MAX_BLOCKED = 100_000;

  private final AccessLimiter limiter;
  private final ClientIp clientIp;

  /** Address → System.nanoTime() until which its credentials are not checked. */
  private final Map<String, Long> blockedUntil = new ConcurrentHashMap<>();

  public FailedAuthentications(AccessLimiter limiter, ClientIp clientIp) {
    this.limiter = limiter;
    this.clientIp = clientIp;
  }

  /** The manager for a request: refuses a blocked address, counts a refused credential. */
  public AuthenticationManagerResolver<HttpServletRequest> guarding(AuthenticationManager manager) {
    return request ->
        authentication -> {
          String address = clientIp.of(request);
          long wait = blockedFor(address);
          if (wait > 0) {
            limiter.refused(AccessLimiter.Kind.FAILED_AUTH);
            throw new TooManyFailedAuthentications(AccessLimiter.retryAfterSeconds(wait));
          }
          try {
            return manager.authenticate(authentication);
          } catch (BearerTokenRouter.IdentityProviderUnavailableException e) {
            throw e; // ours (503), not the client's failure
          } catch (AuthenticationException e) {
            long block = limiter.failedAuthentication(address);
            if (block > 0) {
              block(address, block);
            }
            throw e; // this attempt's own answer: 401
          }
        };
  }

  private long blockedFor(String address) {
    Long until = blockedUntil.get(address);
    if (until == null) {
      return 0;
    }
    long left = until - System.nanoTime();
    if (left <= 0) {
      blockedUntil.remove(address, until);
      return 0;
    }
    return left;
  }

  private void block(String address, long nanos) {
    if (blockedUntil.size() >= MAX_BLOCKED) {
      long now = System.nanoTime();
      blockedUntil.values().removeIf(until -> until - now <= 0);
      if (blockedUntil.size() >= MAX_BLOCKED) {
        return;
      }
    }
    blockedUntil.put(address, System.nanoTime() + nanos);
  }
}
