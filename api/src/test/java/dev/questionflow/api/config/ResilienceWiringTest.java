package dev.questionflow.api.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.get;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.status;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.questionflow.activities.resilience.Dependency;
import dev.questionflow.activities.resilience.DependencyBreakers;
import dev.questionflow.api.security.TrialTokenRequests;
import dev.questionflow.workflows.generation.ModelFailures;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.webmvc.test.autoconfigure.AutoConfigureMockMvc;
import org.springframework.context.annotation.Import;
import org.springframework.test.web.servlet.MockMvc;

/**
 * cs.resilience and cs.llm.backup bound into the breakers, the dependencies health indicator and
 * the metrics.
 */
@Import(TrialTokenRequests.class) // trial mode: requests present the trial token
@SpringBootTest(
    properties = {
      "spring.temporal.test-server.enabled=true",
      "cs.faq.index-dir=../data/faq-index",
      "cs.faq.semantic-enabled=false",
      "cs.resilience.defaults.minimum-calls=7",
      "cs.resilience.breakers.helpdesk.failure-rate-threshold=25",
      "cs.resilience.breakers.helpdesk.wait-in-open=5s"
    })
@AutoConfigureMockMvc
class ResilienceWiringTest {

  private static final ObjectMapper JSON = new ObjectMapper();

  @Autowired MockMvc mvc;
  @Autowired DependencyBreakers breakers;
  @Autowired CsProperties properties;

  @AfterEach
  void reset() {
    breakers.breaker(Dependency.PRIMARY_MODEL).reset();
  }

  @Test
  void breakersAreBuiltFromTheDefaultsAndPerDependencyOverrides() {
    assertThat(breakers.settings(Dependency.REDIS).minimumCalls()).isEqualTo(7);
    assertThat(breakers.settings(Dependency.REDIS).failureRateThreshold()).isEqualTo(50f);
    assertThat(breakers.settings(Dependency.HELPDESK).failureRateThreshold()).isEqualTo(25f);
    assertThat(breakers.settings(Dependency.HELPDESK).waitInOpen())
        .isEqualTo(Duration.ofSeconds(5));
    assertThat(breakers.settings(Dependency.HELPDESK).minimumCalls()).isEqualTo(7);
    assertThat(breakers.settings(Dependency.PRIMARY_MODEL).slidingWindow())
        .isEqualTo(Duration.ofSeconds(60));
    assertThat(breakers.settings(Dependency.PRIMARY_MODEL).permittedCallsInHalfOpen())
        .isEqualTo(10);
  }

  @Test
  void theGenerationStageDoesNotRetryTheNonRetryableModelFailures() {
    assertThat(properties.activities().get("generation").retry().nonRetryableErrorTypes())
        .containsExactlyInAnyOrderElementsOf(ModelFailures.NON_RETRYABLE);
    assertThat(properties.llm().backup().baseUrl())
        .as("no backup unless LLM_BACKUP_BASE_URL is set")
        .isBlank();
  }

  @Test
  void anOpenModelBreakerShowsInTheDependenciesHealthButKeepsTheAppInRotation() throws Exception {
    breakers.breaker(Dependency.PRIMARY_MODEL).transitionToForcedOpenState();

    JsonNode dependencies =
        JSON.readTree(
            mvc.perform(get("/actuator/health/dependencies"))
                .andExpect(status().isOk())
                .andReturn()
                .getResponse()
                .getContentAsString());
    assertThat(dependencies.path("status").asText()).isEqualTo("UP");
    assertThat(dependencies.at("/details/primary-model/state").asText()).isEqualTo("FORCED_OPEN");
    assertThat(dependencies.at("/details/primary-model/healthScore").asDouble()).isZero();
    assertThat(dependencies.at("/details/embedding/healthScore").asDouble()).isEqualTo(1.0);
    assertThat(dependencies.at("/details/degraded").toString()).contains("primary-model");

    mvc.perform(get("/actuator/health")).andExpect(status().isOk());
    mvc.perform(get("/actuator/health/readiness")).andExpect(status().isOk());

    String prometheus =
        mvc.perform(get("/actuator/prometheus"))
            .andExpect(status().isOk())
            .andReturn()
            .getResponse()
            .getContentAsString();
    assertThat(prometheus)
        .contains("cs_dependency_health{dependency=\"primary-model\"} 0.0")
        .contains("resilience4j_circuitbreaker_state{");
  }
}
