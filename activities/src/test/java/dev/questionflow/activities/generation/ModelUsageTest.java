package dev.questionflow.activities.generation;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ModelUsageTest {

  private final SimpleMeterRegistry meters = new SimpleMeterRegistry();

  @Test
  void tokensAreCountedPerModelAndKindAndCostAtItsPricesPerMillion() {
    ModelUsage usage = new ModelUsage(meters, Map.of("big", new ModelUsage.Prices(2.50, 10.00)));
    usage.record("big", 1000, 200);
    usage.record("big", 3000, 800);
    usage.record("unpriced", 500, 50);
    usage.record("big", null, null); // nothing reported: nothing counted

    assertThat(tokens("big", "prompt")).isEqualTo(4000);
    assertThat(tokens("big", "completion")).isEqualTo(1000);
    assertThat(tokens("unpriced", "prompt")).isEqualTo(500);
    // 4000 x 2.50 / 1M + 1000 x 10.00 / 1M
    assertThat(meters.get("cs_model_cost").tag("model", "big").counter().count())
        .isCloseTo(0.02, within(1e-12));
    assertThat(meters.get("cs_model_cost").tag("model", "unpriced").counter().count()).isZero();
  }

  private double tokens(String model, String kind) {
    return meters.get("cs_model_tokens").tag("model", model).tag("kind", kind).counter().count();
  }
}
