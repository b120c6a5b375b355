package dev.questionflow.api.question;

import dev.questionflow.workflows.question.AnswerLevel;
import dev.questionflow.workflows.question.QuestionStatus;
import dev.questionflow.workflows.question.Stage;
import java.io.IOException;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.LongSupplier;
import org.springframework.http.MediaType;
import org.springframework.web.servlet.mvc.method.annotation.SseEmitter;
import tools.jackson.databind.json.JsonMapper;

/**
 * The events a status stream sends: a changed status (its JSON written once for all the question's
 * streams), the answer with it, a keep-alive comment when the stream was quiet, and whether a
 * status ends the stream. Apart from {@link StatusStreams} because what goes on the wire does not
 * depend on how a stream learns of a change (a poll or the feed).
 */
final class StatusEvents {

  /** The app's JSON mapper (the same output as the status endpoint's). */
  private final JsonMapper json;

  /**
   * Statuses as JSON, the last few: a change goes to every stream of its question, written once.
   */
  private final Map<QuestionStatus, String> written =
      java.util.Collections.synchronizedMap(
          new LinkedHashMap<>(64, 0.75f, true) {
            @Override
            protected boolean removeEldestEntry(Map.Entry<QuestionStatus, String> eldest) {
              return size() > 1024;
            }
          });

  private final Duration heartbeat;
  private final LongSupplier nanoTime;

  /**
   * @param nanoTime the clock of heartbeats ({@link System#nanoTime} outside tests)
   */
  StatusEvents(JsonMapper json, Duration heartbeat, LongSupplier nanoTime) {
    this.json = json;
    this.heartbeat = heartbeat;
    this.nanoTime = nanoTime;
  }

  /**
   * A comment line when nothing was sent for a heartbeat interval; false when the client is gone.
   */
  boolean heartbeatIfQuiet(SseEmitter emitter, AtomicLong lastSent) {
    long now = nanoTime.getAsLong();
    if (now - lastSent.get() < heartbeat.toNanos()) {
      return true;
    }
    try {
      emitter.send(SseEmitter.event().comment("keep-alive"));
      lastSent.set(now);
      return true;
    } catch (IOException e) {
      emitter.completeWithError(e);
      return false;
    }
  }

  /**
   * Sends the status if it changed; returns true once the stream is finished.
   *
   * @param publishedAtMillis when a published change was published (a comment line of the event:
   *     EventSource clients ignore it, a client measuring delays reads it), null for a read
   */
  boolean publish(
      SseEmitter emitter,
      AtomicReference<QuestionStatus> last,
      AtomicLong lastSent,
      QuestionStatus status,
      Long publishedAtMillis) {
    if (Objects.equals(last.getAndSet(status), status)) {
      return false;
    }
    lastSent.set(nanoTime.getAsLong());
    try {
      SseEmitter.SseEventBuilder event = SseEmitter.event();
      if (publishedAtMillis != null) {
        event.comment("published " + publishedAtMillis);
      }
      // a String is written as it is (the JSON is the one the status endpoint writes)
      emitter.send(
          event
              .name("status")
              .data(
                  written.computeIfAbsent(status, json::writeValueAsString),
                  MediaType.APPLICATION_JSON));
      boolean answered =
          status.stage() == Stage.ANSWERED
              && status.answer() != null
              && status.answer().level() != AnswerLevel.TICKET;
      if (answered && (status.upgrading() || isFinal(status))) {
        emitter.send(
            SseEmitter.event().name("answer").data(status.answer(), MediaType.APPLICATION_JSON));
      }
      if (isFinal(status)) {
        emitter.complete();
        return true;
      }
      if (status.stage() == Stage.FAILED) {
        emitter.complete();
        return true;
      }
      return false;
    } catch (IOException e) {
      emitter.completeWithError(e); // the client went away
      return true;
    }
  }

  /**
   * TICKETED is not final: a person's reply may still come and end the stream; nor is a quick
   * answer while its upgrade is expected.
   */
  static boolean isFinal(QuestionStatus status) {
    return status.stage() == Stage.ANSWERED
        && status.answer() != null
        && status.answer().level() != AnswerLevel.TICKET
        && !status.upgrading();
  }
}
