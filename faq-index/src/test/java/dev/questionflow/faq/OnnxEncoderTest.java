package dev.questionflow.faq;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class OnnxEncoderTest {

  /**
   * An app that shut down while its workers still matched questions crashed in libonnxruntime: the
   * session's native memory was freed under a running inference. Closing now waits for the runs in
   * flight, and a later use fails in Java.
   */
  @Test
  void closingWhileEmbeddingRunsWaitsForThemAndLaterUsesFailInJava() throws Exception {
    Embedder encoder = Embedder.of(FaqEmbeddingModel.ALL_MINILM_L6_V2);
    ExecutorService workers = Executors.newFixedThreadPool(4);
    CountDownLatch running = new CountDownLatch(4);
    AtomicInteger embedded = new AtomicInteger();
    List<Future<?>> loops = new ArrayList<>();
    for (int w = 0; w < 4; w++) {
      loops.add(
          workers.submit(
              () -> {
                running.countDown();
                try {
                  while (true) {
                    assertThat(encoder.embed("my card has not arrived yet, where is it"))
                        .hasSize(384);
                    embedded.incrementAndGet();
                  }
                } catch (IllegalStateException closed) {
                  assertThat(closed).hasMessageContaining("closed");
                }
                return null;
              }));
    }
    running.await();
    while (embedded.get() < 20) {
      Thread.onSpinWait();
    }
    encoder.close();
    for (Future<?> loop : loops) {
      loop.get(30, TimeUnit.SECONDS); // each ended on the closed encoder, none crashed the JVM
    }
    workers.shutdown();
    assertThatThrownBy(() -> encoder.embed("anything")).isInstanceOf(IllegalStateException.class);
    encoder.close(); // a second close is harmless
  }
}
