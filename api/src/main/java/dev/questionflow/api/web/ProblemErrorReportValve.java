package dev.questionflow.api.web;

import dev.questionflow.api.security.ProblemResponses;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.catalina.Host;
import org.apache.catalina.Valve;
import org.apache.catalina.connector.Request;
import org.apache.catalina.connector.Response;
import org.apache.catalina.core.StandardHost;
import org.apache.catalina.valves.ErrorReportValve;
import org.apache.coyote.ActionCode;
import org.springframework.boot.tomcat.servlet.TomcatServletWebServerFactory;
import org.springframework.boot.web.server.WebServerFactoryCustomizer;
import org.springframework.core.Ordered;
import org.springframework.http.HttpStatus;
import org.springframework.stereotype.Component;

/**
 * Tomcat's own error report as problem+json. Tomcat answers some requests before any filter or
 * servlet runs (a request line with raw {@code {}}, {@code %00} or a space in the path, a header
 * too large), and its default valve writes an HTML page for them. This one writes the same problem
 * shape as every other refusal; nothing of the request or the exception is echoed.
 *
 * <p>It replaces the host's error report valve (Tomcat offers no other hook for errors raised
 * before the context is mapped). It extends Tomcat's for {@code invoke} (a committed or async
 * response is left alone); {@code report} repeats the first checks of Tomcat's own (status at least
 * 400, nothing written yet, not reported before, I/O still allowed), since Tomcat's goes on to
 * write HTML after them.
 */
public class ProblemErrorReportValve extends ErrorReportValve {

  @Override
  protected void report(Request request, Response response, Throwable throwable) {
    int status = response.getStatus();
    if (status < 400 || response.getContentWritten() > 0 || !response.setErrorReported()) {
      return;
    }
    AtomicBoolean ioAllowed = new AtomicBoolean(false);
    response.getCoyoteResponse().action(ActionCode.IS_IO_ALLOWED, ioAllowed);
    if (!ioAllowed.get()) {
      return;
    }
    String detail =
        status < 500
            ? "the server refused this request before reading it: check the request line and headers"
            : "the service could not handle this request";
    if (status == HttpServletResponse.SC_HTTP_VERSION_NOT_SUPPORTED) {
      // Tomcat's answer to "HTTP/9.9": the client's mistake, and a 5xx invites it to retry
      status = HttpServletResponse.SC_BAD_REQUEST;
      detail = "this server speaks HTTP/1.1 (and HTTP/1.0): the request names another version";
    }
    HttpStatus resolved = HttpStatus.resolve(status);
    try {
      response.resetBuffer();
      ProblemResponses.write(
          response, status, resolved == null ? "Error" : resolved.getReasonPhrase(), detail);
      response.finishResponse();
    } catch (IOException | IllegalStateException e) {
      // the connection is gone or the response already started: nothing more can be said
    }
  }

  /** Puts the valve in place of the error report valve Spring Boot and Tomcat install. */
  @Component
  static class Installer
      implements WebServerFactoryCustomizer<TomcatServletWebServerFactory>, Ordered {

    @Override
    public void customize(TomcatServletWebServerFactory factory) {
      factory.addContextCustomizers(
          context -> {
            if (!(context.getParent() instanceof Host host)) {
              return;
            }
            for (Valve valve : host.getPipeline().getValves()) {
              if (valve instanceof ErrorReportValve
                  && !(valve instanceof ProblemErrorReportValve)) {
                host.getPipeline().removeValve(valve);
              }
            }
            host.getPipeline().addValve(new ProblemErrorReportValve());
            if (host instanceof StandardHost standard) {
              // the host adds a valve of this class at start unless it finds one in its pipeline
              standard.setErrorReportValveClass(ProblemErrorReportValve.class.getName());
            }
          });
    }

    @Override
    public int getOrder() {
      // after Spring Boot's customizer, which adds Tomcat's valve in a context customizer of its
      // own
      return Ordered.LOWEST_PRECEDENCE;
    }
  }
}
