package dev.questionflow.e2e;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/** How the benchmarks report a figure: nearest-rank percentiles, one decimal, wall-clock stamps. */
final class BenchFigures {

  private BenchFigures() {}

  /** The nearest-rank {@code p} percentile (0 for no values), rounded to one decimal. */
  static double percentile(List<Double> values, double p) {
    if (values.isEmpty()) {
      return 0;
    }
    List<Double> sorted = new ArrayList<>(values);
    Collections.sort(sorted);
    return round(sorted.get(Math.min(sorted.size() - 1, (int) (sorted.size() * p))));
  }

  static double round(double value) {
    return Math.round(value * 10) / 10.0;
  }

  /**
   * This machine's wall clock in microseconds, as the fake model's call log stamps its calls (the
   * clock every process shares).
   */
  static long nowMicros() {
    java.time.Instant now = java.time.Instant.now();
    return now.getEpochSecond() * 1_000_000 + now.getNano() / 1000;
  }
}
