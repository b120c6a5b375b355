package dev.questionflow.faq;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * An {@link Embedder} that keeps every embedding it computed in {@code <dir>/<model>.bin}, so that
 * calibration runs, test classes and reruns embed the ~10,000 BANKING77 phrasings once per model.
 * The real model is loaded only on the first cache miss. Only for pack texts and evaluation files,
 * never for customer questions (the file is not encrypted).
 */
final class CachingEmbedder implements Embedder {

  private static final Map<String, CachingEmbedder> SHARED = new ConcurrentHashMap<>();

  private final FaqEmbeddingModel model;
  private final String id;
  private final java.util.function.Supplier<Embedder> loader;
  private final Path file;
  private final Map<String, float[]> cache = new ConcurrentHashMap<>();
  private volatile Embedder real;
  private volatile boolean dirty;

  private CachingEmbedder(
      FaqEmbeddingModel model, String id, java.util.function.Supplier<Embedder> loader, Path dir) {
    this.model = model;
    this.id = id;
    this.loader = loader;
    this.file = dir.resolve(id + ".bin").toAbsolutePath();
    load();
  }

  /** One shared instance per model in this JVM, kept in {@code target/embedding-cache}. */
  static CachingEmbedder of(FaqEmbeddingModel model) {
    return of(model, Path.of("target", "embedding-cache"));
  }

  /** One shared instance per model in this JVM, kept in {@code dir}. */
  static CachingEmbedder of(FaqEmbeddingModel model, Path dir) {
    return SHARED.computeIfAbsent(
        model.id(), id -> new CachingEmbedder(model, id, () -> Embedder.of(model), dir));
  }

  /**
   * The pack's encoder ({@link Embedder#of(FaqPack)}), one shared instance per encoder id: a tuned
   * model's id carries its checksum, so a new model never reads an old model's vectors.
   */
  static CachingEmbedder of(FaqPack pack, Path dir) {
    if (pack.encoder() == null) {
      return of(FaqEmbeddingModel.defaultFor(pack.language()), dir);
    }
    PackEncoder encoder = pack.encoder();
    return SHARED.computeIfAbsent(
        encoder.id(), id -> new CachingEmbedder(encoder.base(), id, () -> Embedder.of(pack), dir));
  }

  @Override
  public FaqEmbeddingModel model() {
    return model;
  }

  @Override
  public String modelId() {
    return id;
  }

  @Override
  public float[] embed(String text) {
    float[] v = cache.get(text);
    if (v == null) {
      v = real().embed(text);
      cache.put(text, v);
      dirty = true;
    }
    return v.clone();
  }

  @Override
  public List<float[]> embedAll(List<String> texts) {
    List<String> missing = new ArrayList<>();
    for (String t : texts) {
      if (!cache.containsKey(t) && !missing.contains(t)) {
        missing.add(t);
      }
    }
    if (!missing.isEmpty()) {
      // one text at a time, as a question is embedded when matched: a batch pads its texts to the
      // longest, which moves the vectors in the last digits by what else is in the batch, and the
      // calibration's choices must not depend on which texts happened to be embedded together
      Embedder model = real();
      new java.util.LinkedHashSet<>(missing)
          .parallelStream().forEach(text -> cache.put(text, model.embed(text)));
      dirty = true;
      save();
    }
    List<float[]> out = new ArrayList<>(texts.size());
    for (String t : texts) {
      out.add(cache.get(t).clone());
    }
    return out;
  }

  /** The real model (loaded on first use). */
  synchronized Embedder real() {
    if (real == null) {
      real = loader.get();
    }
    return real;
  }

  /** Writes the cache when it changed. */
  synchronized void save() {
    if (!dirty) {
      return;
    }
    try {
      Files.createDirectories(file.getParent());
      Path tmp = file.resolveSibling(file.getFileName() + ".tmp");
      try (DataOutputStream out =
          new DataOutputStream(new BufferedOutputStream(Files.newOutputStream(tmp)))) {
        for (Map.Entry<String, float[]> e : cache.entrySet()) {
          out.writeUTF(e.getKey());
          out.writeInt(e.getValue().length);
          for (float f : e.getValue()) {
            out.writeFloat(f);
          }
        }
      }
      Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
      dirty = false;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private void load() {
    if (!Files.isRegularFile(file)) {
      return;
    }
    try (DataInputStream in =
        new DataInputStream(new BufferedInputStream(Files.newInputStream(file)))) {
      while (true) {
        String key;
        try {
          key = in.readUTF();
        } catch (EOFException eof) {
          break;
        }
        float[] v = new float[in.readInt()];
        for (int i = 0; i < v.length; i++) {
          v[i] = in.readFloat();
        }
        cache.put(key, v);
      }
    } catch (IOException e) {
      cache.clear(); // a broken cache is recomputed
    }
  }
}
