package dev.questionflow.api.web;

import dev.questionflow.activities.learning.ChangeRejected;
import dev.questionflow.api.question.NotFoundException;
import jakarta.validation.ConstraintViolationException;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.apache.tomcat.util.http.InvalidParameterException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.http.HttpStatusCode;
import org.springframework.http.ProblemDetail;
import org.springframework.http.ResponseEntity;
import org.springframework.http.converter.HttpMessageNotReadableException;
import org.springframework.security.access.AccessDeniedException;
import org.springframework.web.bind.MethodArgumentNotValidException;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.RestControllerAdvice;
import org.springframework.web.context.request.WebRequest;
import org.springframework.web.method.annotation.HandlerMethodValidationException;
import org.springframework.web.method.annotation.MethodArgumentTypeMismatchException;
import org.springframework.web.servlet.mvc.method.annotation.ResponseEntityExceptionHandler;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.exc.MismatchedInputException;

/**
 * RFC 9457 problem details for every error, naming what was wrong. No stack trace or exception text
 * from inside reaches a caller.
 */
@RestControllerAdvice
class ApiExceptionHandler extends ResponseEntityExceptionHandler {

  private static final Logger log = LoggerFactory.getLogger(ApiExceptionHandler.class);

  @Override
  protected ResponseEntity<Object> handleMethodArgumentNotValid(
      MethodArgumentNotValidException ex,
      HttpHeaders headers,
      HttpStatusCode status,
      WebRequest request) {
    List<Map<String, String>> errors =
        ex.getBindingResult().getFieldErrors().stream()
            .map(
                e ->
                    Map.of("field", e.getField(), "message", String.valueOf(e.getDefaultMessage())))
            .toList();
    String detail =
        errors.stream()
            .map(e -> e.get("field") + ": " + e.get("message"))
            .sorted()
            .reduce((a, b) -> a + "; " + b)
            .orElse("invalid request");
    ProblemDetail problem = ProblemDetail.forStatusAndDetail(HttpStatus.BAD_REQUEST, detail);
    problem.setTitle("Invalid request");
    problem.setProperty("errors", errors);
    return ResponseEntity.badRequest().body(problem);
  }

  @Override
  protected ResponseEntity<Object> handleHttpMessageNotReadable(
      HttpMessageNotReadableException ex,
      HttpHeaders headers,
      HttpStatusCode status,
      WebRequest request) {
    ProblemDetail problem = ProblemDetail.forStatusAndDetail(HttpStatus.BAD_REQUEST, describe(ex));
    problem.setTitle("Unreadable request body");
    return ResponseEntity.badRequest().body(problem);
  }

  /** Names the field and the problem without echoing parser internals or class names. */
  static String describe(HttpMessageNotReadableException ex) {
    Throwable cause = ex.getMostSpecificCause();
    if (!(cause instanceof JacksonException jackson)) {
      return "the request body is missing or is not valid JSON";
    }
    String path =
        jackson.getPath().stream()
            .map(
                ref ->
                    ref.getPropertyName() != null
                        ? ref.getPropertyName()
                        : "[" + ref.getIndex() + "]")
            .reduce((a, b) -> a + "." + b)
            .orElse(null);
    if (path == null) {
      return "malformed JSON: " + firstLine(jackson.getOriginalMessage());
    }
    if (cause instanceof MismatchedInputException mismatch && mismatch.getTargetType() != null) {
      Class<?> target = mismatch.getTargetType();
      if (target.isEnum()) {
        return "field '" + path + "' must be one of " + Arrays.toString(target.getEnumConstants());
      }
      return "field '" + path + "' must be " + describeType(target);
    }
    return "field '" + path + "': " + firstLine(jackson.getOriginalMessage());
  }

  private static String describeType(Class<?> type) {
    if (type == String.class) {
      return "a string";
    }
    if (Number.class.isAssignableFrom(type) || (type.isPrimitive() && type != boolean.class)) {
      return "a number";
    }
    if (type == Boolean.class || type == boolean.class) {
      return "true or false";
    }
    return "a JSON object";
  }

  private static String firstLine(String message) {
    String line = message == null ? "" : message.split("\n", 2)[0];
    int source = line.indexOf(" (start marker at");
    if (source > 0) {
      line = line.substring(0, source);
    }
    source = line.indexOf(" at [Source");
    if (source > 0) {
      line = line.substring(0, source);
    }
    return line.length() > 200 ? line.substring(0, 200) + "..." : line;
  }

  @ExceptionHandler(NotFoundException.class)
  ProblemDetail notFound(NotFoundException ex) {
    ProblemDetail problem = ProblemDetail.forStatusAndDetail(HttpStatus.NOT_FOUND, ex.getMessage());
    problem.setTitle("Not found");
    return problem;
  }

  /**
   * A refusal by a controller's own rule, or by method security (@PreAuthorize) on an authenticated
   * caller.
   */
  @ExceptionHandler({ForbiddenException.class, AccessDeniedException.class})
  ProblemDetail forbidden(RuntimeException ex) {
    ProblemDetail problem =
        ProblemDetail.forStatusAndDetail(
            HttpStatus.FORBIDDEN,
            ex instanceof ForbiddenException
                ? ex.getMessage()
                : "your credentials do not allow this");
    problem.setTitle("Forbidden");
    return problem;
  }

  /** A refused FAQ pack change: nothing was changed. */
  @ExceptionHandler(ChangeRejected.class)
  ProblemDetail packChangeRejected(ChangeRejected ex) {
    HttpStatus status =
        switch (ex.why()) {
          case INVALID -> HttpStatus.BAD_REQUEST;
          case NOT_FOUND -> HttpStatus.NOT_FOUND;
          case CONFLICT -> HttpStatus.CONFLICT;
          case UNSAFE -> HttpStatus.UNPROCESSABLE_CONTENT;
        };
    ProblemDetail problem = ProblemDetail.forStatusAndDetail(status, ex.getMessage());
    problem.setTitle(
        switch (ex.why()) {
          case INVALID -> "Invalid pack change";
          case NOT_FOUND -> "Not found";
          case CONFLICT -> "Conflict";
          case UNSAFE -> "Answer refused";
        });
    return problem;
  }

  @ExceptionHandler(InvalidFieldException.class)
  ProblemDetail invalidField(InvalidFieldException ex) {
    ProblemDetail problem =
        ProblemDetail.forStatusAndDetail(
            HttpStatus.BAD_REQUEST, ex.field() + ": " + ex.getMessage());
    problem.setTitle("Invalid request");
    problem.setProperty("errors", List.of(Map.of("field", ex.field(), "message", ex.getMessage())));
    return problem;
  }

  @ExceptionHandler(ConflictException.class)
  ProblemDetail conflict(ConflictException ex) {
    ProblemDetail problem = ProblemDetail.forStatusAndDetail(HttpStatus.CONFLICT, ex.getMessage());
    problem.setTitle("Conflict");
    return problem;
  }

  @ExceptionHandler({
    ConstraintViolationException.class,
    MethodArgumentTypeMismatchException.class,
    InvalidParameterException.class
  })
  ProblemDetail badParameter(Exception ex) {
    String detail;
    if (ex instanceof MethodArgumentTypeMismatchException mismatch) {
      detail = "parameter '" + mismatch.getName() + "' has an invalid value";
    } else if (ex instanceof InvalidParameterException) {
      // Tomcat's, for a query string that is no valid percent-encoding; its message quotes the
      // parameter half-decoded, so it is not repeated
      detail = "the query string is not valid percent-encoded UTF-8";
    } else {
      detail = ex.getMessage();
    }
    ProblemDetail problem = ProblemDetail.forStatusAndDetail(HttpStatus.BAD_REQUEST, detail);
    problem.setTitle("Invalid parameter");
    return problem;
  }

  @Override
  protected ResponseEntity<Object> handleHandlerMethodValidationException(
      HandlerMethodValidationException ex,
      HttpHeaders headers,
      HttpStatusCode status,
      WebRequest request) {
    String detail =
        ex.getParameterValidationResults().stream()
            .flatMap(
                r ->
                    r.getResolvableErrors().stream()
                        .map(
                            e ->
                                r.getMethodParameter().getParameterName()
                                    + ": "
                                    + e.getDefaultMessage()))
            .reduce((a, b) -> a + "; " + b)
            .orElse("invalid parameter");
    ProblemDetail problem = ProblemDetail.forStatusAndDetail(HttpStatus.BAD_REQUEST, detail);
    problem.setTitle("Invalid parameter");
    return ResponseEntity.badRequest().body(problem);
  }

  @ExceptionHandler(Exception.class)
  ProblemDetail unexpected(Exception ex) {
    log.error("unexpected error", ex);
    ProblemDetail problem =
        ProblemDetail.forStatusAndDetail(
            HttpStatus.SERVICE_UNAVAILABLE,
            "the service could not handle this request now; please retry");
    problem.setTitle("Service unavailable");
    return problem;
  }
}
