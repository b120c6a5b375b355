package dev.questionflow.workflows.replay;

import dev.questionflow.workflows.codec.EncryptionCodec;
import dev.questionflow.workflows.codec.PayloadKeys;
import dev.questionflow.workflows.connection.FrontendAccess;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowClientOptions;
import io.temporal.common.WorkflowExecutionHistory;
import io.temporal.common.converter.DataConverter;
import io.temporal.common.converter.GlobalDataConverter;
import io.temporal.serviceclient.WorkflowServiceStubs;
import io.temporal.serviceclient.WorkflowServiceStubsOptions;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;

/**
 * {@code bin/replay}: replays workflow histories against the current workflow code and says clearly
 * whether a running or finished workflow would still replay (exit 0), hits non-determinism (exit
 * 1), or could not be replayed (exit 2).
 *
 * <pre>
 *   bin/replay WORKFLOW_ID [--run-id RUN_ID]      # fetched from TEMPORAL_ADDRESS / TEMPORAL_NAMESPACE,
 *                                                 # with TEMPORAL_TLS_* and TEMPORAL_API_KEY as the app
 *   bin/replay --file history.json [--file ...]   # exported by GET /api/v1/admin/questions/{id}/history,
 *                                                 # or `temporal workflow show -w ID --output json`
 *   PAYLOAD_KEYS=... bin/replay ...               # encrypted histories: the app's keys
 * </pre>
 */
public final class ReplayCli {

  static final int OK = 0;
  static final int NON_DETERMINISTIC = 1;
  static final int ERROR = 2;

  /**
   * A history and the run it came from (null when read from a file, whose JSON has only the
   * events).
   */
  private record Loaded(WorkflowExecutionHistory history, String runId) {}

  private ReplayCli() {}

  public static void main(String[] args) {
    System.exit(run(args, System::getenv, System.out));
  }

  /**
   * Runs as {@code bin/replay} with these arguments and environment against the current workflow
   * code.
   */
  public static int run(String[] args, Function<String, String> env, PrintStream out) {
    return run(args, HistoryReplay.CURRENT_WORKFLOWS, env, out);
  }

  static int run(String[] args, List<Class<?>> implementations, PrintStream out) {
    return run(args, implementations, System::getenv, out);
  }

  private static int run(
      String[] args,
      List<Class<?>> implementations,
      Function<String, String> env,
      PrintStream out) {
    List<Path> files = new ArrayList<>();
    String workflowId = null;
    String runId = null;
    for (int i = 0; i < args.length; i++) {
      if ((args[i].equals("--file") || args[i].equals("--run-id")) && i + 1 >= args.length) {
        out.println(args[i] + " needs a value");
        usage(out);
        return ERROR;
      }
      switch (args[i]) {
        case "--file" -> files.add(Path.of(args[++i]));
        case "--run-id" -> runId = args[++i];
        case "-h", "--help" -> {
          usage(out);
          return OK;
        }
        default -> {
          if (args[i].startsWith("-") || workflowId != null) {
            out.println("unknown argument: " + args[i]);
            usage(out);
            return ERROR;
          }
          workflowId = args[i];
        }
      }
    }
    if (files.isEmpty() == (workflowId == null)) {
      usage(out);
      return ERROR;
    }
    List<Loaded> histories = new ArrayList<>();
    try {
      for (Path file : files) {
        // the JSON has only the events: the file name stands in for the workflow ID in the report
        String name = file.getFileName().toString().replaceFirst("\\.json$", "");
        histories.add(
            new Loaded(WorkflowExecutionHistory.fromJson(Files.readString(file), name), null));
      }
      if (workflowId != null) {
        histories.add(fetch(workflowId, runId, env, out));
      }
    } catch (IOException | RuntimeException e) {
      out.println("ERROR could not load the history: " + e.getMessage());
      return ERROR;
    }
    PayloadKeys keys;
    try {
      keys = keys(env);
    } catch (IllegalArgumentException e) {
      out.println("ERROR " + e.getMessage());
      return ERROR;
    }
    DataConverter converter =
        keys == null ? GlobalDataConverter.get() : EncryptionCodec.dataConverter(keys);
    int exit = OK;
    for (Loaded loaded : histories) {
      String missingKey = EncryptionCodec.missingKey(loaded.history().getEvents(), keys);
      if (missingKey != null) {
        out.println(
            "ERROR the history's payloads are encrypted with key '"
                + missingKey
                + "', which PAYLOAD_KEYS does not have: run bin/replay with the app's PAYLOAD_KEYS");
        exit = ERROR;
        continue;
      }
      HistoryReplay.Result result =
          HistoryReplay.replay(loaded.history(), implementations, converter);
      report(result, loaded.runId(), out);
      exit =
          Math.max(
              exit,
              switch (result.outcome()) {
                case OK -> OK;
                case NON_DETERMINISTIC -> NON_DETERMINISTIC;
                case FAILED -> ERROR;
              });
    }
    return exit;
  }

  static void report(HistoryReplay.Result r, String runId, PrintStream out) {
    // a history read from a file carries no run ID
    String run = runId == null ? "" : "run " + runId + ", ";
    String which = r.workflowId() + " (" + run + r.workflowType() + ", " + r.events() + " events)";
    switch (r.outcome()) {
      case OK -> out.println("OK " + which + ": replays against the current workflow code");
      case NON_DETERMINISTIC -> {
        out.println(
            "NON-DETERMINISTIC " + which + ": the current workflow code makes different decisions");
        out.println("  " + r.problem());
        out.println(
            "  Workers running this code would fail this workflow's tasks. Guard the change with"
                + " Workflow.getVersion (docs/runbook.md, \"Changing workflow code\") or keep the old code for"
                + " workflows started before it.");
      }
      case FAILED -> out.println("ERROR " + which + ": " + r.problem());
    }
  }

  private static Loaded fetch(
      String workflowId, String runId, Function<String, String> env, PrintStream out) {
    String address = orDefault(env.apply("TEMPORAL_ADDRESS"), "127.0.0.1:7233");
    String namespace = orDefault(env.apply("TEMPORAL_NAMESPACE"), "default");
    FrontendAccess access = FrontendAccess.fromEnvironment(env);
    out.println(
        "fetching "
            + workflowId
            + " from "
            + address
            + " (namespace "
            + namespace
            + (access.tlsConfigured() || access.apiKey() != null ? ", TLS" : "")
            + (access.apiKey() != null ? ", API key" : "")
            + ")");
    WorkflowServiceStubs stubs =
        WorkflowServiceStubs.newServiceStubs(
            access.apply(WorkflowServiceStubsOptions.newBuilder().setTarget(address)).build());
    try {
      WorkflowClient client =
          WorkflowClient.newInstance(
              stubs, WorkflowClientOptions.newBuilder().setNamespace(namespace).build());
      // the latest run unless one is named; its ID is asked for first so the report can name it
      String run =
          runId != null
              ? runId
              : client.newUntypedWorkflowStub(workflowId).describe().getExecution().getRunId();
      return new Loaded(client.fetchHistory(workflowId, run), run);
    } finally {
      stubs.shutdownNow();
    }
  }

  /**
   * Encrypted histories need the keys they were written under: {@code PAYLOAD_KEYS}, as the app has
   * it (histories without encryption replay with or without it).
   */
  private static PayloadKeys keys(Function<String, String> env) {
    String keys = env.apply("PAYLOAD_KEYS");
    return keys == null || keys.isBlank() ? null : PayloadKeys.parse(keys);
  }

  private static String orDefault(String value, String fallback) {
    return value == null || value.isBlank() ? fallback : value;
  }

  private static void usage(PrintStream out) {
    out.println(
        "usage: bin/replay WORKFLOW_ID [--run-id RUN_ID]   (TEMPORAL_ADDRESS, TEMPORAL_NAMESPACE,"
            + " TEMPORAL_TLS_*, TEMPORAL_API_KEY)");
    out.println("       bin/replay --file history.json [--file more.json ...]");
    out.println("       encrypted histories: set PAYLOAD_KEYS as the app has it");
  }
}
