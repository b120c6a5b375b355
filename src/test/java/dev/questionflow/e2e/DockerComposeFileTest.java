package dev.questionflow.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.yaml.snakeyaml.Yaml;

/**
 * Static checks of docker-compose-temporal.yml (the Docker alternative to bin/dev-services). Needs
 * no Docker: it only parses the compose file and the dynamic config file it mounts.
 */
class DockerComposeFileTest {

  private static final String COMPOSE_FILE = "docker-compose-temporal.yml";

  /**
   * A variable compose refuses to run without: ${NAME:?message}. Not ${NAME?message}, which accepts
   * an empty value (redis-server --requirepass "" means no password), and not ${NAME:-default} or
   * ${NAME}, which let the stack start with a known or empty password.
   */
  private static final Pattern REQUIRED_VARIABLE =
      Pattern.compile("\\$\\{([A-Za-z_][A-Za-z0-9_]*):\\?[^}]*}");

  /** environment keys whose values are secrets (by suffix, so *_PASSWORD_FILE paths are not) */
  private static final Pattern SECRET_KEY =
      Pattern.compile("(?i).*(PASSWORD|PASSWD|PWD|SECRET|TOKEN|REDISCLI_AUTH)");

  /**
   * redis-cli's password option followed by REDIS_PASSWORD: from the container's environment ($$ in
   * the file, expanded by the healthcheck's shell) or interpolated by compose from a required
   * variable
   */
  private static final Pattern REDIS_CLI_AUTH =
      Pattern.compile(
          "(?:^|\\s)(?:-a|--pass)\\s+[\"']?(\\$\\$\\{?REDIS_PASSWORD\\b|\\$\\{REDIS_PASSWORD:\\?[^}]*})");

  private static Path repoRoot;
  private static Map<String, Object> services;

  @BeforeAll
  static void parseComposeFile() throws IOException {
    String prop = System.getProperty("repo.root");
    repoRoot =
        (prop != null && !prop.isBlank() ? Paths.get(prop) : Paths.get(".."))
            .toAbsolutePath()
            .normalize();
    Path compose = repoRoot.resolve(COMPOSE_FILE);
    assertTrue(Files.isRegularFile(compose), "missing " + compose);
    Map<String, Object> root = asMap(loadYaml(compose), COMPOSE_FILE);
    services = asMap(root.get("services"), "services");
  }

  @Test
  void definesAllFiveServices() {
    assertTrue(
        services
            .keySet()
            .containsAll(
                Set.of("postgresql", "temporal", "temporal-ui", "temporal-admin-tools", "redis")),
        "services present: " + services.keySet());
  }

  @Test
  void publishesTheSamePortsAsTheDevServer() {
    assertTrue(publishedPorts("temporal").contains(7233), "temporal must publish 7233");
    assertTrue(publishedPorts("temporal-ui").contains(8233), "temporal-ui must publish 8233");
    assertTrue(publishedPorts("redis").contains(6379), "redis must publish 6379");
  }

  @Test
  void temporalUiTalksToTheTemporalService() {
    Map<String, String> env = environment(service("temporal-ui"));
    assertEquals("temporal:7233", env.get("TEMPORAL_ADDRESS"));
    // payloads are encrypted: the UI decodes them through the app's codec endpoint
    assertTrue(
        String.valueOf(env.get("TEMPORAL_CODEC_ENDPOINT")).endsWith("/codec}"),
        "temporal-ui's TEMPORAL_CODEC_ENDPOINT: " + env.get("TEMPORAL_CODEC_ENDPOINT"));
    assertTrue(
        containerPortsFor("temporal-ui", 8233).contains(8080),
        "temporal-ui's 8233 must map to the UI container port 8080");
  }

  @Test
  void temporalDependsOnPostgresql() {
    Object dependsOn = service("temporal").get("depends_on");
    assertNotNull(dependsOn, "temporal has no depends_on");
    List<String> names = new ArrayList<>();
    if (dependsOn instanceof Map<?, ?> m) {
      m.keySet().forEach(k -> names.add(String.valueOf(k)));
    } else if (dependsOn instanceof List<?> l) {
      l.forEach(k -> names.add(String.valueOf(k)));
    } else {
      fail("unexpected depends_on: " + dependsOn);
    }
    assertTrue(names.contains("postgresql"), "temporal depends_on " + names);
    assertEquals("postgres12", environment(service("temporal")).get("DB"));
  }

  @Test
  void everyPublishedPortBindsToLoopbackOnly() {
    List<String> offenders = new ArrayList<>();
    int published = 0;
    for (String name : services.keySet()) {
      if ("host".equals(String.valueOf(service(name).get("network_mode")))) {
        offenders.add(name + ": network_mode host (every port on every interface)");
      }
      for (PortMapping pm : portMappings(name)) {
        published++;
        if (!"127.0.0.1".equals(pm.hostIp())) {
          offenders.add(name + ": " + pm.spec());
        }
      }
    }
    assertTrue(
        offenders.isEmpty(),
        "ports must be published on 127.0.0.1 only (\"127.0.0.1:HOST:CONTAINER\" or "
            + "host_ip: 127.0.0.1), not on all interfaces: "
            + offenders);
    assertTrue(
        published >= 3, "expected the temporal, temporal-ui and redis ports, found " + published);
  }

  @Test
  void redisRequiresAPasswordFromARequiredVariable() {
    Object command = service("redis").get("command");
    assertTrue(command instanceof List<?>, "redis command must be in list (exec) form: " + command);
    List<String> args = ((List<?>) command).stream().map(String::valueOf).toList();
    int flag = args.indexOf("--requirepass");
    assertTrue(
        flag >= 0 && flag + 1 < args.size(),
        "redis-server must run with --requirepass <password>: " + args);
    assertRequiredVariable("REDIS_PASSWORD", args.get(flag + 1), "redis --requirepass");
  }

  @Test
  void redisHealthcheckAuthenticates() {
    Map<String, Object> redis = service("redis");
    Object test = asMap(redis.get("healthcheck"), "redis healthcheck").get("test");
    assertNotNull(test, "redis has no healthcheck test");
    List<String> parts =
        test instanceof List<?> l
            ? l.stream().map(String::valueOf).toList()
            : List.of("CMD-SHELL", String.valueOf(test));
    String form = parts.get(0);
    assertTrue(
        form.equals("CMD") || form.equals("CMD-SHELL"), "unexpected redis healthcheck: " + parts);
    String cmd = String.join(" ", parts.subList(1, parts.size()));
    assertTrue(cmd.contains("redis-cli"), "redis healthcheck does not use redis-cli: " + cmd);

    Map<String, String> env = environment(redis);
    Matcher auth = REDIS_CLI_AUTH.matcher(cmd);
    if (auth.find()) {
      if (auth.group(1).startsWith("$$")) {
        assertEquals(
            "CMD-SHELL", form, "only a shell expands $REDIS_PASSWORD in the healthcheck: " + parts);
        assertRequiredVariable(
            "REDIS_PASSWORD", env.get("REDIS_PASSWORD"), "redis environment REDIS_PASSWORD");
      }
    } else {
      assertTrue(
          env.containsKey("REDISCLI_AUTH"),
          "redis healthcheck must authenticate (redis-cli -a "
              + "\"$$REDIS_PASSWORD\" with REDIS_PASSWORD in the environment, or REDISCLI_AUTH): "
              + cmd);
      assertRequiredVariable(
          "REDIS_PASSWORD", env.get("REDISCLI_AUTH"), "redis environment REDISCLI_AUTH");
    }
    // redis-cli exits 0 on a NOAUTH or WRONGPASS reply, so the healthcheck has to look for the PONG
    // itself
    assertTrue(cmd.contains("PONG"), "redis healthcheck must check the reply is PONG: " + cmd);
  }

  @Test
  void noServiceHasALiteralPassword() {
    List<String> offenders = new ArrayList<>();
    int secrets = 0;
    for (String name : services.keySet()) {
      for (Map.Entry<String, String> e : environment(service(name)).entrySet()) {
        if (SECRET_KEY.matcher(e.getKey()).matches()) {
          secrets++;
          if (e.getValue() == null || !REQUIRED_VARIABLE.matcher(e.getValue()).matches()) {
            offenders.add(name + ": " + e.getKey());
          }
        }
      }
    }
    assertTrue(
        offenders.isEmpty(),
        "secrets in environment must be required variables ${NAME:?message}, "
            + "not literals, defaults or pass-through: "
            + offenders);
    assertTrue(
        secrets >= 3, "expected the postgresql, temporal and redis passwords, found " + secrets);
  }

  @Test
  void temporalUsesThePostgresqlPassword() {
    String postgres = environment(service("postgresql")).get("POSTGRES_PASSWORD");
    String temporal = environment(service("temporal")).get("POSTGRES_PWD");
    assertRequiredVariable("TEMPORAL_DB_PASSWORD", postgres, "postgresql POSTGRES_PASSWORD");
    assertRequiredVariable("TEMPORAL_DB_PASSWORD", temporal, "temporal POSTGRES_PWD");
  }

  @Test
  void mountedDynamicConfigExistsAndEnablesTheNewMatcher() throws IOException {
    Map<String, Object> temporal = service("temporal");
    String configured = environment(temporal).get("DYNAMIC_CONFIG_FILE_PATH");
    assertNotNull(configured, "temporal has no DYNAMIC_CONFIG_FILE_PATH");
    // auto-setup resolves a relative path against its working directory /etc/temporal
    String inContainer = configured.startsWith("/") ? configured : "/etc/temporal/" + configured;

    Path hostFile =
        hostPathOf(temporal, inContainer)
            .orElseThrow(
                () ->
                    new AssertionError("no volume of the temporal service mounts " + inContainer));
    assertTrue(hostFile.startsWith(repoRoot), hostFile + " is outside the repository");
    assertTrue(Files.isRegularFile(hostFile), "dynamic config file missing: " + hostFile);

    Map<String, Object> dynamicConfig = asMap(loadYaml(hostFile), hostFile.toString());
    Object entries = dynamicConfig.get("matching.useNewMatcher");
    assertTrue(
        entries instanceof List<?> l && !l.isEmpty(),
        "matching.useNewMatcher must be a non-empty list of {value, constraints}: " + entries);
    boolean enabledEverywhere =
        ((List<?>) entries)
            .stream()
                .map(e -> asMap(e, "matching.useNewMatcher entry"))
                .anyMatch(
                    e ->
                        Boolean.TRUE.equals(e.get("value"))
                            && (e.get("constraints") == null
                                || asMap(e.get("constraints"), "constraints").isEmpty()));
    assertTrue(
        enabledEverywhere,
        "matching.useNewMatcher is not set to true without constraints: " + entries);
  }

  // ------------------------------------------------------------------ helpers

  private static Object loadYaml(Path file) throws IOException {
    try (Reader r = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
      return new Yaml().load(r);
    }
  }

  @SuppressWarnings("unchecked")
  private static Map<String, Object> asMap(Object o, String what) {
    if (o == null) {
      return Map.of();
    }
    if (!(o instanceof Map)) {
      throw new AssertionError(what + " is not a mapping: " + o);
    }
    return (Map<String, Object>) o;
  }

  private static Map<String, Object> service(String name) {
    Object s = services.get(name);
    assertNotNull(s, "service " + name + " missing");
    return asMap(s, name);
  }

  /** environment: as a map or as a list of KEY=VALUE strings */
  private static Map<String, String> environment(Map<String, Object> service) {
    Map<String, String> env = new LinkedHashMap<>();
    Object e = service.get("environment");
    if (e instanceof Map<?, ?> m) {
      m.forEach((k, v) -> env.put(String.valueOf(k), v == null ? null : String.valueOf(v)));
    } else if (e instanceof List<?> l) {
      for (Object item : l) {
        String s = String.valueOf(item);
        int eq = s.indexOf('=');
        env.put(eq < 0 ? s : s.substring(0, eq), eq < 0 ? null : s.substring(eq + 1));
      }
    }
    return env;
  }

  private static void assertRequiredVariable(String expectedName, String value, String what) {
    assertNotNull(value, what + " is not set");
    Matcher m = REQUIRED_VARIABLE.matcher(value);
    assertTrue(
        m.matches(),
        what
            + " must be a required variable ${"
            + expectedName
            + ":?message} (compose then "
            + "refuses to start without it), not a literal or a variable with a default: "
            + value);
    assertEquals(expectedName, m.group(1), what + " uses the wrong variable");
  }

  /**
   * One ports entry. hostIp is null when none is given (all interfaces); published and target are
   * null when absent or not a single number (a range or a variable).
   */
  private record PortMapping(String spec, String hostIp, Integer published, Integer target) {}

  /** [host_ip:][published:]target entries of a service, short and long syntax */
  private static List<PortMapping> portMappings(String serviceName) {
    List<PortMapping> result = new ArrayList<>();
    Object ports = service(serviceName).get("ports");
    if (!(ports instanceof List<?> list)) {
      return result;
    }
    for (Object p : list) {
      if (p instanceof Map<?, ?> m) {
        Object hostIp = m.get("host_ip");
        result.add(
            new PortMapping(
                String.valueOf(m),
                hostIp == null ? null : String.valueOf(hostIp),
                portNumber(m.get("published")),
                portNumber(m.get("target"))));
      } else {
        String spec = String.valueOf(p);
        String s = spec;
        int slash = s.indexOf('/');
        if (slash >= 0) {
          s = s.substring(0, slash);
        }
        String hostIp = null;
        if (s.startsWith("[") && s.contains("]:")) { // [IPv6]:published:target
          hostIp = s.substring(1, s.indexOf("]:"));
          s = s.substring(s.indexOf("]:") + 2);
        }
        String[] parts = s.split(":");
        if (parts.length >= 3) {
          hostIp = String.join(":", List.of(parts).subList(0, parts.length - 2));
        }
        Integer published = parts.length >= 2 ? portNumber(parts[parts.length - 2]) : null;
        result.add(new PortMapping(spec, hostIp, published, portNumber(parts[parts.length - 1])));
      }
    }
    return result;
  }

  private static Integer portNumber(Object o) {
    String s = o == null ? "" : String.valueOf(o).trim();
    return s.matches("\\d+") ? Integer.valueOf(s) : null;
  }

  private static List<Integer> publishedPorts(String serviceName) {
    return portMappings(serviceName).stream()
        .map(PortMapping::published)
        .filter(p -> p != null)
        .toList();
  }

  private static List<Integer> containerPortsFor(String serviceName, int published) {
    return portMappings(serviceName).stream()
        .filter(pm -> pm.published() != null && pm.published() == published)
        .map(PortMapping::target)
        .toList();
  }

  /**
   * host file backing containerPath through one of the service's bind mounts (short or long syntax)
   */
  private static Optional<Path> hostPathOf(Map<String, Object> service, String containerPath) {
    Object volumes = service.get("volumes");
    if (!(volumes instanceof List<?> list)) {
      return Optional.empty();
    }
    for (Object v : list) {
      String source;
      String target;
      if (v instanceof Map<?, ?> m) {
        source = String.valueOf(m.get("source"));
        target = String.valueOf(m.get("target"));
      } else {
        String[] parts = String.valueOf(v).split(":");
        if (parts.length < 2) {
          continue;
        }
        source = parts[0];
        target = parts[1];
      }
      if (!(source.startsWith(".") || source.startsWith("/"))) {
        continue; // named volume
      }
      String t = target.endsWith("/") ? target : target + "/";
      if (containerPath.equals(target) || containerPath.startsWith(t)) {
        String rest = containerPath.equals(target) ? "" : containerPath.substring(t.length());
        Path base = repoRoot.resolve(source).normalize();
        return Optional.of(rest.isEmpty() ? base : base.resolve(rest).normalize());
      }
    }
    return Optional.empty();
  }
}
