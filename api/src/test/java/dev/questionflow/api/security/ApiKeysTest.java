package dev.questionflow.api.security;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.questionflow.workflows.question.Question.Tier;
import java.util.HexFormat;
import org.junit.jupiter.api.Test;
import org.springframework.security.core.Authentication;
import org.springframework.security.core.GrantedAuthority;
import org.springframework.security.oauth2.server.resource.authentication.BearerTokenAuthenticationToken;

class ApiKeysTest {

  private static final String WEB_KEY = "web-key-0123456789abcdef-abcdef0123456789";
  private static final String APP_KEY = "app-key-0123456789abcdef-abcdef0123456789";

  @Test
  void aKeyMayBeGivenPlainOrAsItsSha256AndCarriesItsNameAndTier() {
    String appDigest = HexFormat.of().formatHex(ApiKeys.sha256(APP_KEY));
    ApiKeys keys =
        ApiKeys.parse(
            "CALLER_API_KEYS", " webchat:" + WEB_KEY + " , app:sha256=" + appDigest + ":vip ,");

    assertThat(keys.match(WEB_KEY))
        .get()
        .satisfies(
            entry -> {
              assertThat(entry.name()).isEqualTo("webchat");
              assertThat(entry.maxTier()).isEqualTo(Tier.STANDARD);
            });
    assertThat(keys.match(APP_KEY))
        .get()
        .satisfies(
            entry -> {
              assertThat(entry.name()).isEqualTo("app");
              assertThat(entry.maxTier()).isEqualTo(Tier.VIP);
            });
    assertThat(keys.match("sha256=" + appDigest)).as("the digest itself is not the key").isEmpty();
    assertThat(keys.match(WEB_KEY + " ")).isEmpty();
    assertThat(keys.match("")).isEmpty();
  }

  @Test
  void aMalformedEntryStopsTheStartWithTheVariableNamed() {
    for (String spec :
        new String[] {
          "webchat",
          "webchat:",
          "web chat:" + WEB_KEY,
          "webchat:" + WEB_KEY + ":GOLD",
          "a:b:VIP:x",
          "webchat:sha256=abc",
          "webchat:eyJh.eyJz.c2ln",
          "web:" + WEB_KEY,
          "Local:" + WEB_KEY
        }) {
      assertThatThrownBy(() -> ApiKeys.parse("CALLER_API_KEYS", spec))
          .as(spec)
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageStartingWith("CALLER_API_KEYS:");
    }
  }

  @Test
  void aKeyShorterThan32CharactersStopsTheStartButItsDigestDoesNot() {
    String shortKey = "0123456789abcdef0123456789abcde"; // 31
    assertThatThrownBy(() -> ApiKeys.parse("CALLER_API_KEYS", "webchat:" + shortKey))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("CALLER_API_KEYS: the key of 'webchat' has 31 characters")
        .hasMessageNotContaining(shortKey);
    assertThatThrownBy(() -> ApiKeys.parse("STAFF_API_KEYS", "alice:" + shortKey))
        .hasMessageStartingWith("STAFF_API_KEYS:");
    assertThatThrownBy(() -> ApiKeys.single("ADMIN_API_KEY", "admin", shortKey))
        .hasMessageStartingWith("ADMIN_API_KEY:");
    assertThat(ApiKeys.parse("CALLER_API_KEYS", "webchat:" + shortKey + "f").match(shortKey + "f"))
        .isPresent();
    String digest = HexFormat.of().formatHex(ApiKeys.sha256("short"));
    assertThat(ApiKeys.parse("CALLER_API_KEYS", "webchat:sha256=" + digest).match("short"))
        .as("a digest's key cannot be measured")
        .isPresent();
  }

  @Test
  void aMalformedEntryIsNamedByItsPositionNotItsText() {
    // "name:" forgotten: the whole entry is the key, and must not end up in the start-up error's
    // log line
    assertThatThrownBy(
            () -> ApiKeys.parse("CALLER_API_KEYS", "webchat:" + WEB_KEY + ",3f9a0b1c2d3e4f5a6b7c"))
        .hasMessage(
            "CALLER_API_KEYS: entry 2 is not name:key or name:key:VIP (a name of letters, digits and . _ @ -)");
  }

  @Test
  void oneKeyUnderTwoNamesOrRolesStopsTheStart() {
    ApiKeys callers = ApiKeys.parse("CALLER_API_KEYS", "webchat:" + WEB_KEY);
    ApiKeys staff = ApiKeys.parse("STAFF_API_KEYS", "alice:" + APP_KEY);
    ApiKeys.requireDistinct(
        callers,
        staff,
        ApiKeys.single("ADMIN_API_KEY", "admin", "admin-0123456789abcdef-abcdef0123456789"));
    assertThatThrownBy(
            () ->
                ApiKeys.requireDistinct(
                    callers, staff, ApiKeys.single("ADMIN_API_KEY", "admin", WEB_KEY)))
        .hasMessageContaining("CALLER_API_KEYS webchat")
        .hasMessageContaining("ADMIN_API_KEY admin");
    assertThatThrownBy(
            () ->
                ApiKeys.requireDistinct(
                    ApiKeys.parse(
                        "STAFF_API_KEYS",
                        "alice:"
                            + APP_KEY
                            + ",bob:sha256="
                            + HexFormat.of().formatHex(ApiKeys.sha256(APP_KEY)))))
        .hasMessageContaining("alice")
        .hasMessageContaining("bob");
  }

  @Test
  void theMetricsKeyFollowsTheSameRulesAndIsNoOtherRolesKey() {
    String shortKey = "0123456789abcdef0123456789abcde"; // 31
    assertThatThrownBy(() -> ApiKeys.single("METRICS_API_KEY", "prometheus", shortKey))
        .hasMessageStartingWith("METRICS_API_KEY: the key of 'prometheus' has 31 characters");
    ApiKeys callers = ApiKeys.parse("CALLER_API_KEYS", "webchat:" + WEB_KEY);
    ApiKeys staff = ApiKeys.parse("STAFF_API_KEYS", "");
    ApiKeys admin = ApiKeys.single("ADMIN_API_KEY", "admin", APP_KEY);
    assertThatThrownBy(
            () ->
                new ApiKeyAuthenticationProvider(
                    callers,
                    staff,
                    admin,
                    ApiKeys.single("METRICS_API_KEY", "prometheus", APP_KEY)))
        .hasMessageContaining("ADMIN_API_KEY admin")
        .hasMessageContaining("METRICS_API_KEY prometheus");

    String metricsKey = "metrics-0123456789abcdef-abcdef0123456789";
    ApiKeyAuthenticationProvider provider =
        new ApiKeyAuthenticationProvider(
            callers,
            staff,
            admin,
            ApiKeys.single(
                "METRICS_API_KEY",
                "prometheus",
                "sha256=" + HexFormat.of().formatHex(ApiKeys.sha256(metricsKey))));
    Authentication scraper = provider.authenticate(new BearerTokenAuthenticationToken(metricsKey));
    assertThat(scraper.getPrincipal())
        .isEqualTo(Requester.metrics("prometheus"))
        .extracting(p -> ((Requester) p).kind())
        .isEqualTo(Requester.Kind.METRICS);
    assertThat(scraper.getAuthorities())
        .extracting(GrantedAuthority::getAuthority)
        .containsExactly("ROLE_METRICS");
  }

  @Test
  void noSpecIsNoKeys() {
    assertThat(ApiKeys.parse("STAFF_API_KEYS", null).isEmpty()).isTrue();
    assertThat(ApiKeys.parse("STAFF_API_KEYS", " ").isEmpty()).isTrue();
    assertThat(ApiKeys.single("ADMIN_API_KEY", "admin", "").isEmpty()).isTrue();
    assertThat(
            ApiKeys.single("ADMIN_API_KEY", "admin", "x:y,z " + WEB_KEY).match("x:y,z " + WEB_KEY))
        .as("the admin key may hold any character")
        .get()
        .extracting(ApiKeys.Entry::name)
        .isEqualTo("admin");
  }
}
