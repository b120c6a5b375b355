package dev.questionflow.api.config;

import static org.assertj.core.api.Assertions.assertThat;

import dev.questionflow.activities.privacy.PersonalData;
import dev.questionflow.activities.privacy.RedactionSettings;
import java.io.IOException;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.env.YamlPropertySourceLoader;
import org.springframework.core.env.StandardEnvironment;
import org.springframework.core.env.SystemEnvironmentPropertySource;
import org.springframework.core.io.ClassPathResource;

/**
 * The customer-data settings as operators set them: application.yml's defaults, overridden by the
 * environment variables the docs name.
 */
class GuardSettingsBindingTest {

  private static CsProperties bind(Map<String, Object> environmentVariables) throws IOException {
    StandardEnvironment environment = new StandardEnvironment();
    // under the standard name, so that Spring maps the variables as it does the real environment's
    environment
        .getPropertySources()
        .replace(
            StandardEnvironment.SYSTEM_ENVIRONMENT_PROPERTY_SOURCE_NAME,
            new SystemEnvironmentPropertySource(
                StandardEnvironment.SYSTEM_ENVIRONMENT_PROPERTY_SOURCE_NAME, environmentVariables));
    new YamlPropertySourceLoader()
        .load("application.yml", new ClassPathResource("application.yml"))
        .forEach(source -> environment.getPropertySources().addLast(source));
    return Binder.get(environment).bind("cs", CsProperties.class).get();
  }

  @Test
  void everyKindIsRedactedAndNothingAllowedByDefault() throws IOException {
    RedactionSettings settings = bind(Map.of()).privacy().redaction().settings();

    assertThat(settings.kinds()).containsExactlyInAnyOrder(PersonalData.values());
    assertThat(settings.allow()).isEmpty();
  }

  @Test
  void kindsAreSwitchedOffAndValuesAllowedFromTheEnvironment() throws IOException {
    RedactionSettings settings =
        bind(Map.of(
                "CS_PRIVACY_REDACTION_CNID", "false",
                "CS_PRIVACY_REDACTION_EMAIL", "false",
                "REDACTION_ALLOW", "400-820-8820,support@northwind.example"))
            .privacy()
            .redaction()
            .settings();

    assertThat(settings.kinds())
        .containsExactlyInAnyOrder(PersonalData.CARD, PersonalData.PHONE, PersonalData.IBAN);
    assertThat(settings.allow()).containsExactly("400-820-8820", "support@northwind.example");
  }

  @Test
  void theModelGuardsHaveSafeDefaults() throws IOException {
    CsProperties.Llm llm = bind(Map.of()).llm();

    assertThat(llm.maxTokens()).isEqualTo(512);
    assertThat(llm.promptCanary()).as("generated at start").isBlank();
    assertThat(llm.allowedLinkHosts()).as("no link allowed").isEmpty();
    assertThat(bind(Map.of()).activities().get("generation").retry().nonRetryableErrorTypes())
        .contains("PromptLeak", "ForeignLink");
  }

  @Test
  void theModelGuardsAreSetFromTheEnvironment() throws IOException {
    CsProperties.Llm llm =
        bind(Map.of(
                "LLM_MAX_TOKENS", "256",
                "PROMPT_CANARY", "0123456789abcdef0123",
                "LLM_ALLOWED_LINK_HOSTS", "northwind.example,help.partner.example"))
            .llm();

    assertThat(llm.maxTokens()).isEqualTo(256);
    assertThat(llm.promptCanary()).isEqualTo("0123456789abcdef0123");
    assertThat(llm.allowedLinkHosts()).containsExactly("northwind.example", "help.partner.example");
  }

  @Test
  void theHelpdeskWebhookIsSignedWithTheSecretFromTheEnvironment() throws IOException {
    assertThat(bind(Map.of()).tickets().webhookSecret()).isBlank();
    assertThat(bind(Map.of()).tickets().webhookAllowPlainHttp()).isFalse();

    CsProperties.Tickets tickets =
        bind(Map.of(
                "HELPDESK_WEBHOOK_URL", "http://helpdesk.internal/tickets",
                "HELPDESK_WEBHOOK_SECRET", "9f2c4e6a8b0d1f3e5a7c9e1b3d5f7a9c",
                "HELPDESK_ALLOW_PLAIN_HTTP", "true"))
            .tickets();

    assertThat(tickets.webhookUrl()).hasToString("http://helpdesk.internal/tickets");
    assertThat(tickets.webhookSecret()).isEqualTo("9f2c4e6a8b0d1f3e5a7c9e1b3d5f7a9c");
    assertThat(tickets.webhookAllowPlainHttp()).isTrue();
  }
}
