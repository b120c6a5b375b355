package dev.questionflow.activities.generation;

import com.google.common.net.InternetDomainName;
import java.net.IDN;
import java.text.Normalizer;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The hosts an answer may link to ({@code cs.llm.allowed-link-hosts}); a host's subdomains are
 * allowed with it. Links are found as URLs with a scheme ({@code https://...}, also {@code
 * javascript:} and the like in a markdown link), protocol-relative {@code //host}, bare {@code
 * www.} hosts, markdown link targets, bare {@code host.tld/path}, and a bare {@code host.tld} whose
 * last label is a public suffix ({@code log in at evil.com}: a chat client turns it into a link;
 * Guava's pinned copy of the Public Suffix List decides, so {@code e.g.} or {@code 18.05.2024} stay
 * text). The host is read the way a browser reads it: after the last {@code @} of the authority
 * ({@code https://northwind.example@evil.example} goes to evil.example), before any port, path or
 * backslash, and international names in their ASCII (punycode) form. What cannot be read as a host
 * is foreign: the check fails closed.
 */
public final class LinkAllowList {

  /** No link is allowed. */
  public static final LinkAllowList NONE = new LinkAllowList(List.of());

  private static final Pattern SCHEME_URL =
      Pattern.compile("(?i)(?<![a-z0-9+.-])[a-z][a-z0-9+.-]{1,20}://[^\\s<>\"'`]+");

  private static final Pattern MARKDOWN_TARGET = Pattern.compile("\\]\\(\\s*<?([^)\\s>]+)");

  private static final Pattern PROTOCOL_RELATIVE =
      Pattern.compile("(?<![\\w/])(?<![A-Za-z0-9+.-]:)//([^\\s/<>\"'`]+\\.[^\\s/<>\"'`]+)");

  private static final Pattern WWW_HOST =
      Pattern.compile("(?i)(?<![\\w.@/-])www\\d{0,3}\\.[^\\s/<>\"'`]+");

  /** A dotted host name directly followed by a path or a port. */
  private static final Pattern HOST_WITH_PATH =
      Pattern.compile(
          "(?i)(?<![\\w.@/-])(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\\.)+[a-z]{2,24}(?=[/:]\\S)");

  /** A dotted name on its own: a link only when it ends in a public suffix. */
  private static final Pattern BARE_HOST =
      Pattern.compile(
          "(?i)(?<![\\w.@/-])(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\\.)+[a-z]{2,24}(?![\\w@-])(?!\\.[a-z0-9])");

  private final Set<String> hosts;

  /**
   * @param hosts host names ({@code northwind.example}); a scheme, a leading {@code *.} or {@code
   *     .} and a trailing path are ignored
   */
  public LinkAllowList(List<String> hosts) {
    this.hosts =
        hosts == null
            ? Set.of()
            : Set.copyOf(
                hosts.stream()
                    .filter(h -> h != null && !h.isBlank())
                    .map(LinkAllowList::configuredHost)
                    .toList());
  }

  public Set<String> hosts() {
    return hosts;
  }

  /**
   * The host (or scheme, for a link that is not http or https) of the first link in the answer that
   * is not allowed, or null when every link is. Never the rest of the link, which may carry data.
   */
  public String firstForeign(String answer) {
    // full-width letters and dots read as ASCII, as a browser's address bar would take them
    String text = Normalizer.normalize(answer, Normalizer.Form.NFKC);
    Matcher markdown = MARKDOWN_TARGET.matcher(text);
    while (markdown.find()) {
      String target = markdown.group(1);
      if ((target.startsWith("/") && !target.startsWith("//")) || target.startsWith("#")) {
        continue; // a path on the page's own site
      }
      String foreign = foreignTarget(target);
      if (foreign != null) {
        return foreign;
      }
    }
    for (Pattern link : List.of(SCHEME_URL, WWW_HOST, HOST_WITH_PATH)) {
      Matcher m = link.matcher(text);
      while (m.find()) {
        String foreign = foreignTarget(m.group());
        if (foreign != null) {
          return foreign;
        }
      }
    }
    Matcher bare = BARE_HOST.matcher(text);
    while (bare.find()) {
      if (endsInPublicSuffix(bare.group())) {
        String foreign = foreignTarget(bare.group());
        if (foreign != null) {
          return foreign;
        }
      }
    }
    Matcher relative = PROTOCOL_RELATIVE.matcher(text);
    while (relative.find()) {
      String foreign = foreignTarget("https://" + relative.group(1));
      if (foreign != null) {
        return foreign;
      }
    }
    return null;
  }

  /** The target when it is not an allowed http(s) link, else null. */
  private String foreignTarget(String target) {
    String lower = target.toLowerCase(Locale.ROOT);
    int scheme = lower.indexOf("://");
    String afterScheme;
    if (scheme >= 0) {
      String name = lower.substring(0, scheme);
      if (!name.equals("http") && !name.equals("https")) {
        return name + ":";
      }
      afterScheme = target.substring(scheme + 3);
    } else if (lower.startsWith("//")) {
      afterScheme = target.substring(2);
    } else if (lower.matches("^[a-z][a-z0-9+.-]*:.*") && !lower.matches("^[^:/]+:\\d.*")) {
      return lower.substring(0, lower.indexOf(':') + 1); // javascript:, data:, mailto: ...
    } else {
      afterScheme = target;
    }
    String host = host(afterScheme);
    if (host == null) {
      return "an unreadable host";
    }
    return allowed(host) ? null : host;
  }

  /** The host of an authority-first string, in ASCII and lower case, or null when unreadable. */
  private static String host(String afterScheme) {
    int end = afterScheme.length();
    for (char stop : new char[] {'/', '\\', '?', '#'}) {
      int at = afterScheme.indexOf(stop);
      if (at >= 0 && at < end) {
        end = at;
      }
    }
    String authority = afterScheme.substring(0, end);
    authority = authority.substring(authority.lastIndexOf('@') + 1);
    if (authority.startsWith("[")) {
      int close = authority.indexOf(']');
      return close < 0 ? null : authority.substring(0, close + 1).toLowerCase(Locale.ROOT);
    }
    int port = authority.indexOf(':');
    String name = port >= 0 ? authority.substring(0, port) : authority;
    // a sentence's closing punctuation is not part of the host
    name = name.replaceAll("[)\\]}>,;!?。，、）】」'\"*_~]+$", "").replaceAll("\\.+$", "");
    if (name.isEmpty()) {
      return null;
    }
    try {
      return IDN.toASCII(name, IDN.ALLOW_UNASSIGNED).toLowerCase(Locale.ROOT);
    } catch (IllegalArgumentException e) {
      return null;
    }
  }

  private static boolean endsInPublicSuffix(String name) {
    String lower = name.toLowerCase(Locale.ROOT);
    return InternetDomainName.isValid(lower)
        && InternetDomainName.from(lower).isUnderPublicSuffix();
  }

  private boolean allowed(String host) {
    for (String allowed : hosts) {
      if (host.equals(allowed) || host.endsWith("." + allowed)) {
        return true;
      }
    }
    return false;
  }

  private static String configuredHost(String configured) {
    String h = configured.strip().toLowerCase(Locale.ROOT);
    int scheme = h.indexOf("://");
    if (scheme >= 0) {
      h = h.substring(scheme + 3);
    }
    int path = h.indexOf('/');
    if (path >= 0) {
      h = h.substring(0, path);
    }
    h = h.replaceFirst("^\\*?\\.", "").replaceAll("\\.+$", "");
    try {
      return IDN.toASCII(h, IDN.ALLOW_UNASSIGNED).toLowerCase(Locale.ROOT);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(
          "cs.llm.allowed-link-hosts: '" + configured + "' is not a host name", e);
    }
  }
}
