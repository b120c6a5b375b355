package dev.questionflow.api.web;

/**
 * A request field whose value breaks a rule that depends on configuration or on other fields (so
 * bean validation cannot state it): a 400 problem shaped like a validation failure's.
 */
public class InvalidFieldException extends RuntimeException {

  private final String field;

  public InvalidFieldException(String field, String message) {
    super(message);
    this.field = field;
  }

  public String field() {
    return field;
  }
}
