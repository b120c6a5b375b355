package dev.questionflow.api;

import dev.questionflow.api.security.TrialMode;
import java.util.HashMap;
import java.util.Map;
import org.springframework.boot.EnvironmentPostProcessor;
import org.springframework.boot.SpringApplication;
import org.springframework.core.Ordered;
import org.springframework.core.env.ConfigurableEnvironment;
import org.springframework.core.env.MapPropertySource;

/**
 * The defaults that depend on other settings, decided once the whole environment is known
 * (environment variables, {@code configtree:} files such as a Kubernetes Secret's,
 * application.yml), at the lowest precedence so an explicit setting still wins. TEMPORAL_ADDRESS
 * chooses the mode: set, the app talks to that server; unset, it runs on the SDK's in-process
 * server so that Java and Maven are enough to try it. Without any credential, trial mode listens on
 * loopback only.
 */
public class StartupDefaults implements EnvironmentPostProcessor, Ordered {

  static final String SOURCE = "questionflow-startup-defaults";

  @Override
  public void postProcessEnvironment(
      ConfigurableEnvironment environment, SpringApplication application) {
    environment
        .getPropertySources()
        .addLast(new MapPropertySource(SOURCE, defaultsFor(environment::getProperty)));
  }

  static Map<String, Object> defaultsFor(java.util.function.UnaryOperator<String> setting) {
    String address = setting.apply("TEMPORAL_ADDRESS");
    boolean embedded = address == null || address.isBlank();
    Map<String, Object> defaults = new HashMap<>();
    defaults.put("spring.temporal.test-server.enabled", String.valueOf(embedded));
    defaults.putAll(TrialMode.defaultsFor(setting)); // trial mode listens on loopback only
    return defaults;
  }

  @Override
  public int getOrder() {
    return Ordered.LOWEST_PRECEDENCE;
  }
}
