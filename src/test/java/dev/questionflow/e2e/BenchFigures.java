package dev.questionflow.e2e;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/** How the benchmarks report a figure: nearest-rank percentiles, one decimal. */
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
}
