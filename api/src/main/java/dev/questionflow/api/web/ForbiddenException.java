package dev.questionflow.api.web;

/** The caller is known but may not do this (403 problem+json); nothing was changed. */
public class ForbiddenException extends RuntimeException {

  public ForbiddenException(String message) {
    super(message);
  }
}
