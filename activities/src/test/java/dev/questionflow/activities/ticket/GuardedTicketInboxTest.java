package dev.questionflow.activities.ticket;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.questionflow.activities.resilience.BreakerSettings;
import dev.questionflow.activities.resilience.Dependency;
import dev.questionflow.activities.resilience.DependencyBreakers;
import dev.questionflow.activities.resilience.UpstreamErrors;
import io.github.resilience4j.circuitbreaker.CircuitBreaker;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class GuardedTicketInboxTest {

  /** An inbox whose store is down: every call fails, and calls are counted. */
  static final class DownInbox implements TicketInbox {
    final AtomicInteger calls = new AtomicInteger();

    private <T> T fail() {
      calls.incrementAndGet();
      throw new IllegalStateException("Connection refused: redis");
    }

    @Override
    public Ticket createIfAbsent(Ticket ticket) {
      return fail();
    }

    @Override
    public Optional<Ticket> find(String ticketId) {
      return fail();
    }

    @Override
    public void update(Ticket ticket) {
      fail();
    }

    @Override
    public List<Ticket> list(Ticket.Status status, int limit) {
      return fail();
    }

    @Override
    public String kind() {
      return "redis";
    }
  }

  @Test
  void afterTheBreakerOpensCallsFailAtOnceWithoutTouchingTheStore() {
    SimpleMeterRegistry meters = new SimpleMeterRegistry();
    DependencyBreakers breakers =
        new DependencyBreakers(BreakerSettings.SPEC.withMinimumCalls(4), Map.of(), meters);
    UpstreamErrors errors = new UpstreamErrors(meters);
    DownInbox store = new DownInbox();
    GuardedTicketInbox inbox = new GuardedTicketInbox(store, breakers, errors);

    for (int i = 0; i < 4; i++) {
      assertThatThrownBy(() -> inbox.find("T-1")).hasMessageContaining("Connection refused");
    }
    assertThat(breakers.state(Dependency.REDIS)).isEqualTo(CircuitBreaker.State.OPEN);
    assertThatThrownBy(() -> inbox.list(Ticket.Status.OPEN, 10))
        .hasMessageContaining("circuit is open");

    assertThat(store.calls.get()).isEqualTo(4);
    assertThat(errors.count(Dependency.REDIS, UpstreamErrors.Kind.CIRCUIT_OPEN)).isEqualTo(1.0);
    assertThat(breakers.state(Dependency.HELPDESK)).isEqualTo(CircuitBreaker.State.CLOSED);
  }
}
