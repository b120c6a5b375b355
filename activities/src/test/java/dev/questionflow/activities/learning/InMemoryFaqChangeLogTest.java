package dev.questionflow.activities.learning;

import org.junit.jupiter.api.BeforeEach;

class InMemoryFaqChangeLogTest extends FaqChangeLogContract {

  private InMemoryFaqChangeLog log;

  @BeforeEach
  void create() {
    log = new InMemoryFaqChangeLog();
  }

  @Override
  FaqChangeLog log() {
    return log;
  }
}
