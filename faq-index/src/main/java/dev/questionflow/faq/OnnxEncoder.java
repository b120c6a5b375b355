package dev.questionflow.faq;

import ai.djl.huggingface.tokenizers.Encoding;
import ai.djl.huggingface.tokenizers.HuggingFaceTokenizer;
import ai.onnxruntime.OnnxTensor;
import ai.onnxruntime.OrtEnvironment;
import ai.onnxruntime.OrtException;
import ai.onnxruntime.OrtSession;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.locks.ReadWriteLock;
import java.util.concurrent.locks.ReentrantReadWriteLock;

/**
 * Runs a langchain4j embedding jar's ONNX model and tokenizer (classpath resources {@code
 * <name>.onnx} and {@code <name>-tokenizer.json}) directly with ONNX Runtime and the DJL
 * HuggingFace tokenizer, both dependencies of {@code langchain4j-embeddings}.
 *
 * <p>Why not the jar's {@code EmbeddingModel} class: it creates its ONNX session with default
 * options (intra-op threads = all cores, which makes two concurrent callers fight over both cores)
 * and embeds a list one text at a time; here the session gets {@value #DEFAULT_INTRA_OP_THREADS}
 * intra-op thread (concurrent callers scale across cores instead), and builds embed batches of
 * similar length padded to the batch's longest text (10,000 BANKING77 phrasings in ~15-40 s instead
 * of ~160 s). Same weights, tokenizer and pooling as the langchain4j class. Thread-safe: {@link
 * OrtSession#run} may be called concurrently, the tokenizer is stateless.
 */
final class OnnxEncoder implements Embedder {

  static final int DEFAULT_INTRA_OP_THREADS = 1;

  /** Longer input is truncated (BANKING77 questions are below 100 tokens). */
  static final int MAX_TOKENS = 256;

  private static final int BATCH = 32;

  private final FaqEmbeddingModel model;
  private final String id;
  private final OrtEnvironment env;
  private final OrtSession session;
  private final HuggingFaceTokenizer tokenizer;
  private final boolean clsPooling;
  private final boolean wantsTypeIds;
  private final String outputName;

  /**
   * Native memory must not be freed under a running inference: an app shutting down while a worker
   * thread still matched a question crashed the JVM in libonnxruntime (SIGSEGV). Uses hold the read
   * lock; {@link #close} takes the write lock, so it waits for them, and later uses fail in Java.
   */
  private final ReadWriteLock open = new ReentrantReadWriteLock();

  private boolean closed;

  OnnxEncoder(FaqEmbeddingModel model, int intraOpThreads) {
    this(model, model.id(), null, model.clsPooling(), intraOpThreads);
  }

  /** A pack's tuned encoder: its own weights (checked against pack.json), its base's tokenizer. */
  OnnxEncoder(PackEncoder encoder, int intraOpThreads) {
    this(encoder.base(), encoder.id(), encoder.weights(), encoder.clsPooling(), intraOpThreads);
  }

  private OnnxEncoder(
      FaqEmbeddingModel model, String id, byte[] weights, boolean clsPooling, int intraOpThreads) {
    this.model = model;
    this.id = id;
    ClassLoader cl = FaqEmbeddingModel.class.getClassLoader();
    // a pack's weights need only the base's tokenizer: the base .onnx is not read then
    String tokName = model.resource() + "-tokenizer.json";
    String onnxName = model.resource() + ".onnx";
    try (InputStream tok = cl.getResourceAsStream(tokName);
        InputStream onnx = weights == null ? cl.getResourceAsStream(onnxName) : null) {
      if (tok == null || (weights == null && onnx == null)) {
        throw new IllegalStateException(
            "Embedding model "
                + model.id()
                + " not on the classpath (no "
                + (tok == null ? tokName : onnxName)
                + "; add the langchain4j-embeddings jar of the model)");
      }
      this.tokenizer =
          HuggingFaceTokenizer.newInstance(
              tok,
              Map.of(
                  "padding",
                  "false",
                  "truncation",
                  "true",
                  "maxLength",
                  Integer.toString(MAX_TOKENS)));
      byte[] bytes = weights != null ? weights : onnx.readAllBytes();
      this.env = OrtEnvironment.getEnvironment();
      try (OrtSession.SessionOptions opts = new OrtSession.SessionOptions()) {
        opts.setIntraOpNumThreads(intraOpThreads);
        opts.setInterOpNumThreads(1);
        opts.setExecutionMode(OrtSession.SessionOptions.ExecutionMode.SEQUENTIAL);
        opts.setOptimizationLevel(OrtSession.SessionOptions.OptLevel.ALL_OPT);
        this.session = env.createSession(bytes, opts);
      }
      Set<String> inputs = session.getInputNames();
      this.wantsTypeIds = inputs.contains("token_type_ids");
      this.outputName =
          session.getOutputNames().contains("last_hidden_state")
              ? "last_hidden_state"
              : session.getOutputNames().iterator().next();
      this.clsPooling = clsPooling;
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot read embedding model " + id, e);
    } catch (OrtException e) {
      throw new IllegalStateException(
          "Cannot load embedding model " + id + ": " + e.getMessage(), e);
    }
  }

  @Override
  public String modelId() {
    return id;
  }

  @Override
  public FaqEmbeddingModel model() {
    return model;
  }

  @Override
  public float[] embed(String text) {
    return whileOpen(() -> run(List.of(tokenizer.encode(model.prefix() + text))).get(0));
  }

  @Override
  public List<float[]> embedAll(List<String> texts) {
    return whileOpen(() -> encodeAll(texts));
  }

  private <T> T whileOpen(java.util.function.Supplier<T> use) {
    open.readLock().lock();
    try {
      if (closed) {
        throw new IllegalStateException("the embedding model " + id + " is closed");
      }
      return use.get();
    } finally {
      open.readLock().unlock();
    }
  }

  private List<float[]> encodeAll(List<String> texts) {
    Encoding[] enc = new Encoding[texts.size()];
    Integer[] order = new Integer[texts.size()];
    for (int i = 0; i < enc.length; i++) {
      enc[i] = tokenizer.encode(model.prefix() + texts.get(i));
      order[i] = i;
    }
    Arrays.sort(order, (a, b) -> Integer.compare(enc[a].getIds().length, enc[b].getIds().length));
    float[][] out = new float[enc.length][];
    for (int start = 0; start < enc.length; start += BATCH) {
      int end = Math.min(enc.length, start + BATCH);
      List<Encoding> batch = new ArrayList<>();
      for (int i = start; i < end; i++) {
        batch.add(enc[order[i]]);
      }
      List<float[]> vs = run(batch);
      for (int i = start; i < end; i++) {
        out[order[i]] = vs.get(i - start);
      }
    }
    return Arrays.asList(out);
  }

  private List<float[]> run(List<Encoding> batch) {
    int n = batch.size();
    int len = 0;
    for (Encoding e : batch) {
      len = Math.max(len, e.getIds().length);
    }
    long[][] ids = new long[n][len];
    long[][] mask = new long[n][len];
    long[][] types = new long[n][len];
    for (int i = 0; i < n; i++) {
      long[] id = batch.get(i).getIds();
      long[] m = batch.get(i).getAttentionMask();
      long[] t = batch.get(i).getTypeIds();
      System.arraycopy(id, 0, ids[i], 0, id.length);
      System.arraycopy(m, 0, mask[i], 0, m.length);
      System.arraycopy(t, 0, types[i], 0, t.length);
    }
    Map<String, OnnxTensor> inputs = new HashMap<>();
    try {
      inputs.put("input_ids", OnnxTensor.createTensor(env, ids));
      inputs.put("attention_mask", OnnxTensor.createTensor(env, mask));
      if (wantsTypeIds) {
        inputs.put("token_type_ids", OnnxTensor.createTensor(env, types));
      }
      try (OrtSession.Result result = session.run(inputs, Set.of(outputName))) {
        float[][][] hidden = (float[][][]) result.get(0).getValue();
        List<float[]> out = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
          float[][] h = hidden[i];
          int dim = h[0].length;
          float[] v = new float[dim];
          if (clsPooling) {
            System.arraycopy(h[0], 0, v, 0, dim);
          } else {
            int count = 0;
            for (int tIdx = 0; tIdx < len; tIdx++) {
              if (mask[i][tIdx] == 0) {
                continue;
              }
              count++;
              for (int d = 0; d < dim; d++) {
                v[d] += h[tIdx][d];
              }
            }
            for (int d = 0; d < dim; d++) {
              v[d] /= Math.max(1, count);
            }
          }
          out.add(Embedder.normalise(v));
        }
        return out;
      }
    } catch (OrtException e) {
      throw new IllegalStateException("Embedding failed: " + e.getMessage(), e);
    } finally {
      inputs.values().forEach(OnnxTensor::close);
    }
  }

  @Override
  public void close() {
    open.writeLock().lock();
    try {
      if (closed) {
        return;
      }
      closed = true;
      try {
        session.close();
      } catch (OrtException e) {
        // ignore
      }
      tokenizer.close();
    } finally {
      open.writeLock().unlock();
    }
  }
}
