package dev.questionflow.api.web;

import io.swagger.v3.oas.annotations.Hidden;
import jakarta.servlet.RequestDispatcher;
import jakarta.servlet.http.HttpServletRequest;
import org.springframework.boot.webmvc.error.ErrorController;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.http.ProblemDetail;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RestController;

/**
 * What the servlet container's error dispatch answers (a request refused before Spring MVC: the
 * firewall's 400 for an encoded slash or a null byte in the path, an unknown method, an exception
 * in a filter): problem+json like every other refusal, in place of Spring Boot's own error body.
 * The status is kept; nothing of the exception reaches the caller. Asked for directly, {@code
 * /error} is a 404: a client must not get a server error for it.
 */
@Hidden // the container's error dispatch, no endpoint of the API
@RestController
class ProblemErrorController implements ErrorController {

  @RequestMapping("/error")
  ResponseEntity<ProblemDetail> error(HttpServletRequest request) {
    Object code = request.getAttribute(RequestDispatcher.ERROR_STATUS_CODE);
    if (code == null) {
      // asked for directly, not an error dispatch: there is nothing here
      return problem(HttpStatus.NOT_FOUND, "no such resource");
    }
    HttpStatus resolved = code instanceof Integer value ? HttpStatus.resolve(value) : null;
    HttpStatus status = resolved == null ? HttpStatus.INTERNAL_SERVER_ERROR : resolved;
    return problem(
        status,
        status.is4xxClientError()
            ? "the request was refused before it reached an endpoint: check its method and path"
            : "the service could not handle this request");
  }

  private static ResponseEntity<ProblemDetail> problem(HttpStatus status, String detail) {
    ProblemDetail problem = ProblemDetail.forStatusAndDetail(status, detail);
    problem.setTitle(status.getReasonPhrase());
    return ResponseEntity.status(status)
        .contentType(MediaType.APPLICATION_PROBLEM_JSON)
        .body(problem);
  }
}
