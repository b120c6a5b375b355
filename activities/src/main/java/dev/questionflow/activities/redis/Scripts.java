package dev.questionflow.activities.redis;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/** Lua scripts' SHA-1, as EVALSHA names them, computed without a connection to Redis. */
public final class Scripts {

  private Scripts() {}

  public static String sha1(String script) {
    try {
      return HexFormat.of()
          .formatHex(
              MessageDigest.getInstance("SHA-1").digest(script.getBytes(StandardCharsets.UTF_8)));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-1 is part of every JDK", e);
    }
  }
}
