package dev.questionflow.api.logging;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.turbo.TurboFilter;
import ch.qos.logback.core.spi.FilterReply;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;
import org.slf4j.LoggerFactory;
import org.slf4j.Marker;

/**
 * Samples the fallback lines of an outage: when the model is down, every question logs the same few
 * warnings (its stage failed, the SDK's activity failure) and the log would drown. Per logger and
 * message template it lets the first {@code firstPerWindow} lines of each window through, then one
 * in {@code thenOneIn}, and when the next window starts it logs how many it left out. Only WARN
 * lines are sampled (ERROR, INFO and DEBUG never); the counts stay exact in the metrics ({@code
 * cs_stage_degraded_total}, {@code cs_upstream_errors_total}). Hand-written: Logback's
 * DuplicateMessageFilter suppresses repeats for good, not per time window, and has no "left out"
 * summary.
 */
public final class SampledLogFilter extends TurboFilter {

  /** Where the "left out" summaries go (never sampled itself). */
  public static final String SUMMARY_LOGGER = "dev.questionflow.log-sampling";

  public record Settings(
      List<String> loggers, int firstPerWindow, int thenOneIn, Duration window) {}

  private final Settings settings;
  private final LongSupplier nanoClock;
  private final Map<String, Window> windows = new ConcurrentHashMap<>();
  private final org.slf4j.Logger summary = LoggerFactory.getLogger(SUMMARY_LOGGER);

  public SampledLogFilter(Settings settings, LongSupplier nanoClock) {
    this.settings = settings;
    this.nanoClock = nanoClock;
  }

  private static final class Window {
    final long startNanos;
    final AtomicLong seen = new AtomicLong();
    final AtomicLong left = new AtomicLong();

    Window(long startNanos) {
      this.startNanos = startNanos;
    }
  }

  @Override
  public FilterReply decide(
      Marker marker, Logger logger, Level level, String format, Object[] params, Throwable t) {
    // format == null: an isXxxEnabled() check, not a line
    if (format == null || level != Level.WARN || !sampled(logger.getName())) {
      return FilterReply.NEUTRAL;
    }
    String key = logger.getName() + '|' + format;
    long now = nanoClock.getAsLong();
    Window window = windows.get(key);
    if (window == null || now - window.startNanos >= settings.window().toNanos()) {
      Window fresh = new Window(now);
      Window previous =
          window == null ? windows.putIfAbsent(key, fresh) : replace(key, window, fresh);
      if (window != null && previous == window && window.left.get() > 0) {
        summary.warn(
            "left out {} lines like \"{}\" of {} in the last {} s (log sampling)",
            window.left.get(),
            format,
            logger.getName(),
            settings.window().toSeconds());
      }
      window = windows.get(key);
    }
    long n = window.seen.incrementAndGet();
    if (n <= settings.firstPerWindow()
        || (n - settings.firstPerWindow()) % settings.thenOneIn() == 0) {
      return FilterReply.NEUTRAL;
    }
    window.left.incrementAndGet();
    return FilterReply.DENY;
  }

  /**
   * Swaps in the new window; returns the old one if this thread did it (so only one thread logs the
   * summary).
   */
  private Window replace(String key, Window old, Window fresh) {
    return windows.replace(key, old, fresh) ? old : null;
  }

  private boolean sampled(String loggerName) {
    if (loggerName.equals(SUMMARY_LOGGER)) {
      return false;
    }
    for (String prefix : settings.loggers()) {
      if (loggerName.startsWith(prefix)) {
        return true;
      }
    }
    return false;
  }
}
