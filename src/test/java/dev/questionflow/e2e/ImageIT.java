package dev.questionflow.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfEnvironmentVariable;

/**
 * The image bin/image builds ({@code IMAGE_TAR}; .ci/run builds it before the tests), checked
 * without a container runtime: its config (user, entrypoint, ports, layers), then its filesystem
 * unpacked and its entrypoint run as the image's user against the dev server and Redis until a
 * question is answered, once with the indexes baked into the image and once building them.
 */
@EnabledIfEnvironmentVariable(named = "IMAGE_TAR", matches = ".+")
class ImageIT {

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String MAIN = "dev.questionflow.api.QuestionflowApplication";

  private static Path tar;
  private static Path unpacked;
  private static Path root;
  private static JsonNode config;
  private static List<String> layers;

  @BeforeAll
  static void unpack() throws Exception {
    tar = Infra.repoRoot().resolve(System.getenv("IMAGE_TAR"));
    assertThat(tar).as("bin/image's output").exists();
    // readable by the image's user, who runs what is unpacked here (a temporary folder is the
    // owner's only)
    Path dir =
        Files.createTempDirectory(
            Infra.workDir(),
            "image-",
            PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwxr-xr-x")));
    unpacked = dir;
    run(dir, "tar", "-xf", tar.toString());
    JsonNode manifest = JSON.readTree(dir.resolve("manifest.json").toFile()).get(0);
    config = JSON.readTree(dir.resolve(manifest.get("Config").asText()).toFile());
    layers = new ArrayList<>();
    manifest.get("Layers").forEach(l -> layers.add(l.asText()));
    root = Files.createDirectories(dir.resolve("rootfs"));
    for (String layer : layers) { // in order: a later layer's file wins, as in a container
      run(root, "tar", "-xzf", dir.resolve(layer).toString());
    }
  }

  @Test
  void theImageRunsAsNonRootWithItsJavaAndTheAppAlone() throws Exception {
    JsonNode container = config.get("config");
    assertThat(container.get("User").asText()).isEqualTo("65532:65532");
    assertThat(container.get("ExposedPorts").has("8080/tcp")).isTrue();
    assertThat(container.get("WorkingDir").asText()).isEqualTo("/app");
    List<String> entrypoint = strings(container.get("Entrypoint"));
    assertThat(entrypoint).first().isEqualTo("java");
    assertThat(entrypoint).contains("-cp", "@/app/jib-classpath-file").last().isEqualTo(MAIN);
    assertThat(env()).containsEntry("FAQ_INDEX_DIR", "/app/faq-index");

    List<String> history = new ArrayList<>();
    config.get("history").forEach(h -> history.add(h.path("comment").asText()));
    assertThat(history)
        .as("Jib's layers: what changes least first, so a new build ships only its classes")
        .containsSubsequence("dependencies", "resources", "classes", "extra files");
    assertThat(layers).as("one per history entry").hasSize(history.size());

    Path java = root.resolve("opt/java/openjdk/bin/java");
    assertThat(Files.getPosixFilePermissions(java)).contains(PosixFilePermission.OTHERS_EXECUTE);
    assertThat(root.resolve("opt/java/openjdk/release")).content().contains("JAVA_VERSION=\"17");
    assertThat(root.resolve("etc/passwd")).content().contains(":65532:65532:");
    assertThat(List.of("bin", "sbin", "usr/bin", "usr/sbin"))
        .as("no shell, no tools: the runtime only")
        .allSatisfy(d -> assertThat(root.resolve(d)).doesNotExist());
    try (Stream<Path> files = Files.walk(root)) {
      assertThat(files.filter(f -> f.getFileName().toString().endsWith(".lock")))
          .as("no lock file left in the baked indexes")
          .isEmpty();
    }
    assertThat(root.resolve("app/faq-index/banking77/semantic")).isDirectory();

    StringBuilder sizes = new StringBuilder();
    for (int i = 0; i < layers.size(); i++) {
      sizes.append(
          String.format(
              " %s %.1f MB;", history.get(i), Files.size(unpacked.resolve(layers.get(i))) / 1e6));
    }
    System.out.printf(
        "[image] %s: %.1f MB compressed, user %s, entrypoint %s; layers:%s%n",
        tar.getFileName(),
        Files.size(tar) / 1e6,
        container.get("User").asText(),
        entrypoint,
        sizes);
  }

  @Test
  void theEntrypointAnswersAQuestionFromItsBakedIndexes() throws Exception {
    long started = System.nanoTime();
    try (AppProcess app = AppProcess.start("image-baked", Map.of(), launch(Map.of()))) {
      double baked = (System.nanoTime() - started) / 1e9;
      String log = Files.readString(app.log());
      assertThat(log)
          .as("the baked indexes opened as they are, read-only, none built")
          .contains("stored read-only in " + root.resolve("app/faq-index"))
          .doesNotContain("Building FAQ");
      answered(app);

      Path empty =
          Files.createTempDirectory(
              Infra.workDir(),
              "image-no-index-",
              PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwxr-xr-x")));
      run(empty, "chown", "65532:65532", empty.toString());
      started = System.nanoTime();
      Map<String, String> noIndexes = Map.of("FAQ_INDEX_DIR", empty.toString());
      try (AppProcess building = AppProcess.start("image-building", noIndexes, launch(noIndexes))) {
        double built = (System.nanoTime() - started) / 1e9;
        assertThat(Files.readString(building.log())).contains("Building FAQ");
        answered(building);
        System.out.printf(
            "[image] start-up to healthy: %.1f s with the baked indexes, %.1f s building them%n",
            baked, built);
      }
    }
  }

  private static void answered(AppProcess app) throws Exception {
    String workflowId =
        app.ask("image-" + UUID.randomUUID(), "m1", "I still have not received my new card")
            .get("workflowId")
            .asText();
    JsonNode status = app.awaitStage(workflowId, "ANSWERED", Duration.ofSeconds(60));
    assertThat(status.at("/answer/level").asText()).isEqualTo("FAQ");
  }

  /**
   * The image's entrypoint with its paths inside the unpacked filesystem, run as the image's user
   * from its working directory, with the image's environment (the test's settings added by
   * AppProcess; those in {@code overrides} replace the image's own).
   */
  private static AppProcess.Launch launch(Map<String, String> overrides) throws Exception {
    JsonNode container = config.get("config");
    Path classpathFile =
        Files.createTempFile(
            Infra.workDir(),
            "image-classpath-",
            ".txt",
            PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-r--r--")));
    Files.writeString(
        classpathFile,
        Files.readString(root.resolve("app/jib-classpath-file"))
            .replace("/app/", root.resolve("app") + "/"));
    List<String> command =
        new ArrayList<>(
            List.of(
                "setpriv",
                "--reuid=" + container.get("User").asText().split(":")[0],
                "--regid=" + container.get("User").asText().split(":")[1],
                "--clear-groups",
                "env"));
    env()
        .forEach(
            (name, value) -> {
              if (!overrides.containsKey(name)) {
                command.add(
                    name
                        + "="
                        + (name.equals("PATH")
                            ? value
                            : value.replaceFirst("^/", root.toString() + "/")));
              }
            });
    for (String arg : strings(container.get("Entrypoint"))) {
      if (arg.equals("java")) {
        command.add(root.resolve("opt/java/openjdk/bin/java").toString());
        command.add("-Xmx512m"); // the tests' heap, after the image's flags would be too late
      } else if (arg.equals("@/app/jib-classpath-file")) {
        command.add("@" + classpathFile);
      } else {
        command.add(arg);
      }
    }
    return new AppProcess.Launch(command, root.resolve("app"));
  }

  private static Map<String, String> env() {
    Map<String, String> env = new HashMap<>();
    config
        .get("config")
        .get("Env")
        .forEach(
            e -> {
              String[] pair = e.asText().split("=", 2);
              env.put(pair[0], pair[1]);
            });
    return env;
  }

  private static List<String> strings(JsonNode array) {
    List<String> out = new ArrayList<>();
    array.forEach(n -> out.add(n.asText()));
    return out;
  }

  private static void run(Path dir, String... command) throws Exception {
    Process p =
        new ProcessBuilder(command).directory(dir.toFile()).redirectErrorStream(true).start();
    String output = new String(p.getInputStream().readAllBytes());
    assertThat(p.waitFor()).as(String.join(" ", command) + ": " + output).isZero();
  }
}
