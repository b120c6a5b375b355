package dev.questionflow.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.questionflow.activities.fakemodel.FakeModelServer;
import dev.questionflow.activities.fakemodel.FakeModelServer.Reply;
import dev.questionflow.activities.redis.RedisConnector;
import dev.questionflow.activities.redis.RedisRunIds;
import dev.questionflow.activities.redis.RedisTopology;
import io.lettuce.core.cluster.SlotHash;
import io.lettuce.core.cluster.api.sync.RedisClusterCommands;
import io.lettuce.core.codec.StringCodec;
import io.temporal.client.WorkflowClient;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.UUID;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Redis beyond one node, on real processes: a three-master Redis Cluster with a replica each, and a
 * Sentinel group with one replica. A storm of questions (a quarter of them become tickets) while
 * the master holding the lane and the tickets is killed with -9 and its replica promoted; the
 * killed node is started again (so WAIT 1 can succeed again). Then: every question reached its
 * answer or ticket exactly once, the tickets in Redis are the TICKETED workflows, and the app, not
 * restarted, uses Redis for sessions and its lane again. Figures: "[failover]".
 */
class RedisFailoverIT {

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final int QUESTIONS = 80;
  private static final Duration PACE = Duration.ofMillis(200);
  private static final int KILL_AT = 25;
  private static final String TICKETS_KEY = "cs:{tickets}:ticket:";

  private final WorkflowClient temporal = Infra.temporalClient();
  private FakeModelServer model;
  private AppProcess app;
  private RedisConnector reader;
  private AutoCloseable redis;

  @AfterEach
  void stop() throws Exception {
    Infra.closeAll(app, model, reader, redis);
    temporal.getWorkflowServiceStubs().shutdown();
  }

  @Test
  void aClusterMasterKilledMidStormLosesNoQuestionAndAnswersNoneTwice() throws Exception {
    LocalRedisCluster cluster = LocalRedisCluster.start(dir("cluster"));
    redis = cluster;
    LocalRedisCluster.Member victim = cluster.masterOf(SlotHash.getSlot("{tickets}"));
    LocalRedisCluster.Member heir = cluster.replicaOf(victim);
    // a lane on the same master as the tickets: one kill takes both
    String taskQueue;
    do {
      taskQueue = Infra.uniqueTaskQueue("failover");
    } while (!victim.owns(SlotHash.getSlot(laneKey(taskQueue, "seq"))));
    storm(
        "cluster",
        cluster.url(),
        taskQueue,
        new FailoverWatch(
            cluster.node(victim.port()), cluster.node(heir.port()), laneKey(taskQueue, "seq")));
  }

  @Test
  void aSentinelMasterKilledMidStormLosesNoQuestionAndAnswersNoneTwice() throws Exception {
    LocalSentinelGroup group = LocalSentinelGroup.start(dir("sentinel"));
    redis = group;
    RedisNode master = group.master();
    String taskQueue = Infra.uniqueTaskQueue("failover");
    storm(
        "sentinel",
        group.url(),
        taskQueue,
        new FailoverWatch(master, group.other(master), laneKey(taskQueue, "seq")));
  }

  private static Path dir(String name) throws Exception {
    return Files.createDirectories(
        Infra.workDir().resolve("redis-failover-" + name + "-" + UUID.randomUUID()));
  }

  private static String laneKey(String taskQueue, String suffix) {
    return "cs:lane:{" + taskQueue + "-model-primary}:" + suffix;
  }

  private void storm(String topology, String url, String taskQueue, FailoverWatch failover)
      throws Exception {
    model = FakeModelServer.start();
    model.script(
        call ->
            call.userMessage().contains("pizza")
                ? Reply.error(400) // refused: the question goes down the ladder to a ticket
                : Reply.text("Answer to: " + call.userMessage()).after(Duration.ofMillis(200)));
    Map<String, String> env = FlowControlIT.laneEnv(taskQueue, model, 20, 20);
    env.put("LLM_API_KEY", "test-key");
    env.put("REDIS_URL", url);
    env.put("REDIS_WAIT_REPLICAS", "1");
    app = AppProcess.start("redis-failover-" + topology, env);
    reader =
        RedisConnector.of(
            RedisTopology.parse(url), Duration.ofSeconds(2), Duration.ofSeconds(1), null);
    RedisClusterCommands<String, String> redisReader = reader.connect(StringCodec.UTF8).sync();
    double errorsBefore = redisErrors();
    String epochBefore = RedisRunIds.of(redisReader);

    QuestionStorm storm = new QuestionStorm(app);
    storm.run(QUESTIONS, PACE, KILL_AT, failover::kill);
    // one question a second after the storm, until the app's stores write to the new master
    storm.trickle(Duration.ofSeconds(1), failover::done, Duration.ofMinutes(4));
    FailoverWatch.Figures figures = failover.figures(Duration.ofMinutes(1));
    Map<Integer, QuestionStorm.Outcome> outcomes = storm.settle(Duration.ofMinutes(4));

    // none lost: every question accepted has its answer or its ticket
    assertThat(storm.refused()).as("questions refused: %s", storm.refusals()).isZero();
    assertThat(outcomes).hasSize(storm.accepted().size()).hasSize(storm.asked());
    outcomes.forEach(
        (n, outcome) ->
            assertThat(outcome.stage())
                .as("question %d (%s)", n, outcome.workflowId())
                .isEqualTo(storm.expectsTicket(n) ? "TICKETED" : "ANSWERED"));
    QuestionStorm.Histories histories = storm.histories(temporal, outcomes);
    assertThat(histories.duplicates()).as("questions answered more than once").isEmpty();

    // the tickets in Redis are exactly the TICKETED workflows' tickets
    Set<String> ticketedIds =
        outcomes.values().stream()
            .filter(o -> o.stage().equals("TICKETED"))
            .map(QuestionStorm.Outcome::ticketId)
            .collect(Collectors.toCollection(TreeSet::new));
    Set<String> inRedis = ticketsInRedis(redisReader, storm.batch());
    assertThat(inRedis).as("tickets in Redis vs TICKETED questions").isEqualTo(ticketedIds);
    assertThat(redisReader.zrange("cs:{tickets}:status:OPEN", 0, -1)).containsAll(ticketedIds);
    List<String> ticketedWorkflows = new ArrayList<>();
    await()
        .atMost(Duration.ofSeconds(30))
        .pollInterval(Duration.ofSeconds(1))
        .untilAsserted(
            () -> {
              ticketedWorkflows.clear();
              ticketedWorkflows.addAll(storm.ticketedWorkflows());
              assertThat(ticketedWorkflows).as("TICKETED workflows").hasSize(ticketedIds.size());
            });

    // the lane ledger's epoch (run IDs of the masters) is a new one: its entries are checked again
    await()
        .atMost(Duration.ofSeconds(30))
        .ignoreExceptions()
        .until(() -> !RedisRunIds.of(redisReader).equals(epochBefore));

    // the stores resumed without a restart: a session's history and the lane in Redis again
    long resumed = System.nanoTime();
    String session = storesWorkAgain(redisReader, taskQueue);
    long resumedMillis = (System.nanoTime() - resumed) / 1_000_000;
    double errors = redisErrors() - errorsBefore;
    storm.terminateTicketed(temporal, outcomes);

    Map<String, Long> levels =
        outcomes.values().stream()
            .filter(o -> o.stage().equals("ANSWERED"))
            .collect(Collectors.groupingBy(QuestionStorm.Outcome::level, Collectors.counting()));
    System.out.printf(
        "[failover] %s: master killed (kill -9) after question %d of %d (one every %d ms);"
            + " replica promoted %d ms after the kill; the app's first command on it %d ms after;"
            + " killed node started again then, synced as its replica %d ms after; stores (lane,"
            + " sessions) writing to Redis again %d ms after; last ticket written (WAIT 1"
            + " acknowledged) %d ms after, %d ticket writes retried%n",
        topology,
        KILL_AT,
        QUESTIONS,
        PACE.toMillis(),
        figures.promoted(),
        figures.appBack(),
        figures.killedNodeSynced(),
        figures.storesBack(),
        histories.lastTicketWrittenAt() - figures.killedAtEpochMillis(),
        histories.ticketsRetried());
    System.out.printf(
        "[failover] %s: questions asked %d (storm and trickle), accepted %d, answered %d %s, ticketed %d, lost %d,"
            + " duplicates %d; tickets in Redis %d vs TICKETED workflows %d; Redis errors counted"
            + " by the app %.0f (cs_upstream_errors_total), questions refused %d; after the"
            + " failover session %s and the lane in Redis again within %d ms, no app restart%n",
        topology,
        storm.asked(),
        storm.accepted().size(),
        levels.values().stream().mapToLong(Long::longValue).sum(),
        levels,
        ticketedIds.size(),
        storm.accepted().size() - outcomes.size(),
        histories.duplicates().size(),
        inRedis.size(),
        ticketedWorkflows.size(),
        errors,
        storm.refused(),
        session,
        resumedMillis);
    assertThat(figures.promoted()).as("replica promoted").isPositive();
    assertThat(figures.appBack()).as("the app used the promoted master").isPositive();
    assertThat(figures.storesBack()).as("the stores wrote to the promoted master").isPositive();
  }

  /** The tickets of this storm in Redis (their JSON names the workflow; its ID the session). */
  private static Set<String> ticketsInRedis(
      RedisClusterCommands<String, String> redis, String batch) throws Exception {
    Set<String> ids = new TreeSet<>();
    var args = io.lettuce.core.ScanArgs.Builder.matches(TICKETS_KEY + "*").limit(500);
    var cursor = redis.scan(args);
    while (true) {
      for (String key : cursor.getKeys()) {
        JsonNode ticket = JSON.readTree(redis.get(key));
        if (ticket.path("sessionId").asText().startsWith(batch + "-")) {
          ids.add(ticket.path("ticketId").asText());
        }
      }
      if (cursor.isFinished()) {
        return ids;
      }
      cursor = redis.scan(cursor, args);
    }
  }

  /**
   * Two questions in one new session after the failover (asked again until the stores, past any
   * open breaker, use Redis): the session's history and the lane's started calls are in Redis.
   */
  private String storesWorkAgain(RedisClusterCommands<String, String> redis, String taskQueue) {
    String[] session = new String[1];
    await()
        .atMost(Duration.ofSeconds(120))
        .pollInterval(Duration.ofSeconds(1))
        .untilAsserted(
            () -> {
              session[0] = "after-" + UUID.randomUUID().toString().substring(0, 8);
              String first =
                  app.ask(session[0], "m1", QuestionStorm.ANSWER_TEXT).get("workflowId").asText();
              app.awaitStage(first, "ANSWERED", Duration.ofSeconds(60));
              String second =
                  app.ask(session[0], "m2", "And when will it arrive?").get("workflowId").asText();
              app.awaitStage(second, "ANSWERED", Duration.ofSeconds(60));
              List<String> history = redis.keys("cs:session:{*" + session[0] + "}:history");
              assertThat(history).as("the session's history key").hasSize(1);
              assertThat(redis.llen(history.get(0))).as("turns in Redis").isEqualTo(2);
              assertThat(redis.zscore(laneKey(taskQueue, "started"), second))
                  .as("the lane's started calls in Redis")
                  .isNotNull();
            });
    return session[0];
  }

  /** cs_upstream_errors_total{dependency="redis"} summed over its kinds. */
  private double redisErrors() throws Exception {
    Matcher m =
        Pattern.compile("(?m)^cs_upstream_errors_total\\{[^}]*dependency=\"redis\"[^}]*} (\\S+)$")
            .matcher(app.get("/actuator/prometheus").body());
    double sum = 0;
    while (m.find()) {
      sum += Double.parseDouble(m.group(1));
    }
    return sum;
  }
}
