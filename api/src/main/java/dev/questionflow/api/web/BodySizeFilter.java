package dev.questionflow.api.web;

import dev.questionflow.api.config.CsProperties;
import dev.questionflow.api.security.ProblemResponses;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ReadListener;
import jakarta.servlet.ServletException;
import jakarta.servlet.ServletInputStream;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletRequestWrapper;
import jakarta.servlet.http.HttpServletResponse;
import java.io.BufferedReader;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UnsupportedEncodingException;
import java.nio.charset.Charset;
import java.nio.charset.StandardCharsets;
import org.springframework.core.annotation.Order;
import org.springframework.http.HttpStatus;
import org.springframework.stereotype.Component;
import org.springframework.util.unit.DataSize;
import org.springframework.web.filter.OncePerRequestFilter;
import org.springframework.web.util.UrlPathHelper;

/**
 * A request body over its limit ({@code cs.api.max-body-size}, 64 KB; the codec's {@code
 * cs.api.codec-max-body-size}, 8 MB) is a 413 before anything parses it: at once from its {@code
 * Content-Length}, or, sent chunked, as soon as more than the limit has arrived (a chunked body
 * within it is handed on from memory). Without this, Jackson read a question up to its own
 * 20-million-character limit, and the codec read its whole body into a string, before either looked
 * at the size. Tomcat has no such limit for bodies it does not parse itself ({@code maxPostSize} is
 * for forms only), so it is here, in one place for every endpoint.
 *
 * <p>Runs after Spring Security (order -100): a request without the credentials for its path is
 * refused without its body being read at all.
 */
@Component
@Order(0)
class BodySizeFilter extends OncePerRequestFilter {

  private final long limit;
  private final long codecLimit;

  BodySizeFilter(CsProperties properties) {
    this.limit = properties.api().maxBodySize().toBytes();
    this.codecLimit = properties.api().codecMaxBodySize().toBytes();
    if (limit < 1 || codecLimit < 1 || Math.max(limit, codecLimit) >= Integer.MAX_VALUE) {
      throw new IllegalArgumentException(
          "cs.api.max-body-size and cs.api.codec-max-body-size must be between 1 byte and 2 GB");
    }
  }

  @Override
  protected void doFilterInternal(
      HttpServletRequest request, HttpServletResponse response, FilterChain chain)
      throws ServletException, IOException {
    long max = limitOf(request);
    long declared = request.getContentLengthLong();
    if (declared > max) {
      refuse(response, max);
      return;
    }
    if (declared < 0 && request.getHeader("Transfer-Encoding") != null) {
      byte[] body;
      try {
        body = request.getInputStream().readNBytes((int) max + 1);
      } catch (IOException e) {
        // a broken chunked encoding, or the client went away: no body to hand on
        if (!response.isCommitted()) {
          ProblemResponses.write(
              response,
              HttpServletResponse.SC_BAD_REQUEST,
              "Unreadable request body",
              "the request body could not be read");
        }
        return;
      }
      if (body.length > max) {
        refuse(response, max);
        return;
      }
      chain.doFilter(new ReadBody(request, body), response);
      return;
    }
    chain.doFilter(request, response);
  }

  /** The codec's limit on its paths, the API's everywhere else (decoded, as security matches). */
  private long limitOf(HttpServletRequest request) {
    String path = UrlPathHelper.defaultInstance.getPathWithinApplication(request);
    return path.startsWith("/codec/") ? codecLimit : limit;
  }

  private static void refuse(HttpServletResponse response, long max) throws IOException {
    ProblemResponses.write(
        response,
        HttpStatus.CONTENT_TOO_LARGE.value(),
        "Content Too Large",
        "the request body may be at most " + size(max) + " on this path");
  }

  private static String size(long bytes) {
    DataSize size = DataSize.ofBytes(bytes);
    return bytes % (1024 * 1024) == 0
        ? size.toMegabytes() + " MB"
        : bytes % 1024 == 0 ? size.toKilobytes() + " KB" : bytes + " bytes";
  }

  /** A chunked body already read (within its limit), read again from memory. */
  private static final class ReadBody extends HttpServletRequestWrapper {

    private final byte[] body;
    private final ServletInputStream in;

    ReadBody(HttpServletRequest request, byte[] body) {
      super(request);
      this.body = body;
      ByteArrayInputStream bytes = new ByteArrayInputStream(body);
      this.in =
          new ServletInputStream() {
            @Override
            public int read() {
              return bytes.read();
            }

            @Override
            public int read(byte[] buffer, int offset, int length) {
              return bytes.read(buffer, offset, length);
            }

            @Override
            public boolean isFinished() {
              return bytes.available() == 0;
            }

            @Override
            public boolean isReady() {
              return true;
            }

            @Override
            public void setReadListener(ReadListener listener) {
              throw new UnsupportedOperationException("the body is read already");
            }
          };
    }

    @Override
    public ServletInputStream getInputStream() {
      return in;
    }

    @Override
    public BufferedReader getReader() throws IOException {
      String encoding = getCharacterEncoding();
      Charset charset;
      try {
        charset = encoding == null ? StandardCharsets.UTF_8 : Charset.forName(encoding);
      } catch (IllegalArgumentException e) {
        throw new UnsupportedEncodingException(encoding); // as the container's own reader does
      }
      return new BufferedReader(new InputStreamReader(in, charset));
    }

    @Override
    public int getContentLength() {
      return body.length;
    }

    @Override
    public long getContentLengthLong() {
      return body.length;
    }
  }
}
