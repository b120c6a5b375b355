package dev.questionflow.activities.lane;

import io.github.bucket4j.BlockingStrategy;
import io.github.bucket4j.Bucket;
import io.github.bucket4j.BucketConfiguration;
import io.github.bucket4j.ConsumptionProbe;
import io.github.bucket4j.TimeMeter;
import io.github.bucket4j.TokensInheritanceStrategy;
import io.github.bucket4j.local.LocalBucket;
import io.github.bucket4j.local.LocalBucketBuilder;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Bucket4j local buckets in this process, at most {@code maxKeys} of them (least recently used
 * dropped: a dropped bucket comes back full, which only favours the caller). Used when Redis is not
 * configured and, per request, when Redis fails.
 */
public final class LocalBuckets implements BucketStore {

  private final TimeMeter clock;
  private final Map<String, LocalBucket> buckets;

  public LocalBuckets(TimeMeter clock, int maxKeys) {
    this.clock = clock;
    this.buckets =
        new LinkedHashMap<>(256, 0.75f, true) {
          @Override
          protected boolean removeEldestEntry(Map.Entry<String, LocalBucket> eldest) {
            return size() > maxKeys;
          }
        };
  }

  @Override
  public ConsumptionProbe tryConsume(String key, BucketConfiguration configuration) {
    return bucket(key, configuration).tryConsumeAndReturnRemaining(1);
  }

  @Override
  public void refund(String key, BucketConfiguration configuration) {
    bucket(key, configuration).addTokens(1);
  }

  public long availableTokens(String key, BucketConfiguration configuration) {
    return bucket(key, configuration).getAvailableTokens();
  }

  @Override
  public void consumeBlocking(
      String key, BucketConfiguration configuration, BlockingStrategy sleeper)
      throws InterruptedException {
    bucket(key, configuration).asBlocking().consume(1, sleeper);
  }

  @Override
  public void replaceConfiguration(String key, BucketConfiguration configuration) {
    bucket(key, configuration).replaceConfiguration(configuration, TokensInheritanceStrategy.AS_IS);
  }

  private LocalBucket bucket(String key, BucketConfiguration configuration) {
    synchronized (buckets) {
      return buckets.computeIfAbsent(key, k -> build(configuration));
    }
  }

  private LocalBucket build(BucketConfiguration configuration) {
    LocalBucketBuilder builder = Bucket.builder().withCustomTimePrecision(clock);
    for (io.github.bucket4j.Bandwidth bandwidth : configuration.getBandwidths()) {
      builder.addLimit(bandwidth);
    }
    return builder.build();
  }
}
