package dev.questionflow.api.tracing;

import io.lettuce.core.protocol.CompleteableCommand;
import io.lettuce.core.protocol.RedisCommand;
import io.lettuce.core.tracing.TraceContext;
import io.lettuce.core.tracing.TraceContextProvider;
import io.lettuce.core.tracing.Tracer;
import io.lettuce.core.tracing.TracerProvider;
import io.lettuce.core.tracing.Tracing;
import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.context.Context;
import java.net.SocketAddress;

/**
 * A client span per Redis command, a child of the caller's current OpenTelemetry span. Written here
 * because neither ready-made one fits: Lettuce's own {@code MicrometerTracing} takes the parent
 * from the current Micrometer Observation only, and an activity's span is made current by
 * Temporal's OpenTracing interceptor through the OTel shim (an OTel context, no Observation), so
 * its commands became roots of traces of their own; OpenTelemetry's Lettuce instrumentation is not
 * published as a library (javaagent only). Lettuce takes the context on the calling thread ({@link
 * #initialTraceContextProvider()}) and starts the span on its event loop. Commands with no span
 * around them (background polls, health checks) are not traced: they would each be a trace of one
 * span.
 */
final class LettuceTracing implements Tracing {

  private final io.opentelemetry.api.trace.Tracer tracer;

  LettuceTracing(OpenTelemetry openTelemetry) {
    this.tracer = openTelemetry.getTracer("dev.questionflow.redis");
  }

  /** The caller's OTel context, carried to the event loop. */
  private record OtelContext(Context context) implements TraceContext {}

  @Override
  public TracerProvider getTracerProvider() {
    return () -> new CommandTracer();
  }

  @Override
  public TraceContextProvider initialTraceContextProvider() {
    return () -> {
      Context current = Context.current();
      return Span.fromContext(current).getSpanContext().isValid()
          ? new OtelContext(current)
          : TraceContext.EMPTY;
    };
  }

  @Override
  public boolean isEnabled() {
    return true;
  }

  /** Keys and values may be customer text: only the command's name is recorded. */
  @Override
  public boolean includeCommandArgsInSpanTags() {
    return false;
  }

  @Override
  public Endpoint createEndpoint(SocketAddress socketAddress) {
    return new Endpoint() {};
  }

  private final class CommandTracer extends Tracer {
    @Override
    public Tracer.Span nextSpan() {
      return Skipped.INSTANCE;
    }

    @Override
    public Tracer.Span nextSpan(TraceContext traceContext) {
      return traceContext instanceof OtelContext parent
          ? new CommandSpan(parent.context())
          : Skipped.INSTANCE;
    }
  }

  private final class CommandSpan extends Tracer.Span {
    private final Context parent;
    private Span span = Span.getInvalid();

    CommandSpan(Context parent) {
      this.parent = parent;
    }

    @Override
    public Tracer.Span start(RedisCommand<?, ?, ?> command) {
      String name = command.getType().toString();
      span =
          tracer
              .spanBuilder(name)
              .setParent(parent)
              .setSpanKind(SpanKind.CLIENT)
              .setAttribute("db.system.name", "redis")
              .setAttribute("db.operation.name", name)
              .startSpan();
      // Lettuce never finishes a span itself: the command's completion does (as in its own
      // tracings)
      if (command instanceof CompleteableCommand<?> completeable) {
        completeable.onComplete(
            (result, failure) -> {
              if (failure != null) {
                error(failure);
              }
              finish();
            });
      }
      return this;
    }

    @Override
    public Tracer.Span name(String name) {
      span.updateName(name);
      return this;
    }

    @Override
    public Tracer.Span annotate(String value) {
      span.addEvent(value);
      return this;
    }

    @Override
    public Tracer.Span tag(String key, String value) {
      span.setAttribute(key, value);
      return this;
    }

    @Override
    public Tracer.Span error(Throwable throwable) {
      span.recordException(throwable);
      span.setStatus(StatusCode.ERROR);
      return this;
    }

    @Override
    public Tracer.Span remoteEndpoint(Endpoint endpoint) {
      return this;
    }

    @Override
    public void finish() {
      span.end();
    }
  }

  private static final class Skipped extends Tracer.Span {
    static final Skipped INSTANCE = new Skipped();

    @Override
    public Tracer.Span start(RedisCommand<?, ?, ?> command) {
      return this;
    }

    @Override
    public Tracer.Span name(String name) {
      return this;
    }

    @Override
    public Tracer.Span annotate(String value) {
      return this;
    }

    @Override
    public Tracer.Span tag(String key, String value) {
      return this;
    }

    @Override
    public Tracer.Span error(Throwable throwable) {
      return this;
    }

    @Override
    public Tracer.Span remoteEndpoint(Endpoint endpoint) {
      return this;
    }

    @Override
    public void finish() {}
  }
}
