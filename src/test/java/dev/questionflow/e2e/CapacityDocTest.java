package dev.questionflow.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/**
 * docs/capacity.md is what {@link CapacityModel} makes of the benchmark report it names: a new
 * report or a changed model without the document (or the reverse) fails the build. {@code
 * -Dcapacity.update=true} rewrites the document.
 */
class CapacityDocTest {

  private static final String REPORT = "docs/benchmarks/throughput.json";

  @Test
  void theDocumentIsWhatTheModelMakesOfTheBenchmarkItNames() throws Exception {
    Path root = Infra.repoRoot();
    var report = new ObjectMapper().readTree(root.resolve(REPORT).toFile());
    String expected = CapacityModel.render(report, REPORT);
    Path doc = root.resolve("docs/capacity.md");
    if (Boolean.getBoolean("capacity.update")) {
      Files.writeString(doc, expected);
    }
    assertThat(Files.readString(doc))
        .as(
            "docs/capacity.md differs from what %s gives; after a new bin/bench throughput run"
                + " copy its throughput.json to %s and run with -Dcapacity.update=true",
            REPORT, REPORT)
        .isEqualTo(expected);
  }

  @Test
  void actionsAreBilledByThePublishedTiersBeyondThePlansOwn() {
    // 2.5 M included; 11.25 M beyond it is the price page's own example: $525
    assertThat(CapacityModel.actionsCost(2.5)).isZero();
    assertThat(CapacityModel.actionsCost(2.5 + 11.25)).isEqualTo(525.0);
    assertThat(CapacityModel.actionsCost(2.5 + 60))
        .isEqualTo(5 * 50 + 5 * 45 + 10 * 40 + 30 * 35 + 10 * 30);
    assertThatThrownBy(() -> CapacityModel.actionsCost(2.5 + 201))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void instancesCoverThePeakAtTheTargetCpuAndNeverFewerThanTwo() {
    assertThat(CapacityModel.instances(1, 1)).isEqualTo(2);
    // 10 ms x 300/s = 3 cores; 2 cores at 60 % = 1.2 per instance: 3 instances
    assertThat(CapacityModel.instances(10, 300)).isEqualTo(3);
    assertThat(CapacityModel.instances(10, 1000)).isEqualTo(9);
  }
}
