package dev.questionflow.faq;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.Locale;
import java.util.Objects;

/**
 * An encoder tuned to one pack ({@code bin/faq tune}), named in the pack's {@code pack.json}:
 *
 * <pre>{@code
 * "encoder": {"file": "encoder/model.onnx", "sha256": "<64 hex>", "base": "bge-small-en-v1.5-q",
 *             "pooling": "cls"}
 * }</pre>
 *
 * The ONNX file lives beside the pack; the tokenizer and input prefix are those of its base model
 * (tuning changes weights, not the vocabulary). The {@link #id()} carries the checksum, so a new
 * model changes the stored index's fingerprint and the embedding cache's file, and the index is
 * rebuilt. The bytes are checked against the checksum when the model is loaded: a model that does
 * not match its pack.json is refused, never used.
 */
public final class PackEncoder {

  private static final HexFormat HEX = HexFormat.of();

  private final String packId;
  private final String file;
  private final String sha256;
  private final FaqEmbeddingModel base;
  private final boolean clsPooling;
  private final FaqPacks.PackSource source;

  PackEncoder(
      String packId,
      String file,
      String sha256,
      FaqEmbeddingModel base,
      boolean clsPooling,
      FaqPacks.PackSource source) {
    this.packId = Objects.requireNonNull(packId);
    this.file = Objects.requireNonNull(file);
    this.sha256 = Objects.requireNonNull(sha256).toLowerCase(Locale.ROOT);
    this.base = Objects.requireNonNull(base);
    this.clsPooling = clsPooling;
    this.source = Objects.requireNonNull(source);
  }

  /** Reads {@code pack.json}'s {@code encoder} object; null when the pack names none. */
  static PackEncoder read(
      JsonNode meta, String packId, String language, FaqPacks.PackSource source, String where) {
    JsonNode node = meta.get("encoder");
    if (node == null || node.isNull()) {
      return null;
    }
    if (!node.isObject()) {
      throw FaqPacks.invalid(where, 1, "encoder must be an object");
    }
    String file = text(node, "file", where);
    String sha = text(node, "sha256", where);
    if (!sha.matches("[0-9a-fA-F]{64}")) {
      throw FaqPacks.invalid(where, 1, "encoder.sha256 must be 64 hex digits");
    }
    if (file.startsWith("/") || file.contains("..") || file.contains("\\")) {
      throw FaqPacks.invalid(where, 1, "encoder.file must be a path inside the pack folder");
    }
    FaqEmbeddingModel base;
    try {
      base = FaqEmbeddingModel.fromId(text(node, "base", where));
    } catch (IllegalArgumentException e) {
      throw FaqPacks.invalid(where, 1, "encoder.base: " + e.getMessage());
    }
    if (!base.language().equals(language)) {
      throw FaqPacks.invalid(
          where,
          1,
          "encoder.base " + base.id() + " is for " + base.language() + ", not " + language);
    }
    String pooling = node.path("pooling").asText(base.clsPooling() ? "cls" : "mean");
    if (!pooling.equals("cls") && !pooling.equals("mean")) {
      throw FaqPacks.invalid(where, 1, "encoder.pooling must be \"cls\" or \"mean\"");
    }
    return new PackEncoder(packId, file, sha, base, pooling.equals("cls"), source);
  }

  private static String text(JsonNode node, String field, String where) {
    JsonNode v = node.get(field);
    if (v == null || !v.isTextual() || v.asText().isBlank()) {
      throw FaqPacks.invalid(where, 1, "encoder." + field + " is required");
    }
    return v.asText();
  }

  /**
   * Stable id, part of the index fingerprint, the embedding cache's file name and the calibration
   * key: {@code <pack>-tuned-<first 12 hex digits of the sha256>}.
   */
  public String id() {
    return packId + "-tuned-" + sha256.substring(0, 12);
  }

  /** The model whose tokenizer, prefix and language this encoder keeps. */
  public FaqEmbeddingModel base() {
    return base;
  }

  /** The file, relative to the pack folder. */
  public String file() {
    return file;
  }

  /** The sha256 that pack.json records for the file. */
  public String sha256() {
    return sha256;
  }

  boolean clsPooling() {
    return clsPooling;
  }

  /**
   * The model file's bytes, checked against {@link #sha256()}.
   *
   * @throws IllegalStateException when the file is missing or does not match its checksum
   */
  byte[] weights() {
    byte[] bytes;
    try (InputStream in = source.open(file)) {
      if (in == null) {
        throw new IllegalStateException(
            "Encoder of pack " + packId + " missing: " + source.describe(file));
      }
      bytes = in.readAllBytes();
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot read " + source.describe(file), e);
    }
    String actual = sha256(bytes);
    if (!actual.equals(sha256)) {
      throw new IllegalStateException(
          "Encoder "
              + source.describe(file)
              + " has sha256 "
              + actual
              + ", but pack.json records "
              + sha256
              + ": refusing a model that is not the one the pack was calibrated with");
    }
    return bytes;
  }

  static String sha256(byte[] bytes) {
    try {
      return HEX.formatHex(MessageDigest.getInstance("SHA-256").digest(bytes));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof PackEncoder p
        && p.packId.equals(packId)
        && p.file.equals(file)
        && p.sha256.equals(sha256)
        && p.base == base
        && p.clsPooling == clsPooling;
  }

  @Override
  public int hashCode() {
    return Objects.hash(packId, file, sha256, base, clsPooling);
  }

  @Override
  public String toString() {
    return id() + " (" + file + ", base " + base.id() + ")";
  }
}
