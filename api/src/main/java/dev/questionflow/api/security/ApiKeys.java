package dev.questionflow.api.security;

import dev.questionflow.workflows.question.Question.Tier;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * API keys from configuration: comma-separated {@code name:key} or {@code name:key:VIP} entries,
 * where the key may also be given as {@code sha256=<hex>} so the plain key need not sit in the
 * environment. Only SHA-256 digests are kept in memory, and a presented key is compared against
 * every entry in constant time.
 *
 * <p>Hand-written because Spring Security has no API-key store: its password encoders are slow on
 * purpose (bcrypt), which fits passwords typed by people, not a high-entropy key presented on every
 * request.
 */
final class ApiKeys {

  /**
   * The shortest plain key accepted (caller, staff and admin alike); a {@code sha256=} digest is
   * exempt, as the key behind it cannot be measured.
   */
  static final int MIN_LENGTH = 32;

  /**
   * Names end up in workflow IDs' owner tags, session keys and logs: the same characters the API
   * allows in IDs.
   */
  private static final Pattern NAME = Pattern.compile("[A-Za-z0-9._@-]{1,64}");

  private static final String SHA256_PREFIX = "sha256=";
  private static final Set<String> RESERVED_NAMES = Set.of(Requester.WEB, Requester.LOCAL);

  record Entry(String variable, String name, byte[] digest, Tier maxTier) {}

  private final List<Entry> entries;

  private ApiKeys(List<Entry> entries) {
    this.entries = List.copyOf(entries);
  }

  /**
   * @param variable the environment variable's name, for error messages
   * @throws IllegalArgumentException on a malformed entry (the app refuses to start: a typo must
   *     not open a door)
   */
  static ApiKeys parse(String variable, String spec) {
    List<Entry> entries = new ArrayList<>();
    if (spec == null || spec.isBlank()) {
      return new ApiKeys(entries);
    }
    for (String raw : spec.split(",")) {
      String entry = raw.trim();
      if (entry.isEmpty()) {
        continue;
      }
      String[] parts = entry.split(":", -1);
      if (parts.length < 2
          || parts.length > 3
          || !NAME.matcher(parts[0]).matches()
          || parts[1].isBlank()) {
        // the entry's position, not its text: a forgotten "name:" would put the key itself into the
        // log
        throw new IllegalArgumentException(
            variable
                + ": entry "
                + (entries.size() + 1)
                + " is not name:key or"
                + " name:key:VIP (a name of letters, digits and . _ @ -)");
      }
      if (RESERVED_NAMES.contains(parts[0].toLowerCase(Locale.ROOT))) {
        // the chat page's visitors and the trial's requester go by these: a key named so would
        // share their sessions
        throw new IllegalArgumentException(
            variable + ": the name '" + parts[0] + "' is reserved; choose another");
      }
      Tier tier = Tier.STANDARD;
      if (parts.length == 3) {
        try {
          tier = Tier.valueOf(parts[2].trim().toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
          throw new IllegalArgumentException(
              variable + ": the tier of '" + parts[0] + "' must be VIP or STANDARD");
        }
      }
      entries.add(entry(variable, parts[0], parts[1].trim(), tier));
    }
    return new ApiKeys(entries);
  }

  /** One key, which may contain any character (ADMIN_API_KEY). */
  static ApiKeys single(String variable, String name, String key) {
    return key == null || key.isBlank()
        ? new ApiKeys(List.of())
        : new ApiKeys(List.of(entry(variable, name, key.trim(), Tier.STANDARD)));
  }

  private static Entry entry(String variable, String name, String key, Tier tier) {
    byte[] digest;
    if (key.startsWith(SHA256_PREFIX)) {
      String hex = key.substring(SHA256_PREFIX.length());
      if (!hex.matches("[0-9a-fA-F]{64}")) {
        throw new IllegalArgumentException(
            variable + ": the sha256= key of '" + name + "' must be 64 hex digits");
      }
      digest = HexFormat.of().parseHex(hex.toLowerCase(Locale.ROOT));
    } else {
      if (key.chars().filter(c -> c == '.').count() == 2) {
        throw new IllegalArgumentException(
            variable
                + ": the key of '"
                + name
                + "' looks like a JWT (two dots) and would"
                + " be taken for one; use a random key (openssl rand -hex 24)");
      }
      if (key.length() < MIN_LENGTH) {
        // a short key can be guessed (and failed attempts are only rate-limited per address); the
        // length, not the key, goes into the message
        throw new IllegalArgumentException(
            variable
                + ": the key of '"
                + name
                + "' has "
                + key.length()
                + " characters, at least "
                + MIN_LENGTH
                + " are required; use a random key (openssl rand -hex 24) or give its sha256= digest");
      }
      digest = sha256(key);
    }
    return new Entry(variable, name, digest, tier);
  }

  /**
   * Refuses one key under two names or roles: which role it got would be an accident of lookup
   * order.
   */
  static void requireDistinct(ApiKeys... lists) {
    Map<String, String> seen = new HashMap<>();
    for (ApiKeys keys : lists) {
      for (Entry entry : keys.entries) {
        String earlier =
            seen.putIfAbsent(
                HexFormat.of().formatHex(entry.digest()), entry.variable() + " " + entry.name());
        if (earlier != null) {
          throw new IllegalArgumentException(
              "the same key is configured for "
                  + earlier
                  + " and for "
                  + entry.variable()
                  + " "
                  + entry.name()
                  + "; give each its own key");
        }
      }
    }
  }

  boolean isEmpty() {
    return entries.isEmpty();
  }

  /**
   * The entry whose key was presented; every entry is compared so the time does not tell which one
   * matched.
   */
  Optional<Entry> match(String presented) {
    byte[] digest = sha256(presented);
    Entry found = null;
    for (Entry entry : entries) {
      if (MessageDigest.isEqual(entry.digest(), digest) && found == null) {
        found = entry;
      }
    }
    return Optional.ofNullable(found);
  }

  static byte[] sha256(String value) {
    try {
      return MessageDigest.getInstance("SHA-256").digest(value.getBytes(StandardCharsets.UTF_8));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is part of every JDK", e);
    }
  }
}
