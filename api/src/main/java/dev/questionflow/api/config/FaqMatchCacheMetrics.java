package dev.questionflow.api.config;

import dev.questionflow.faq.MatchCache;
import dev.questionflow.faq.SemanticFaqIndex;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.function.ToDoubleFunction;

/**
 * The semantic FAQ level's match cache ({@code cs.faq.match-cache-size}) on {@code
 * /actuator/prometheus}: requests by result, the hit ratio since the start, size and evictions.
 */
final class FaqMatchCacheMetrics {

  private static final String PREFIX = "cs_faq_match_cache_";

  private FaqMatchCacheMetrics() {}

  /** Nothing is registered when the index has no match cache. */
  static void register(SemanticFaqIndex index, MeterRegistry meters) {
    if (index.matchCacheStats().isEmpty()) {
      return;
    }
    FunctionCounter.builder(PREFIX + "requests_total", index, stat(MatchCache.Stats::hits))
        .tag("result", "hit")
        .description("Semantic FAQ matches served from the match cache (hit) or matched (miss)")
        .register(meters);
    FunctionCounter.builder(PREFIX + "requests_total", index, stat(MatchCache.Stats::misses))
        .tag("result", "miss")
        .register(meters);
    FunctionCounter.builder(PREFIX + "evictions_total", index, stat(MatchCache.Stats::evictions))
        .description("Questions dropped from the semantic FAQ match cache to keep it in its size")
        .register(meters);
    Gauge.builder(PREFIX + "hit_ratio", index, stat(MatchCache.Stats::hitRatio))
        .description("Share of semantic FAQ matches served from the match cache since the start")
        .register(meters);
    Gauge.builder(PREFIX + "size", index, stat(MatchCache.Stats::size))
        .description("Questions in the semantic FAQ match cache")
        .register(meters);
  }

  private static ToDoubleFunction<SemanticFaqIndex> stat(
      ToDoubleFunction<MatchCache.Stats> figure) {
    return index -> index.matchCacheStats().map(figure::applyAsDouble).orElse(Double.NaN);
  }
}
