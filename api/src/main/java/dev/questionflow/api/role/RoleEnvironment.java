package dev.questionflow.api.role;

import java.util.Map;
import org.springframework.boot.EnvironmentPostProcessor;
import org.springframework.boot.SpringApplication;
import org.springframework.core.Ordered;
import org.springframework.core.env.ConfigurableEnvironment;
import org.springframework.core.env.MapPropertySource;

/**
 * Applies {@link Role} before any bean exists: an {@code api} instance keeps the Temporal starter's
 * workers unstarted ({@code spring.temporal.start-workers=false}: registered, never polling). Runs
 * after the config data (application.yml, {@code configtree:} files, the environment), so the role
 * may come from any of them; an unknown role stops the start-up here, with its reason.
 */
public class RoleEnvironment implements EnvironmentPostProcessor, Ordered {

  static final String SOURCE = "questionflow-role";

  @Override
  public void postProcessEnvironment(
      ConfigurableEnvironment environment, SpringApplication application) {
    Role role = Role.of(environment);
    if (!role.runsWorkers()) {
      environment
          .getPropertySources()
          .addFirst(
              new MapPropertySource(SOURCE, Map.of("spring.temporal.start-workers", "false")));
    }
  }

  @Override
  public int getOrder() {
    return Ordered.LOWEST_PRECEDENCE;
  }
}
