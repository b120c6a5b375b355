package dev.questionflow.activities.status;

import java.util.function.Supplier;

/**
 * The latest published status of each question and the notices of its changes: Redis (a versioned
 * key per question beside a pub/sub channel, {@link RedisStatusStore}) or process memory for one
 * instance ({@link InMemoryStatusStore}). Event streams and status reads of every instance take a
 * question's status from here; Temporal is read only when the store has none.
 */
public interface StatusStore extends AutoCloseable {

  /**
   * Keeps {@code status} as the question's latest unless a newer or equal version is there already
   * (an older publication never replaces a newer one), and notifies the listeners of every instance
   * when it was kept.
   *
   * @return whether it was kept
   */
  boolean offer(PublishedStatus status);

  /**
   * Keeps {@code status} only when the question has none yet, without a notice: the API's RECEIVED
   * at submit, so that the first read finds a status.
   */
  void offerFirst(PublishedStatus status);

  /** The question's latest status, or null when there is none (expired, or never published). */
  PublishedStatus latest(String workflowId);

  /**
   * A model lane's line changed (a question entered or left it, or its call started): every
   * instance refreshes the positions of the waiting questions it streams, once per notice and lane
   * rather than once per question.
   */
  void laneChanged(String lane);

  /** Starts delivering notices of every instance to {@code listener} (one listener). */
  void listen(Listener listener);

  /**
   * Whether notices arrive now (subscribed and connected); while not, streams poll the status as
   * they did before notices existed.
   */
  boolean live();

  /** "redis" or "memory" (logs). */
  String kind();

  /** Stops listening. */
  @Override
  default void close() {}

  /** What an instance hears. Called on the store's own thread: must not block. */
  interface Listener {

    /**
     * A question's status changed to version {@code version}; {@code opened} unseals and reads it
     * (only worth it for a question this instance streams).
     */
    void status(String workflowId, long version, Supplier<PublishedStatus> opened);

    /** A model lane's line changed at {@code atMillis} (the notifier's clock). */
    void lane(String lane, long atMillis);

    /**
     * (Re)subscribed: notices sent while not subscribed are lost, so what the instance streams is
     * read again.
     */
    void subscribed();
  }
}
