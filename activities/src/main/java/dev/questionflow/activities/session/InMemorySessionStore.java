package dev.questionflow.activities.session;

import java.time.Clock;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;

/**
 * The zero-install default when REDIS_URL is unset: the same rules as {@link RedisSessionStore}, in
 * process memory. Not durable and not shared: a second instance has its own sessions, and
 * everything is gone when the process stops.
 */
public class InMemorySessionStore implements SessionStore {

  /** Expired sessions are swept every this many writes. */
  private static final int SWEEP_EVERY = 1024;

  private final SessionLimits limits;
  private final Clock clock;
  private final ConcurrentMap<String, Session> sessions = new ConcurrentHashMap<>();
  private final AtomicLong writes = new AtomicLong();

  public InMemorySessionStore() {
    this(SessionLimits.DEFAULT, Clock.systemUTC());
  }

  public InMemorySessionStore(SessionLimits limits, Clock clock) {
    this.limits = limits;
    this.clock = clock;
  }

  /** A line member: its predecessor when it joined and, once finished, who was behind it. */
  private static final class Member {
    final String predecessor;
    final Instant joinedAt;
    boolean finished;
    String next;

    Member(String predecessor, Instant joinedAt) {
      this.predecessor = predecessor;
      this.joinedAt = joinedAt;
    }
  }

  private static final class Session {
    final List<String> line = new ArrayList<>();
    final Map<String, Member> members = new HashMap<>();
    final Deque<Turn> history = new ArrayDeque<>();
    volatile Instant expiresAt;
  }

  @Override
  public String join(String sessionId, String workflowId) {
    return write(
        sessionId,
        s -> {
          Instant now = clock.instant();
          Member known = s.members.get(workflowId);
          if (known != null) {
            return known.predecessor;
          }
          Instant abandonedBefore = now.minus(limits.ttl());
          // drop abandoned questions at the head of the line (joined more than ttl ago and never
          // finished)
          while (!s.line.isEmpty()) {
            Member head = s.members.get(s.line.get(0));
            if (head != null && !head.joinedAt.isBefore(abandonedBefore)) {
              break;
            }
            s.members.remove(s.line.remove(0));
          }
          // forget finished members whose retry window is over
          s.members.values().removeIf(m -> m.finished && m.joinedAt.isBefore(abandonedBefore));
          String predecessor = s.line.isEmpty() ? null : s.line.get(s.line.size() - 1);
          s.line.add(workflowId);
          s.members.put(workflowId, new Member(predecessor, now));
          return predecessor;
        });
  }

  @Override
  public String finish(String sessionId, String workflowId, Turn turn) {
    return write(
        sessionId,
        s -> {
          Member member = s.members.get(workflowId);
          if (member != null && member.finished) {
            return member.next;
          }
          String next = null;
          int position = s.line.indexOf(workflowId);
          if (position >= 0) {
            next = position + 1 < s.line.size() ? s.line.get(position + 1) : null;
            s.line.remove(position);
          }
          if (turn != null
              && s.history.stream().noneMatch(t -> workflowId.equals(t.workflowId()))) {
            s.history.addLast(turn);
            while (s.history.size() > limits.maxTurns()) {
              s.history.removeFirst();
            }
          }
          if (member == null) {
            member = new Member(null, clock.instant());
            s.members.put(workflowId, member);
          }
          member.finished = true;
          member.next = next;
          return next;
        });
  }

  @Override
  public List<Turn> history(String sessionId) {
    Session s = live(sessionId);
    if (s == null) {
      return List.of();
    }
    synchronized (s) {
      return List.copyOf(s.history);
    }
  }

  @Override
  public List<String> line(String sessionId) {
    Session s = live(sessionId);
    if (s == null) {
      return List.of();
    }
    synchronized (s) {
      return List.copyOf(s.line);
    }
  }

  @Override
  public SessionLimits limits() {
    return limits;
  }

  @Override
  public String kind() {
    return "in-memory";
  }

  private Session live(String sessionId) {
    Session s = sessions.get(sessionId);
    return s == null || !clock.instant().isBefore(s.expiresAt) ? null : s;
  }

  /**
   * Runs the change atomically on the session (a fresh one when absent or expired) and refreshes
   * its expiry.
   */
  private String write(String sessionId, Function<Session, String> change) {
    if (writes.incrementAndGet() % SWEEP_EVERY == 0) {
      Instant now = clock.instant();
      sessions.values().removeIf(s -> !now.isBefore(s.expiresAt));
    }
    String[] result = new String[1];
    sessions.compute(
        sessionId,
        (id, s) -> {
          Instant now = clock.instant();
          Session session = s == null || !now.isBefore(s.expiresAt) ? new Session() : s;
          synchronized (session) {
            result[0] = change.apply(session);
            session.expiresAt = now.plus(limits.ttl());
          }
          return session;
        });
    return result[0];
  }
}
