package dev.questionflow.activities.callback;

import dev.questionflow.activities.ticket.HelpdeskWebhook;
import java.net.URI;
import java.net.URISyntaxException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The callback URLs callers registered ({@code CALLER_CALLBACKS=name:https://…}, comma-separated, a
 * name may appear more than once) and their signing secrets ({@code
 * CALLER_CALLBACK_SECRETS=name:whsec_…}, one per name). The first URL of a caller is where its
 * questions' callbacks go by default; a request's {@code callbackUrl} may name any URL on the same
 * origin (scheme, host and port) as one of the caller's registered URLs, and nothing else, so a
 * caller (or a stolen key) cannot make the service POST elsewhere.
 *
 * <p>A URL is https, or http to this machine (127.0.0.0/8, ::1, localhost): the body holds the
 * answer. A bad entry stops the start with a message naming the variable and the entry's position
 * (never a secret).
 */
public final class CallerCallbacks {

  public static final String URLS_VARIABLE = "CALLER_CALLBACKS";
  public static final String SECRETS_VARIABLE = "CALLER_CALLBACK_SECRETS";

  private final Map<String, List<URI>> urls;
  private final Map<String, WebhookSigner> signers;

  private CallerCallbacks(Map<String, List<URI>> urls, Map<String, WebhookSigner> signers) {
    this.urls = urls;
    this.signers = signers;
  }

  public static CallerCallbacks none() {
    return new CallerCallbacks(Map.of(), Map.of());
  }

  /**
   * @param callerNames the names of {@code CALLER_API_KEYS}: a callback of another name would never
   *     be used, so it is a typo
   * @throws IllegalArgumentException on a malformed or unsafe entry, a caller without a secret or a
   *     secret without a caller
   */
  public static CallerCallbacks parse(String urlSpec, String secretSpec, Set<String> callerNames) {
    Map<String, List<URI>> urls = new LinkedHashMap<>();
    List<String[]> entries = entries(URLS_VARIABLE, urlSpec, "name:https://host/path");
    for (int i = 0; i < entries.size(); i++) {
      String name = entries.get(i)[0];
      if (!callerNames.contains(name)) {
        throw new IllegalArgumentException(
            URLS_VARIABLE
                + ": entry "
                + (i + 1)
                + " names caller '"
                + name
                + "', which is not in CALLER_API_KEYS");
      }
      URI url;
      try {
        url = checked(entries.get(i)[1]);
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException(
            URLS_VARIABLE
                + ": the URL of entry "
                + (i + 1)
                + " ('"
                + name
                + "') "
                + e.getMessage());
      }
      urls.computeIfAbsent(name, n -> new ArrayList<>()).add(url);
    }
    Map<String, WebhookSigner> signers = new HashMap<>();
    List<String[]> secrets = entries(SECRETS_VARIABLE, secretSpec, "name:whsec_…");
    for (int i = 0; i < secrets.size(); i++) {
      String name = secrets.get(i)[0];
      if (!urls.containsKey(name)) {
        throw new IllegalArgumentException(
            SECRETS_VARIABLE
                + ": entry "
                + (i + 1)
                + " is for '"
                + name
                + "', which has no URL in "
                + URLS_VARIABLE);
      }
      try {
        if (signers.put(name, WebhookSigner.fromSecret(secrets.get(i)[1])) != null) {
          throw new IllegalArgumentException("is the second secret of '" + name + "'");
        }
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException(
            SECRETS_VARIABLE + ": entry " + (i + 1) + " ('" + name + "') " + e.getMessage());
      }
    }
    for (String name : urls.keySet()) {
      if (!signers.containsKey(name)) {
        // unsigned callbacks would let anyone who learns the URL post answers in our name
        throw new IllegalArgumentException(
            URLS_VARIABLE
                + " has a URL for '"
                + name
                + "' but "
                + SECRETS_VARIABLE
                + " has no secret for it: set name:whsec_<base64 of 32 random bytes>"
                + " (echo whsec_$(openssl rand -base64 32))");
      }
    }
    return new CallerCallbacks(urls, signers);
  }

  /** {@code name:value} entries; the value may contain colons (a URL's scheme and port). */
  private static List<String[]> entries(String variable, String spec, String shape) {
    List<String[]> entries = new ArrayList<>();
    if (spec == null || spec.isBlank()) {
      return entries;
    }
    for (String raw : spec.split(",")) {
      String entry = raw.trim();
      if (entry.isEmpty()) {
        continue;
      }
      int colon = entry.indexOf(':');
      if (colon <= 0 || colon == entry.length() - 1) {
        // the position, not the text: the text may be a secret
        throw new IllegalArgumentException(
            variable + ": entry " + (entries.size() + 1) + " is not " + shape);
      }
      entries.add(
          new String[] {entry.substring(0, colon).trim(), entry.substring(colon + 1).trim()});
    }
    return entries;
  }

  /**
   * An absolute https URL, or http to loopback, without user info or fragment.
   *
   * @throws IllegalArgumentException saying what is wrong, to follow "the URL …"
   */
  static URI checked(String text) {
    URI url;
    try {
      url = new URI(text);
    } catch (URISyntaxException e) {
      throw new IllegalArgumentException("is not a URL");
    }
    String scheme = url.getScheme() == null ? "" : url.getScheme().toLowerCase(Locale.ROOT);
    if (url.getHost() == null || !(scheme.equals("https") || scheme.equals("http"))) {
      throw new IllegalArgumentException("is not an absolute https URL");
    }
    if (scheme.equals("http") && !HelpdeskWebhook.isLoopback(url.getHost())) {
      throw new IllegalArgumentException(
          "is plain http to another machine: callbacks carry answers, so only https is allowed"
              + " (http only to 127.0.0.1, ::1 or localhost)");
    }
    if (url.getRawUserInfo() != null || url.getRawFragment() != null) {
      throw new IllegalArgumentException("may not carry user info or a fragment");
    }
    return url;
  }

  public boolean isEmpty() {
    return urls.isEmpty();
  }

  /** The callers with a callback (for the start's log line). */
  public Set<String> callers() {
    return urls.keySet();
  }

  /** Where the caller's callbacks go when a request names none (null: it has none). */
  public URI registered(String caller) {
    List<URI> registered = urls.get(caller);
    return registered == null ? null : registered.get(0);
  }

  /**
   * The URL a question of {@code caller} is called back at: the requested one if it is allowed,
   * else the registered default (null: none).
   *
   * @throws IllegalArgumentException when a URL was requested that is malformed or not on one of
   *     the caller's registered origins (the message is for the caller's 400)
   */
  public URI resolve(String caller, String requested) {
    if (requested == null) {
      return registered(caller);
    }
    if (!urls.containsKey(caller)) {
      throw new IllegalArgumentException(
          "caller " + caller + " has no registered callback host (CALLER_CALLBACKS)");
    }
    URI url;
    try {
      url = checked(requested);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("the URL " + e.getMessage());
    }
    if (!allows(caller, url)) {
      throw new IllegalArgumentException(
          "must be on one of caller " + caller + "'s registered callback hosts");
    }
    return url;
  }

  /** Whether {@code url} is on the origin of one of the caller's registered URLs. */
  public boolean allows(String caller, URI url) {
    return urls.getOrDefault(caller, List.of()).stream().anyMatch(r -> sameOrigin(r, url));
  }

  public Optional<WebhookSigner> signer(String caller) {
    return Optional.ofNullable(signers.get(caller));
  }

  private static boolean sameOrigin(URI a, URI b) {
    return a.getScheme().equalsIgnoreCase(b.getScheme())
        && a.getHost().equalsIgnoreCase(b.getHost())
        && port(a) == port(b);
  }

  private static int port(URI url) {
    return url.getPort() != -1
        ? url.getPort()
        : url.getScheme().equalsIgnoreCase("https") ? 443 : 80;
  }
}
