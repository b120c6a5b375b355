package dev.questionflow.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.yaml.snakeyaml.Yaml;

/**
 * The README stays a front door, and docs/configuration.md keeps up with every cs.* setting of
 * application.yml.
 */
class DocsTest {

  private static final Path ROOT = Infra.repoRoot();

  @Test
  void theReadmeIsAtMostEightKilobytes() throws Exception {
    assertThat(Files.size(ROOT.resolve("README.md"))).isLessThanOrEqualTo(8 * 1024);
  }

  @Test
  void everyCsSettingIsInTheConfigurationReference() throws Exception {
    String reference =
        Files.readString(ROOT.resolve("docs/configuration.md"), StandardCharsets.UTF_8);
    Map<String, Object> yaml;
    try (var in = Files.newInputStream(ROOT.resolve("api/src/main/resources/application.yml"))) {
      yaml = new Yaml().load(in);
    }
    List<String> keys = new ArrayList<>();
    flatten("cs", yaml.get("cs"), keys);
    assertThat(keys).hasSizeGreaterThan(80);
    List<String> missing = new ArrayList<>();
    for (String key : keys) {
      // a stage's settings are columns of the per-stage table: its row names the stage
      // an empty map (cs.resilience.breakers) is documented by its entries' pattern,
      // `<key>.<id>...`
      String documented =
          key.startsWith("cs.activities.") ? "`" + key.split("\\.")[2] + "`" : "`" + key + "`";
      if (!reference.contains(documented) && !reference.contains("`" + key + ".")) {
        missing.add(key);
      }
    }
    assertThat(missing)
        .as("settings of application.yml that docs/configuration.md does not list")
        .isEmpty();
  }

  /**
   * The repository stands alone: no tracked file reads or names a folder beside it (the datasets
   * and the design brief are committed) or a path of the machine it was written on. The documents
   * are among the files read, so this is also the check that no document names such a path.
   */
  @Test
  void nothingInTheRepositoryNamesAPathOutsideIt() throws Exception {
    Process git = new ProcessBuilder("git", "ls-files", "-z").directory(ROOT.toFile()).start();
    String listing = new String(git.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(git.waitFor()).isZero();
    List<String> outside = List.of(".." + "/shared", "/" + "work/");
    List<String> offending = new ArrayList<>();
    for (String file : listing.split("\0")) {
      Path path = ROOT.resolve(file);
      if (file.isEmpty() || !Files.isRegularFile(path) || Files.size(path) > 2_000_000) {
        continue;
      }
      String text = new String(Files.readAllBytes(path), StandardCharsets.ISO_8859_1);
      outside.stream().filter(text::contains).forEach(p -> offending.add(file + ": " + p));
    }
    assertThat(listing)
        .contains("faq-index/datasets/banking77/train.csv", "README.md", "docs/runbook.md");
    assertThat(offending).as("files that name a path outside the repository").isEmpty();
  }

  @SuppressWarnings("unchecked")
  private static void flatten(String prefix, Object value, List<String> keys) {
    if (value instanceof Map<?, ?> map && !map.isEmpty()) {
      ((Map<String, Object>) map)
          .forEach((name, child) -> flatten(prefix + "." + name, child, keys));
    } else {
      keys.add(prefix);
    }
  }
}
