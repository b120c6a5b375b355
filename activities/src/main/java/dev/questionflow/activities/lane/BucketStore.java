package dev.questionflow.activities.lane;

import io.github.bucket4j.BlockingStrategy;
import io.github.bucket4j.BucketConfiguration;
import io.github.bucket4j.ConsumptionProbe;

/**
 * Where token buckets live: this process ({@link LocalBuckets}) or Redis ({@link RedisBuckets}).
 */
public interface BucketStore {

  /**
   * Takes one token from the bucket at {@code key}, creating it full with {@code configuration} if
   * new.
   */
  ConsumptionProbe tryConsume(String key, BucketConfiguration configuration);

  /** Gives one token back (capped at the capacity): for a request that started nothing. */
  void refund(String key, BucketConfiguration configuration);

  /**
   * Gives the bucket at {@code key} a new configuration, keeping its tokens (and any debt of
   * reservations).
   */
  void replaceConfiguration(String key, BucketConfiguration configuration);

  /**
   * Takes a token, reserving a future one when none is left and sleeping until its time with {@code
   * sleeper} (no refill is lost).
   */
  void consumeBlocking(String key, BucketConfiguration configuration, BlockingStrategy sleeper)
      throws InterruptedException;
}
