package dev.questionflow.api;

import dev.questionflow.api.security.TrialMode;
import java.util.HashMap;
import java.util.Map;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.context.properties.ConfigurationPropertiesScan;

@SpringBootApplication
@ConfigurationPropertiesScan
public class QuestionflowApplication {

  public static void main(String[] args) {
    SpringApplication app = new SpringApplication(QuestionflowApplication.class);
    app.setDefaultProperties(defaultsFor(System.getenv()));
    app.run(args);
  }

  /**
   * TEMPORAL_ADDRESS chooses the mode: set, the app talks to that server; unset, it runs on the
   * SDK's in-process server so that Java and Maven are enough to try it. Default properties have
   * the lowest precedence, so an explicit spring.temporal.test-server.enabled still wins.
   */
  static Map<String, Object> defaultsFor(Map<String, String> env) {
    String address = env.get("TEMPORAL_ADDRESS");
    boolean embedded = address == null || address.isBlank();
    Map<String, Object> defaults = new HashMap<>();
    defaults.put("spring.temporal.test-server.enabled", String.valueOf(embedded));
    defaults.putAll(TrialMode.defaultsFor(env)); // trial mode listens on loopback only
    return defaults;
  }
}
