package dev.questionflow.e2e;

import dev.questionflow.workflows.codec.EncryptionCodec;
import dev.questionflow.workflows.codec.PayloadKeys;
import io.temporal.activity.ActivityInterface;
import io.temporal.activity.ActivityMethod;
import io.temporal.activity.ActivityOptions;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowClientOptions;
import io.temporal.serviceclient.WorkflowServiceStubs;
import io.temporal.serviceclient.WorkflowServiceStubsOptions;
import io.temporal.worker.WorkerFactory;
import io.temporal.workflow.Workflow;
import io.temporal.workflow.WorkflowInterface;
import io.temporal.workflow.WorkflowMethod;
import java.time.Duration;

/**
 * The throughput benchmark's ceiling: a workflow with one activity, on the same SDK, payload codec
 * and JVM flags as the app, run by this {@code main} in a process of its own.
 *
 * <pre>java -cp … dev.questionflow.e2e.BareWorker TEMPORAL_ADDRESS NAMESPACE TASK_QUEUE</pre>
 *
 * Keys from {@code PAYLOAD_KEYS}, as the app.
 */
public final class BareWorker {

  @WorkflowInterface
  public interface Bare {
    @WorkflowMethod
    String run(String text);
  }

  @ActivityInterface
  public interface Echo {
    @ActivityMethod
    String echo(String text);
  }

  public static class BareImpl implements Bare {
    private final Echo echo =
        Workflow.newActivityStub(
            Echo.class,
            ActivityOptions.newBuilder().setStartToCloseTimeout(Duration.ofSeconds(10)).build());

    @Override
    public String run(String text) {
      return echo.echo(text);
    }
  }

  static class EchoImpl implements Echo {
    @Override
    public String echo(String text) {
      return text;
    }
  }

  private BareWorker() {}

  public static void main(String[] args) throws InterruptedException {
    WorkflowServiceStubs stubs =
        WorkflowServiceStubs.newServiceStubs(
            WorkflowServiceStubsOptions.newBuilder().setTarget(args[0]).build());
    WorkflowClient client =
        WorkflowClient.newInstance(
            stubs,
            WorkflowClientOptions.newBuilder()
                .setNamespace(args[1])
                .setDataConverter(
                    EncryptionCodec.dataConverter(PayloadKeys.parse(System.getenv("PAYLOAD_KEYS"))))
                .build());
    WorkerFactory factory = WorkerFactory.newInstance(client);
    var worker = factory.newWorker(args[2]);
    worker.registerWorkflowImplementationTypes(BareImpl.class);
    worker.registerActivitiesImplementations(new EchoImpl());
    factory.start();
    System.out.println("bare worker polling " + args[2]);
    Thread.currentThread().join();
  }
}
