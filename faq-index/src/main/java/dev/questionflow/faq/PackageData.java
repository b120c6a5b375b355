package dev.questionflow.faq;

import java.io.IOException;
import java.io.InputStream;
import java.io.StringReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.Properties;

/** The data files of this package (calibration numbers, stop words), read from the class path. */
final class PackageData {

  private PackageData() {}

  static String text(String name) {
    try (InputStream in = PackageData.class.getResourceAsStream(name)) {
      if (in == null) {
        throw new IllegalStateException("missing resource " + name);
      }
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read " + name, e);
    }
  }

  static Properties properties(String name) {
    Properties properties = new Properties();
    try {
      properties.load(new StringReader(text(name)));
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read " + name, e);
    }
    return properties;
  }
}
