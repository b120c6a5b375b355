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
}
