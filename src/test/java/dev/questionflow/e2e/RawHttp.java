package dev.questionflow.e2e;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/**
 * HTTP/1.1 over a plain socket, one request per connection, bytes exactly as given: what the JDK's
 * client refuses to send (a CR LF inside a header value, invalid UTF-8 in the request line, a
 * Content-Length that lies, a method of any characters) is what hostile clients send.
 */
final class RawHttp {

  /**
   * What came back. {@code status} 0: the server closed the connection or timed out before a status
   * line ({@code failure} says which). {@code http09}: the answer to a request line without a
   * version, which HTTP/0.9 answers with the body alone (Tomcat speaks it and has no switch for
   * it): the status is then the one a problem body names, else 200.
   */
  record Response(
      int status, Map<String, String> headers, byte[] body, String failure, boolean http09) {

    /** A header by its lower-case name, or "". */
    String header(String name) {
      return headers.getOrDefault(name, "");
    }

    String bodyText() {
      return new String(body, StandardCharsets.UTF_8);
    }
  }

  private static final int MAX_BODY = 1 << 20;

  private RawHttp() {}

  /**
   * Sends {@code request} (written while the server may already answer: a server that refuses a
   * large body early is read all the same) and reads one response.
   */
  static Response exchange(int port, byte[] request, int timeoutMillis) {
    return exchange(new InetSocketAddress("127.0.0.1", port), request, timeoutMillis);
  }

  /** The same, to another address (a forwarder in front of the app). */
  static Response exchange(InetSocketAddress address, byte[] request, int timeoutMillis) {
    try (Socket socket = new Socket()) {
      socket.connect(address, timeoutMillis);
      socket.setSoTimeout(timeoutMillis);
      String writeFailure = null;
      try {
        OutputStream out = socket.getOutputStream();
        out.write(request);
        out.flush();
        socket.shutdownOutput();
      } catch (IOException e) {
        // the server answered and closed before taking the whole body: its answer is still there
        writeFailure = "write: " + e.getMessage();
      }
      Response response = read(socket.getInputStream());
      return response.status() == 0 && writeFailure != null
          ? new Response(0, Map.of(), new byte[0], writeFailure + "; " + response.failure(), false)
          : response;
    } catch (IOException e) {
      return new Response(0, Map.of(), new byte[0], "connect: " + e.getMessage(), false);
    }
  }

  /** Reads one response from a connection the caller writes to itself. */
  static Response read(InputStream in) {
    ByteArrayOutputStream head = new ByteArrayOutputStream();
    try {
      int state = 0; // matched bytes of CR LF CR LF
      while (state < 4) {
        int b = in.read();
        if (b < 0) {
          return failed(head.size() == 0 ? "closed without a response" : "closed in the head");
        }
        if (head.size() == 5 && !head.toString(StandardCharsets.ISO_8859_1).equals("HTTP/")) {
          head.write(b);
          head.write(in.readNBytes(MAX_BODY));
          return http09(head.toByteArray());
        }
        head.write(b);
        state =
            (b == '\r' && (state == 0 || state == 2)) || (b == '\n' && (state == 1 || state == 3))
                ? state + 1
                : (b == '\r' ? 1 : 0);
      }
      String[] lines = head.toString(StandardCharsets.ISO_8859_1).split("\r\n");
      String[] statusLine = lines[0].split(" ", 3);
      int status = Integer.parseInt(statusLine[1]);
      Map<String, String> headers = new LinkedHashMap<>();
      for (int i = 1; i < lines.length; i++) {
        int colon = lines[i].indexOf(':');
        if (colon > 0) {
          headers.merge(
              lines[i].substring(0, colon).trim().toLowerCase(Locale.ROOT),
              lines[i].substring(colon + 1).trim(),
              (a, b) -> a + ", " + b);
        }
      }
      byte[] body;
      if (headers.getOrDefault("content-type", "").startsWith("text/event-stream")) {
        body = new byte[0]; // a stream that stays open: its head is the answer
      } else if (headers.containsKey("content-length")) {
        body = in.readNBytes(Math.min(MAX_BODY, Integer.parseInt(headers.get("content-length"))));
      } else if (headers.getOrDefault("transfer-encoding", "").contains("chunked")) {
        body = chunked(in);
      } else {
        body = in.readNBytes(MAX_BODY);
      }
      return new Response(status, headers, body, null, false);
    } catch (SocketTimeoutException e) {
      return failed("timed out" + (head.size() == 0 ? " before a response" : " in the response"));
    } catch (IOException | RuntimeException e) {
      return failed("read: " + e);
    }
  }

  private static byte[] chunked(InputStream in) throws IOException {
    ByteArrayOutputStream body = new ByteArrayOutputStream();
    while (body.size() < MAX_BODY) {
      StringBuilder size = new StringBuilder();
      for (int b = in.read(); b != '\n'; b = in.read()) {
        if (b < 0) {
          return body.toByteArray();
        }
        size.append((char) b);
      }
      int length = Integer.parseInt(size.toString().split(";")[0].trim(), 16);
      if (length == 0) {
        break;
      }
      body.write(in.readNBytes(length));
      in.readNBytes(2); // CR LF after the chunk
    }
    return body.toByteArray();
  }

  private static Response failed(String why) {
    return new Response(0, Map.of(), new byte[0], why, false);
  }

  private static final java.util.regex.Pattern PROBLEM_STATUS =
      java.util.regex.Pattern.compile(
          "^\\{\"type\":\"[^\"]*\",\"title\":\"[^\"]*\",\"status\":(\\d{3}),");

  private static Response http09(byte[] body) {
    java.util.regex.Matcher problem =
        PROBLEM_STATUS.matcher(new String(body, StandardCharsets.ISO_8859_1));
    int status = problem.find() ? Integer.parseInt(problem.group(1)) : 200;
    return new Response(status, Map.of(), body, null, true);
  }
}
