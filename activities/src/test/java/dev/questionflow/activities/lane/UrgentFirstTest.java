package dev.questionflow.activities.lane;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class UrgentFirstTest {

  private final UrgentFirst turns = new UrgentFirst();
  private final List<String> order = new CopyOnWriteArrayList<>();

  private Thread caller(String name, int priorityKey) {
    Thread thread =
        new Thread(
            () -> {
              try {
                turns.enter(priorityKey);
                order.add(name);
                turns.leave();
              } catch (InterruptedException e) {
                order.add(name + " interrupted");
              }
            });
    thread.start();
    return thread;
  }

  @Test
  void theMostUrgentGoesFirstThenArrivalOrder() throws Exception {
    turns.enter(3); // a call holds the turn while the others arrive
    int arrived = 0;
    for (String[] call :
        new String[][] {
          {"standard-1", "3"}, {"standard-2", "3"}, {"vip", "1"}, {"complaint", "2"}
        }) {
      caller(call[0], Integer.parseInt(call[1]));
      int expected = ++arrived;
      await().atMost(Duration.ofSeconds(5)).until(() -> turns.waiting() == expected);
    }
    turns.leave();

    await().atMost(Duration.ofSeconds(5)).until(() -> order.size() == 4);
    assertThat(order).containsExactly("vip", "complaint", "standard-1", "standard-2");
  }

  /**
   * A waiter's heartbeat (a blocking call to Temporal) must not hold up the turn: the turn is given
   * back, and taken by the next, while a waiter is still inside its heartbeat.
   */
  @Test
  void aWaitersHeartbeatDoesNotHoldUpTheTurn() throws Exception {
    turns.enter(3);
    CountDownLatch inHeartbeat = new CountDownLatch(1);
    CountDownLatch heartbeatAnswered = new CountDownLatch(1);
    Thread slow =
        new Thread(
            () -> {
              try {
                turns.enter(
                    3,
                    Long.MAX_VALUE,
                    () -> {
                      inHeartbeat.countDown();
                      try {
                        heartbeatAnswered.await();
                      } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                      }
                    });
                order.add("slow");
                turns.leave();
              } catch (InterruptedException e) {
                order.add("slow interrupted");
              }
            });
    slow.start();
    assertThat(inHeartbeat.await(5, TimeUnit.SECONDS)).as("the waiter heartbeats").isTrue();

    // while its heartbeat blocks: the turn is given back and a VIP arriving now takes it
    CompletableFuture.runAsync(turns::leave).get(5, TimeUnit.SECONDS);
    caller("vip", 1);
    await().atMost(Duration.ofSeconds(5)).until(() -> order.contains("vip"));

    heartbeatAnswered.countDown();
    await().atMost(Duration.ofSeconds(5)).until(() -> order.contains("slow"));
    assertThat(order).containsExactly("vip", "slow");
  }

  @Test
  void anInterruptedWaiterLeavesTheLineAndTheNextGoes() throws Exception {
    turns.enter(3);
    Thread vip = caller("vip", 1);
    await().atMost(Duration.ofSeconds(5)).until(() -> turns.waiting() == 1);
    Thread standard = caller("standard", 3);
    await().atMost(Duration.ofSeconds(5)).until(() -> turns.waiting() == 2);

    vip.interrupt();
    await().atMost(Duration.ofSeconds(5)).until(() -> turns.waiting() == 1);
    turns.leave();

    standard.join(5000);
    assertThat(order).containsExactly("vip interrupted", "standard");
  }
}
