package dev.questionflow.api.temporal;

import dev.questionflow.api.config.CsProperties;
import dev.questionflow.workflows.ActivityStages;
import dev.questionflow.workflows.callback.AnswerCallbackWorkflowImpl;
import dev.questionflow.workflows.deadletter.DeadLetterTicketWorkflowImpl;
import io.grpc.ClientInterceptor;
import io.micrometer.core.instrument.MeterRegistry;
import io.temporal.activity.ActivityOptions;
import io.temporal.activity.LocalActivityOptions;
import io.temporal.client.WorkflowClientOptions;
import io.temporal.common.context.ContextPropagator;
import io.temporal.common.metadata.POJOWorkflowMethodMetadata;
import io.temporal.serviceclient.WorkflowServiceStubsOptions;
import io.temporal.spring.boot.TemporalOptionsCustomizer;
import io.temporal.spring.boot.WorkerOptionsCustomizer;
import io.temporal.spring.boot.WorkflowImplementationOptionsCustomizer;
import io.temporal.worker.Worker;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

@Configuration(proxyBeanMethods = false)
class TemporalConfig {

  /**
   * The question worker joins its Worker Deployment as this build when TEMPORAL_BUILD_ID is set
   * ({@link WorkerVersioning}); the lane workers stay unversioned.
   */
  @Bean
  WorkerOptionsCustomizer workerVersioning(WorkerVersioning versioning, CsProperties properties) {
    return (builder, workerName, taskQueue) ->
        taskQueue.equals(properties.taskQueue()) ? versioning.apply(builder) : builder;
  }

  /**
   * The request ID travels with each question into its workflow and activities (their log lines
   * carry it).
   */
  @Bean
  TemporalOptionsCustomizer<WorkflowClientOptions.Builder> requestIdPropagation() {
    return options -> {
      List<ContextPropagator> propagators = new ArrayList<>();
      List<ContextPropagator> configured = options.build().getContextPropagators();
      if (configured != null) {
        propagators.addAll(configured);
      }
      propagators.add(new RequestIdPropagator());
      return options.setContextPropagators(propagators);
    };
  }

  /**
   * TLS to the frontend when TEMPORAL_TLS_* is set (see {@link TemporalTls}), and the API key when
   * TEMPORAL_API_KEY is ({@link TemporalApiKey}).
   */
  @Bean
  TemporalOptionsCustomizer<WorkflowServiceStubsOptions.Builder> temporalTls(
      TemporalTls tls, TemporalApiKey apiKey) {
    return options -> apiKey.apply(options, tls);
  }

  /**
   * Counts the app's read requests to Temporal by method ({@link TemporalReadCounter}): what status
   * reads and streams cost the server.
   */
  @Bean
  TemporalOptionsCustomizer<WorkflowServiceStubsOptions.Builder> temporalReadCounting(
      MeterRegistry meters) {
    TemporalReadCounter counter = new TemporalReadCounter(meters);
    return options -> {
      List<ClientInterceptor> interceptors = new ArrayList<>();
      java.util.Collection<ClientInterceptor> configured =
          options.build().getGrpcClientInterceptors();
      if (configured != null) {
        interceptors.addAll(configured);
      }
      interceptors.add(counter);
      return options.setGrpcClientInterceptors(interceptors);
    };
  }

  /**
   * Applies the per-stage timeouts and retry policies of application.yml to every workflow
   * implementation; the dead-letter workflow's DeliverTicket gets its own (per-round) policy, the
   * answer callback's DeliverCallback its own.
   */
  @Bean
  WorkflowImplementationOptionsCustomizer activityOptionsFromConfig(CsProperties properties) {
    Map<String, ActivityOptions> questionOptions =
        ActivityOptionsFactory.byActivityType(properties.activities());
    Map<String, LocalActivityOptions> localOptions =
        ActivityOptionsFactory.localByActivityType(
            properties.activities(), ActivityStages.LOCAL_ACTIVITY_TYPES);
    Map<String, ActivityOptions> deadLetterOptions =
        ActivityOptionsFactory.byActivityType(
            properties.activities(), ActivityStages.DEAD_LETTER_ACTIVITY_TYPES);
    Map<String, ActivityOptions> callbackOptions =
        ActivityOptionsFactory.byActivityType(
            properties.activities(), ActivityStages.CALLBACK_ACTIVITY_TYPES);
    return new WorkflowImplementationOptionsCustomizer() {
      @Override
      public io.temporal.worker.WorkflowImplementationOptions.Builder customize(
          io.temporal.worker.WorkflowImplementationOptions.Builder options,
          Worker worker,
          Class<?> clazz,
          POJOWorkflowMethodMetadata workflowMethod) {
        return options
            .setActivityOptions(
                DeadLetterTicketWorkflowImpl.class.equals(clazz)
                    ? deadLetterOptions
                    : AnswerCallbackWorkflowImpl.class.equals(clazz)
                        ? callbackOptions
                        : questionOptions)
            .setLocalActivityOptions(localOptions);
      }
    };
  }
}
