package dev.questionflow.activities.testing;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * A private CA and certificates it signs, made with openssl in a test's directory: {@code ca.pem},
 * and for each {@link #sign signed} name {@code <name>.pem} with its PKCS#8 key {@code <name>.key}.
 */
public final class TestCertificates {

  private final Path dir;

  private TestCertificates(Path dir) {
    this.dir = dir;
  }

  /** A new CA ({@code ca.pem}, {@code ca.key}) in {@code dir}. */
  public static TestCertificates newCa(Path dir) throws IOException, InterruptedException {
    TestCertificates ca = new TestCertificates(dir);
    ca.openssl(
        "req",
        "-x509",
        "-newkey",
        "rsa:2048",
        "-nodes",
        "-days",
        "2",
        "-subj",
        "/CN=test-ca",
        "-keyout",
        "ca.key",
        "-out",
        "ca.pem");
    return ca;
  }

  public Path ca() {
    return dir.resolve("ca.pem");
  }

  /**
   * A certificate for {@code name} signed by the CA.
   *
   * @param subjectAltName e.g. {@code DNS:localhost,IP:127.0.0.1}, or null for none (a client)
   * @return {@code <name>.pem}; its key is {@code <name>.key}
   */
  public Path sign(String name, String subjectAltName) throws IOException, InterruptedException {
    openssl(
        "req",
        "-newkey",
        "rsa:2048",
        "-nodes",
        "-subj",
        "/CN=" + name,
        "-keyout",
        name + ".rsa",
        "-out",
        name + ".csr");
    openssl("pkcs8", "-topk8", "-nocrypt", "-in", name + ".rsa", "-out", name + ".key");
    List<String> x509 =
        new ArrayList<>(
            List.of(
                "x509",
                "-req",
                "-in",
                name + ".csr",
                "-CA",
                "ca.pem",
                "-CAkey",
                "ca.key",
                "-CAcreateserial",
                "-days",
                "2",
                "-out",
                name + ".pem"));
    if (subjectAltName != null) {
      Files.writeString(dir.resolve(name + ".ext"), "subjectAltName=" + subjectAltName + "\n");
      x509.addAll(List.of("-extfile", name + ".ext"));
    }
    openssl(x509.toArray(String[]::new));
    return dir.resolve(name + ".pem");
  }

  public Path key(String name) {
    return dir.resolve(name + ".key");
  }

  private void openssl(String... args) throws IOException, InterruptedException {
    List<String> command = new ArrayList<>(List.of("openssl"));
    command.addAll(List.of(args));
    Process process =
        new ProcessBuilder(command).directory(dir.toFile()).redirectErrorStream(true).start();
    String out = new String(process.getInputStream().readAllBytes());
    if (process.waitFor() != 0) {
      throw new IllegalStateException(String.join(" ", command) + " failed: " + out);
    }
  }
}
