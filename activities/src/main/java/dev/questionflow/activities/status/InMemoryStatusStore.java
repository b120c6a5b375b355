package dev.questionflow.activities.status;

import com.google.common.cache.Cache;
import com.google.common.cache.CacheBuilder;
import java.time.Clock;
import java.time.Duration;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * Published statuses in process memory, for an instance without Redis (trial mode, bin/run): the
 * worker and the streams of one process share them, notices go to the listener on a thread of its
 * own (as Redis's would arrive), and the latest {@code capacity} questions are kept for {@code
 * keyTtl}.
 */
public final class InMemoryStatusStore implements StatusStore {

  private final Cache<String, PublishedStatus> latest;
  private final Clock clock;
  private final ExecutorService notices =
      Executors.newSingleThreadExecutor(
          r -> {
            Thread thread = new Thread(r, "status-notices");
            thread.setDaemon(true);
            return thread;
          });
  private volatile Listener listener;

  public InMemoryStatusStore(int capacity, Duration keyTtl, Clock clock) {
    this.latest = CacheBuilder.newBuilder().maximumSize(capacity).expireAfterWrite(keyTtl).build();
    this.clock = clock;
  }

  @Override
  public boolean offer(PublishedStatus status) {
    boolean kept = keep(status, false);
    Listener heard = listener;
    if (kept && heard != null) {
      notices.execute(() -> heard.status(status.workflowId(), status.version(), () -> status));
    }
    return kept;
  }

  @Override
  public void offerFirst(PublishedStatus status) {
    keep(status, true);
  }

  /** Keeps a strictly newer version (or, {@code onlyFirst}, a status where there is none). */
  private boolean keep(PublishedStatus status, boolean onlyFirst) {
    boolean[] kept = {false};
    latest
        .asMap()
        .compute(
            status.workflowId(),
            (id, current) -> {
              if (current == null || !onlyFirst && current.version() < status.version()) {
                kept[0] = true;
                return status;
              }
              return current;
            });
    return kept[0];
  }

  @Override
  public PublishedStatus latest(String workflowId) {
    return latest.getIfPresent(workflowId);
  }

  @Override
  public void laneChanged(String lane) {
    Listener heard = listener;
    if (heard != null) {
      long at = clock.millis();
      notices.execute(() -> heard.lane(lane, at));
    }
  }

  @Override
  public void listen(Listener listener) {
    this.listener = listener;
    notices.execute(listener::subscribed);
  }

  @Override
  public boolean live() {
    return listener != null;
  }

  @Override
  public String kind() {
    return "memory";
  }
}
