package dev.questionflow.faq;

import java.nio.ByteBuffer;
import java.util.List;

/**
 * Linear classifier over sentence embeddings with a softmax output: one weight vector + bias per
 * FAQ entry.
 *
 * <p>Hand-written on purpose: it is ~150 lines, needs no native/BLAS dependency (Smile, Tribuo,
 * DL4J would each add megabytes of transitive jars to the runtime for one linear layer), and it is
 * fully deterministic (closed-form fit, single thread, no random state), so the same pack and model
 * always give the same stored index.
 */
final class SoftmaxClassifier {

  final int classes;
  final int dim;
  final float[] weights; // [classes][dim] row-major
  final float[] bias;

  SoftmaxClassifier(int classes, int dim, float[] weights, float[] bias) {
    this.classes = classes;
    this.dim = dim;
    this.weights = weights;
    this.bias = bias;
  }

  /**
   * Training hyper-parameters.
   *
   * @param lambda ridge penalty (L2) of the least-squares fit
   * @param sharpness the ridge scores (about 0..1, one-hot targets) are multiplied by this before
   *     the softmax
   */
  record Params(double lambda, double sharpness) {
    static final Params DEFAULT = new Params(1.0, 12.0);
  }

  /**
   * Fits one-vs-all ridge regression to one-hot targets in closed form, {@code W = (X'X + lambda
   * I)^-1 X'Y} with a bias column (Cholesky, double precision), and turns the scores into a
   * softmax. Closed form rather than gradient descent: ~1 s instead of ~15 s for 9,000 x 384 on one
   * core, no learning rate or epochs to tune, and exactly reproducible (measured on BANKING77: as
   * accurate as mini-batch Adam on cross-entropy, see README).
   */
  static SoftmaxClassifier train(List<float[]> x, int[] y, int classes, Params p) {
    int n = x.size();
    int dim = x.get(0).length;
    int d1 = dim + 1; // + bias
    double[] a = new double[d1 * d1]; // X'X (upper triangle filled, then mirrored)
    double[] xy = new double[d1 * classes]; // X'Y
    double[] row = new double[d1];
    for (int i = 0; i < n; i++) {
      float[] xi = x.get(i);
      for (int d = 0; d < dim; d++) {
        row[d] = xi[d];
      }
      row[dim] = 1.0;
      for (int r = 0; r < d1; r++) {
        double v = row[r];
        int off = r * d1;
        for (int c = r; c < d1; c++) {
          a[off + c] += v * row[c];
        }
        xy[r * classes + y[i]] += v;
      }
    }
    for (int r = 0; r < d1; r++) {
      for (int c = 0; c < r; c++) {
        a[r * d1 + c] = a[c * d1 + r];
      }
      a[r * d1 + r] += p.lambda();
    }
    // Cholesky A = L L'
    double[] l = new double[d1 * d1];
    for (int i = 0; i < d1; i++) {
      for (int j = 0; j <= i; j++) {
        double sum = a[i * d1 + j];
        for (int k = 0; k < j; k++) {
          sum -= l[i * d1 + k] * l[j * d1 + k];
        }
        if (i == j) {
          l[i * d1 + i] = Math.sqrt(Math.max(sum, 1e-12));
        } else {
          l[i * d1 + j] = sum / l[j * d1 + j];
        }
      }
    }
    float[] w = new float[classes * dim];
    float[] b = new float[classes];
    double[] z = new double[d1];
    double[] sol = new double[d1];
    for (int c = 0; c < classes; c++) {
      for (int i = 0; i < d1; i++) { // L z = X'y_c
        double sum = xy[i * classes + c];
        for (int k = 0; k < i; k++) {
          sum -= l[i * d1 + k] * z[k];
        }
        z[i] = sum / l[i * d1 + i];
      }
      for (int i = d1 - 1; i >= 0; i--) { // L' w = z
        double sum = z[i];
        for (int k = i + 1; k < d1; k++) {
          sum -= l[k * d1 + i] * sol[k];
        }
        sol[i] = sum / l[i * d1 + i];
      }
      for (int d = 0; d < dim; d++) {
        w[c * dim + d] = (float) (sol[d] * p.sharpness());
      }
      b[c] = (float) (sol[dim] * p.sharpness());
    }
    return new SoftmaxClassifier(classes, dim, w, b);
  }

  /** Class probabilities for a unit-length embedding. */
  double[] predict(float[] x) {
    double[] out = new double[classes];
    probabilities(weights, bias, classes, dim, x, 1f, out);
    return out;
  }

  private static void probabilities(
      float[] w, float[] b, int classes, int dim, float[] x, float scale, double[] out) {
    double max = Double.NEGATIVE_INFINITY;
    for (int c = 0; c < classes; c++) {
      int off = c * dim;
      double s = 0;
      for (int d = 0; d < dim; d++) {
        s += w[off + d] * x[d];
      }
      s = s * scale + b[c];
      out[c] = s;
      max = Math.max(max, s);
    }
    double sum = 0;
    for (int c = 0; c < classes; c++) {
      out[c] = Math.exp(out[c] - max);
      sum += out[c];
    }
    for (int c = 0; c < classes; c++) {
      out[c] /= sum;
    }
  }

  byte[] toBytes() {
    ByteBuffer buf = ByteBuffer.allocate(8 + 4 * (weights.length + bias.length));
    buf.putInt(classes).putInt(dim);
    for (float f : weights) {
      buf.putFloat(f);
    }
    for (float f : bias) {
      buf.putFloat(f);
    }
    return buf.array();
  }

  static SoftmaxClassifier fromBytes(byte[] bytes) {
    ByteBuffer buf = ByteBuffer.wrap(bytes);
    int classes = buf.getInt();
    int dim = buf.getInt();
    if (classes <= 0 || dim <= 0 || bytes.length != 8 + 4L * (classes * (long) dim + classes)) {
      throw new IllegalArgumentException("corrupt classifier");
    }
    float[] w = new float[classes * dim];
    float[] b = new float[classes];
    for (int i = 0; i < w.length; i++) {
      w[i] = buf.getFloat();
    }
    for (int i = 0; i < classes; i++) {
      b[i] = buf.getFloat();
    }
    return new SoftmaxClassifier(classes, dim, w, b);
  }
}
