package dev.questionflow.api.temporal;

import dev.questionflow.api.web.RequestIdFilter;
import io.temporal.api.common.v1.Payload;
import io.temporal.common.context.ContextPropagator;
import io.temporal.common.converter.GlobalDataConverter;
import java.util.Map;
import org.slf4j.MDC;

/**
 * Carries the request ID from the API request that started a question into its workflow and every
 * activity (a Temporal header, restored into the MDC on the worker), so each log line of the
 * question's life names the request as well as the workflow ID the SDK puts there ({@code
 * WorkflowId}). The pattern of samples-java's MDCContextPropagator, for one key.
 */
public class RequestIdPropagator implements ContextPropagator {

  @Override
  public String getName() {
    return "questionflow-request-id";
  }

  @Override
  public Object getCurrentContext() {
    return MDC.get(RequestIdFilter.MDC_KEY);
  }

  @Override
  public void setCurrentContext(Object context) {
    if (context instanceof String id) {
      MDC.put(RequestIdFilter.MDC_KEY, id);
    }
  }

  @Override
  public Map<String, Payload> serializeContext(Object context) {
    if (!(context instanceof String id)) {
      return Map.of();
    }
    return Map.of(RequestIdFilter.MDC_KEY, GlobalDataConverter.get().toPayload(id).orElseThrow());
  }

  @Override
  public Object deserializeContext(Map<String, Payload> header) {
    Payload payload = header.get(RequestIdFilter.MDC_KEY);
    return payload == null
        ? null
        : GlobalDataConverter.get().fromPayload(payload, String.class, String.class);
  }
}
