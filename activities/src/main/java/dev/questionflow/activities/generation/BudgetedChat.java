package dev.questionflow.activities.generation;

import dev.langchain4j.data.message.ChatMessage;
import dev.langchain4j.model.chat.ChatModel;
import dev.langchain4j.model.chat.response.ChatResponse;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.FutureTask;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * A model call bounded by the chain budget counted from its own start: a call that runs past it is
 * abandoned (its thread interrupted) and {@link OverBudget} thrown. The client's own timeout cannot
 * say this: it is one per client, while the budget is the question's.
 */
final class BudgetedChat {

  /**
   * The threads of calls with a budget shorter than the client's timeout (the caller waits for them
   * at most the budget); the calls in flight are bounded by the lanes' caps.
   */
  private static final ExecutorService CALLS_WITH_BUDGET =
      Executors.newCachedThreadPool(
          r -> {
            Thread t = new Thread(r, "model-call-with-budget");
            t.setDaemon(true);
            return t;
          });

  private BudgetedChat() {}

  /** The call ran out of its budget before the model answered. */
  static final class OverBudget extends RuntimeException {
    OverBudget() {
      super("over the chain budget", null, false, false);
    }
  }

  /**
   * The model's answer, or {@link OverBudget} once {@code budgetMillis} (0: none) passed. Only a
   * budget shorter than the client's own {@code timeout} needs a thread of its own.
   */
  static ChatResponse chat(
      ChatModel client, List<ChatMessage> messages, Duration timeout, long budgetMillis) {
    if (budgetMillis <= 0 || budgetMillis >= timeout.toMillis()) {
      return client.chat(messages);
    }
    FutureTask<ChatResponse> call = new FutureTask<>(() -> client.chat(messages));
    CALLS_WITH_BUDGET.execute(call);
    try {
      return call.get(budgetMillis, TimeUnit.MILLISECONDS);
    } catch (TimeoutException e) {
      call.cancel(true);
      throw new OverBudget();
    } catch (InterruptedException e) {
      call.cancel(true);
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while the model answered", e);
    } catch (ExecutionException e) {
      throw e.getCause() instanceof RuntimeException runtime
          ? runtime
          : new IllegalStateException(e.getCause());
    }
  }
}
