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

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.yaml.snakeyaml.Yaml;

/**
 * Static checks of docker-compose-temporal.yml (the Docker alternative to bin/dev-services). Needs no
 * Docker: it only parses the compose file and the dynamic config file it mounts.
 */
class DockerComposeFileTest {

    private static final String COMPOSE_FILE = "docker-compose-temporal.yml";

    private static Path repoRoot;
    private static Map<String, Object> services;

    @BeforeAll
    static void parseComposeFile() throws IOException {
        String prop = System.getProperty("repo.root");
        repoRoot = (prop != null && !prop.isBlank() ? Paths.get(prop) : Paths.get(".."))
                .toAbsolutePath().normalize();
        Path compose = repoRoot.resolve(COMPOSE_FILE);
        assertTrue(Files.isRegularFile(compose), "missing " + compose);
        Map<String, Object> root = asMap(loadYaml(compose), COMPOSE_FILE);
        services = asMap(root.get("services"), "services");
    }

    @Test
    void definesAllFiveServices() {
        assertTrue(services.keySet().containsAll(
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
        assertTrue(containerPortsFor("temporal-ui", 8233).contains(8080),
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
    void mountedDynamicConfigExistsAndEnablesTheNewMatcher() throws IOException {
        Map<String, Object> temporal = service("temporal");
        String configured = environment(temporal).get("DYNAMIC_CONFIG_FILE_PATH");
        assertNotNull(configured, "temporal has no DYNAMIC_CONFIG_FILE_PATH");
        // auto-setup resolves a relative path against its working directory /etc/temporal
        String inContainer = configured.startsWith("/") ? configured : "/etc/temporal/" + configured;

        Path hostFile = hostPathOf(temporal, inContainer).orElseThrow(() -> new AssertionError(
                "no volume of the temporal service mounts " + inContainer));
        assertTrue(hostFile.startsWith(repoRoot), hostFile + " is outside the repository");
        assertTrue(Files.isRegularFile(hostFile), "dynamic config file missing: " + hostFile);

        Map<String, Object> dynamicConfig = asMap(loadYaml(hostFile), hostFile.toString());
        Object entries = dynamicConfig.get("matching.useNewMatcher");
        assertTrue(entries instanceof List<?> l && !l.isEmpty(),
                "matching.useNewMatcher must be a non-empty list of {value, constraints}: " + entries);
        boolean enabledEverywhere = ((List<?>) entries).stream()
                .map(e -> asMap(e, "matching.useNewMatcher entry"))
                .anyMatch(e -> Boolean.TRUE.equals(e.get("value"))
                        && (e.get("constraints") == null || asMap(e.get("constraints"), "constraints").isEmpty()));
        assertTrue(enabledEverywhere, "matching.useNewMatcher is not set to true without constraints: " + entries);
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

    /** [host:]published:target pairs of a service, published -> target, short and long syntax */
    private static List<int[]> portMappings(String serviceName) {
        List<int[]> result = new ArrayList<>();
        Object ports = service(serviceName).get("ports");
        if (!(ports instanceof List<?> list)) {
            return result;
        }
        for (Object p : list) {
            if (p instanceof Map<?, ?> m) {
                Object published = m.get("published");
                Object target = m.get("target");
                if (published != null && target != null) {
                    result.add(new int[] {Integer.parseInt(String.valueOf(published)),
                            Integer.parseInt(String.valueOf(target))});
                }
            } else {
                String s = String.valueOf(p);
                int slash = s.indexOf('/');
                if (slash >= 0) {
                    s = s.substring(0, slash);
                }
                String[] parts = s.split(":");
                if (parts.length == 1) {
                    continue; // container port only, random host port
                }
                result.add(new int[] {Integer.parseInt(parts[parts.length - 2]),
                        Integer.parseInt(parts[parts.length - 1])});
            }
        }
        return result;
    }

    private static List<Integer> publishedPorts(String serviceName) {
        return portMappings(serviceName).stream().map(pm -> pm[0]).toList();
    }

    private static List<Integer> containerPortsFor(String serviceName, int published) {
        return portMappings(serviceName).stream().filter(pm -> pm[0] == published).map(pm -> pm[1]).toList();
    }

    /** host file backing containerPath through one of the service's bind mounts (short or long syntax) */
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
