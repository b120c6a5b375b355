package dev.questionflow.activities.fakemodel;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import dev.questionflow.activities.generation.PromptFences;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import java.util.function.IntPredicate;
import java.util.function.LongSupplier;

/**
 * A local OpenAI-compatible chat-completions server for tests: real HTTP on a free loopback port,
 * scripted replies, and a record of every request it received, so tests drive the real langchain4j
 * client code.
 *
 * <p>Fault injection is composable: a script is any {@code Function<Call, Reply>}. {@link Reply}
 * has factories for every fault shape (HTTP errors with OpenAI-style bodies, 429 with {@code
 * Retry-After}, malformed 200s, hangs) and {@link Faults} combines a seeded latency distribution
 * ({@link Latency}), seeded error rates, a sliding-window quota and a run-time outage switch:
 *
 * <pre>{@code
 * Faults faults = Faults.seeded(42)
 *     .latency(Latency.logNormal(Duration.ofMillis(40), Duration.ofMillis(400)))
 *     .errors(0.2, 500)
 *     .fault(0.01, Reply.notJson())
 *     .quota(10, Duration.ofSeconds(1));
 * fake.script(faults);          // swap at any time, also while requests are in flight
 * faults.outage(Reply.error(503)); ... faults.recover();
 * fake.statusCounts();          // {200=.., 429=.., 500=..}; fake.served() has per-call timestamps
 * }</pre>
 *
 * <p>Scripts run one at a time under a lock (so quotas and seeded draws see calls in timestamp
 * order); they must not block: express latency with {@link Reply#after(Duration)} or {@link
 * Faults#latency(Latency)}.
 *
 * <p>Run standalone with {@code java -cp ... dev.questionflow.activities.fakemodel.FakeModelServer
 * [port]} or with flags, see {@link #main(String[])}.
 */
public final class FakeModelServer implements AutoCloseable {

  /**
   * The status recorded in {@link Served} for a call that got no response at all ({@link
   * Reply#hang()}).
   */
  public static final int NO_RESPONSE = 0;

  /**
   * One chat-completions request as received. {@code userMessage} is the last user message's
   * customer text, without the prompt's fence around it; {@code body} is the request as sent.
   *
   * @param sequence 1-based order of arrival at this server since the last {@link #clearCalls()} (0
   *     when built outside the server)
   * @param receivedNanos arrival time on the server's clock ({@link #clock(LongSupplier)}, default
   *     {@link System#nanoTime()}); quotas use it
   * @param traceparent the request's W3C {@code traceparent} header, null without one
   */
  public record Call(
      String model,
      String systemPrompt,
      String userMessage,
      JsonNode body,
      long sequence,
      long receivedNanos,
      String traceparent) {
    public Call(String model, String systemPrompt, String userMessage, JsonNode body) {
      this(model, systemPrompt, userMessage, body, 0, System.nanoTime(), null);
    }
  }

  /**
   * What to answer: an HTTP status, a body, extra headers and a delay before answering.
   *
   * @param content the assistant text of a {@link Kind#COMPLETION} (may be null), else the error
   *     message
   * @param rawBody the exact body bytes for {@link Kind#ERROR} and {@link Kind#RAW}; null otherwise
   */
  public record Reply(
      int status,
      String content,
      Duration delay,
      Kind kind,
      byte[] rawBody,
      String contentType,
      Map<String, String> headers) {

    /** How the body is produced. */
    public enum Kind {
      /** A well-formed chat.completion JSON whose message content is {@link #content()}. */
      COMPLETION,
      /** An OpenAI-style {@code {"error":{...}}} JSON body. */
      ERROR,
      /** {@link #rawBody()} as is. */
      RAW,
      /**
       * Read the request, never answer; the connection drops when the server closes or releases
       * hangs.
       */
      HANG
    }

    public Reply {
      delay = delay == null ? Duration.ZERO : delay;
      headers = headers == null ? Map.of() : Map.copyOf(headers);
      contentType = contentType == null ? "application/json" : contentType;
      Objects.requireNonNull(kind, "kind");
    }

    /**
     * The original shape: 200 answers {@code content}, anything else is an error with message
     * {@code content}.
     */
    public Reply(int status, String content, Duration delay) {
      this(
          status,
          content,
          delay,
          status == 200 ? Kind.COMPLETION : Kind.ERROR,
          status == 200 ? null : errorJson(content, typeFor(status), null, null),
          null,
          null);
    }

    /** 200 with a chat completion whose assistant message is {@code content}. */
    public static Reply text(String content) {
      return new Reply(200, content, Duration.ZERO);
    }

    /** {@code status} with an OpenAI-style error body "scripted failure {status}". */
    public static Reply error(int status) {
      return new Reply(status, "scripted failure " + status, Duration.ZERO);
    }

    /** {@code status} with {@code {"error":{"message","type","param":null,"code"}}}. */
    public static Reply error(int status, String message, String type, String code) {
      return new Reply(
          status,
          message,
          Duration.ZERO,
          Kind.ERROR,
          errorJson(message, type, null, code),
          null,
          null);
    }

    /**
     * 429 as OpenAI sends it for a requests-per-minute limit, with {@code Retry-After: seconds}.
     */
    public static Reply rateLimited(long retryAfterSeconds) {
      return error(
              429,
              "Rate limit reached for requests. Please try again in " + retryAfterSeconds + "s.",
              "requests",
              "rate_limit_exceeded")
          .withHeader("Retry-After", Long.toString(retryAfterSeconds));
    }

    /** 400 "maximum context length" (token limit), code {@code context_length_exceeded}. */
    public static Reply contextLengthExceeded() {
      String message =
          "This model's maximum context length is 8192 tokens. However, your messages resulted in 9120 tokens. "
              + "Please reduce the length of the messages.";
      return new Reply(
          400,
          message,
          Duration.ZERO,
          Kind.ERROR,
          errorJson(message, "invalid_request_error", "messages", "context_length_exceeded"),
          null,
          null);
    }

    /** 400 OpenAI content policy rejection, code {@code content_policy_violation}. */
    public static Reply contentPolicyViolation() {
      return error(
          400,
          "Your request was rejected as a result of our safety system. Your prompt may contain text that is not "
              + "allowed by our safety system.",
          "invalid_request_error",
          "content_policy_violation");
    }

    /** 400 Azure-OpenAI-style content filter rejection, code {@code content_filter}. */
    public static Reply contentFiltered() {
      return error(
          400,
          "The response was filtered due to the prompt triggering Azure OpenAI's content management policy.",
          "invalid_request_error",
          "content_filter");
    }

    /** 401 invalid API key. */
    public static Reply unauthorized() {
      return error(
          401,
          "Incorrect API key provided: test-key. You can find your API key at "
              + "https://platform.openai.com/account/api-keys.",
          "invalid_request_error",
          "invalid_api_key");
    }

    /** 200 whose body is an HTML page, not JSON (a proxy's error page). */
    public static Reply notJson() {
      return raw(200, "text/html", "<html><body><h1>502 Bad Gateway</h1></body></html>");
    }

    /** 200 with a JSON completion object that lacks {@code choices}. */
    public static Reply missingChoices() {
      return raw(
          200,
          "application/json",
          "{\"id\":\"chatcmpl-fake-nochoices\",\"object\":\"chat.completion\",\"created\":1700000000,"
              + "\"model\":\"fake-model\",\"usage\":{\"prompt_tokens\":10,\"completion_tokens\":0,\"total_tokens\":10}}");
    }

    /** 200 with {@code "choices": []}. */
    public static Reply emptyChoices() {
      return raw(
          200,
          "application/json",
          "{\"id\":\"chatcmpl-fake-empty\",\"object\":\"chat.completion\",\"created\":1700000000,"
              + "\"model\":\"fake-model\",\"choices\":[]}");
    }

    /** 200 completion with {@code "content": ""}. */
    public static Reply emptyContent() {
      return text("");
    }

    /** 200 completion with {@code "content": null}. */
    public static Reply nullContent() {
      return text(null);
    }

    /**
     * 200 completion whose content is valid JSON but garbage text: replacement characters (U+FFFD),
     * control characters and random BMP characters, reproducible from {@code seed}.
     */
    public static Reply garbled(long seed) {
      SplittableRandom random = new SplittableRandom(seed);
      StringBuilder text = new StringBuilder();
      for (int i = 0; i < 64; i++) {
        int pick = random.nextInt(4);
        char c =
            switch (pick) {
              case 0 -> '\uFFFD';
              case 1 -> (char) random.nextInt(0x20);
              case 2 -> (char) random.nextInt(0x20, 0xD800);
              default -> (char) random.nextInt(0xE000, 0xFFFE);
            };
        text.append(c);
      }
      return text(text.toString());
    }

    /** 200 declared as JSON whose body is {@code length} random bytes from {@code seed}. */
    public static Reply randomBytes(long seed, int length) {
      byte[] bytes = new byte[length];
      SplittableRandom random = new SplittableRandom(seed);
      for (int i = 0; i < length; i++) {
        bytes[i] = (byte) random.nextInt(256);
      }
      return raw(200, "application/json", bytes);
    }

    /** Any status with a literal body. */
    public static Reply raw(int status, String contentType, String body) {
      return raw(status, contentType, body.getBytes(StandardCharsets.UTF_8));
    }

    /** Any status with literal body bytes. */
    public static Reply raw(int status, String contentType, byte[] body) {
      return new Reply(
          status,
          new String(body, StandardCharsets.UTF_8),
          Duration.ZERO,
          Kind.RAW,
          body,
          contentType,
          null);
    }

    /**
     * Accept the request and never answer, so the client's timeout fires; see {@link
     * #releaseHangs()}.
     */
    public static Reply hang() {
      return new Reply(NO_RESPONSE, null, Duration.ZERO, Kind.HANG, null, null, null);
    }

    /** The same reply after {@code wait} (replaces any earlier delay). */
    public Reply after(Duration wait) {
      return new Reply(status, content, wait, kind, rawBody, contentType, headers);
    }

    /** The same reply with one more response header. */
    public Reply withHeader(String name, String value) {
      Map<String, String> more = new LinkedHashMap<>(headers);
      more.put(name, value);
      return new Reply(status, content, delay, kind, rawBody, contentType, more);
    }

    private static String typeFor(int status) {
      return status >= 500 ? "server_error" : "invalid_request_error";
    }
  }

  /**
   * One answered (or hung) call: what arrived, when, and what the script decided.
   *
   * @param status the HTTP status sent, or {@link #NO_RESPONSE} for a hang
   */
  public record Served(
      long sequence,
      long receivedNanos,
      Instant receivedAt,
      Call call,
      int status,
      Reply.Kind kind,
      Duration delay) {}

  /**
   * A latency distribution, sampled from a caller-provided seeded random so runs are reproducible.
   */
  @FunctionalInterface
  public interface Latency {
    Duration sample(SplittableRandom random);

    static Latency none() {
      return random -> Duration.ZERO;
    }

    static Latency fixed(Duration latency) {
      return random -> latency;
    }

    /** Uniform on [min, max] (nanosecond resolution). */
    static Latency uniform(Duration min, Duration max) {
      long lo = min.toNanos();
      long span = max.toNanos() - lo;
      if (span < 0) {
        throw new IllegalArgumentException("max < min");
      }
      return random -> Duration.ofNanos(lo + (span == 0 ? 0 : random.nextLong(span + 1)));
    }

    /**
     * Log-normal with the given median and 99th percentile (a typical LLM latency shape: most calls
     * near p50, a long tail): {@code exp(ln p50 + sigma * Z)}, {@code sigma = ln(p99/p50) /
     * 2.3263}.
     */
    static Latency logNormal(Duration p50, Duration p99) {
      double mu = Math.log(p50.toNanos());
      double sigma = Math.log((double) p99.toNanos() / p50.toNanos()) / 2.3263478740408408;
      if (sigma < 0) {
        throw new IllegalArgumentException("p99 < p50");
      }
      return random -> Duration.ofNanos(Math.round(Math.exp(mu + sigma * gaussian(random))));
    }

    /** This distribution with samples above {@code max} cut to {@code max}. */
    default Latency cappedAt(Duration max) {
      return random -> {
        Duration d = sample(random);
        return d.compareTo(max) > 0 ? max : d;
      };
    }

    /** A standard normal draw (Box-Muller, two uniform draws). */
    static double gaussian(SplittableRandom random) {
      double u1 = 1.0 - random.nextDouble(); // (0, 1]
      double u2 = random.nextDouble();
      return Math.sqrt(-2.0 * Math.log(u1)) * Math.cos(2.0 * Math.PI * u2);
    }
  }

  /**
   * A seeded fault script; a {@code Function<Call, Reply>} for {@link #script(Function)}. Per call,
   * in order:
   *
   * <ol>
   *   <li>an {@link #outage(Reply) outage}, while set, answers every call as is (no draws, no quota
   *       use);
   *   <li>the {@link #quota(int, Duration) quota}: a call is admitted when fewer than {@code
   *       permits} admitted calls arrived in the preceding {@code window}; otherwise it gets {@link
   *       Reply#rateLimited(long)} at once;
   *   <li>the {@link #tokenBucket(double, double) token bucket}, as providers meter requests: a
   *       call is admitted when the bucket holds a whole token (it refills continuously at {@code
   *       rate} per second up to {@code burst}); otherwise it gets {@link Reply#rateLimited(long)}
   *       at once;
   *   <li>every admitted call draws exactly one {@code nextDouble()} from {@code new
   *       SplittableRandom(seed)}; the faults are tried in the order added, each taking its
   *       probability off [0, 1) (so the i-th admitted call gets the first fault whose cumulative
   *       probability exceeds the i-th draw), else the base reply ({@link #otherwise(Function)}, by
   *       default a text answer);
   *   <li>the latency is then sampled from {@code new SplittableRandom(latencySeed(seed))} (one
   *       sample per admitted, non-hanging call) and added to the reply's delay.
   * </ol>
   *
   * <p>Thread-safe; configure it before or while it serves.
   */
  public static final class Faults implements Function<Call, Reply> {

    private record Fault(double probability, Function<Call, Reply> reply) {}

    private final long seed;
    private final SplittableRandom faultRandom;
    private final SplittableRandom latencyRandom;
    private final List<Fault> faults = new ArrayList<>();
    private final Deque<Long> admitted = new ArrayDeque<>();
    private Latency latency = Latency.none();
    private Function<Call, Reply> otherwise =
        call -> Reply.text("Model answer to: " + call.userMessage());
    private int permits = -1;
    private long windowNanos;
    private long retryAfterSeconds = -1;
    private double bucketRate = -1;
    private double bucketBurst;
    private double tokens;
    private long refilledAtNanos;
    private boolean bucketStarted;
    private volatile Reply outage;

    private Faults(long seed) {
      this.seed = seed;
      this.faultRandom = new SplittableRandom(seed);
      this.latencyRandom = new SplittableRandom(latencySeed(seed));
    }

    /** A script without faults yet, whose draws come from {@code seed}. */
    public static Faults seeded(long seed) {
      return new Faults(seed);
    }

    /** The seed of the latency stream for {@code seed} (so tests can reproduce the samples). */
    public static long latencySeed(long seed) {
      return seed ^ 0x9E3779B97F4A7C15L;
    }

    public long seed() {
      return seed;
    }

    /** Every admitted, answered call waits a sample of {@code latency} first. */
    public synchronized Faults latency(Latency latency) {
      this.latency = Objects.requireNonNull(latency);
      return this;
    }

    /**
     * A fraction {@code probability} of admitted calls gets {@code status} with an OpenAI-style
     * error body.
     */
    public Faults errors(double probability, int status) {
      return fault(probability, errorFor(status));
    }

    /**
     * One {@link #errors(double, int)} per entry, in the map's iteration order (use a
     * LinkedHashMap/TreeMap).
     */
    public Faults errors(Map<Integer, Double> probabilityByStatus) {
      probabilityByStatus.forEach((status, p) -> errors(p, status));
      return this;
    }

    /** A fraction {@code probability} of admitted calls gets {@code reply}. */
    public Faults fault(double probability, Reply reply) {
      return fault(probability, call -> reply);
    }

    /** A fraction {@code probability} of admitted calls gets {@code reply.apply(call)}. */
    public synchronized Faults fault(double probability, Function<Call, Reply> reply) {
      if (probability < 0 || probability > 1) {
        throw new IllegalArgumentException("probability " + probability);
      }
      double total = faults.stream().mapToDouble(Fault::probability).sum() + probability;
      if (total > 1.0 + 1e-9) {
        throw new IllegalArgumentException("fault probabilities add up to " + total + " > 1");
      }
      faults.add(new Fault(probability, reply));
      return this;
    }

    /** A fraction {@code probability} of admitted calls hangs ({@link Reply#hang()}). */
    public Faults hangs(double probability) {
      return fault(probability, Reply.hang());
    }

    /**
     * At most {@code permits} admitted calls in any sliding {@code window}; the rest get 429 with a
     * {@code Retry-After} of the whole seconds until the oldest admitted call leaves the window (at
     * least 1).
     */
    public synchronized Faults quota(int permits, Duration window) {
      return quota(permits, window, -1);
    }

    /** As {@link #quota(int, Duration)} with a fixed {@code Retry-After} (seconds). */
    public synchronized Faults quota(int permits, Duration window, long retryAfterSeconds) {
      if (permits < 0) {
        throw new IllegalArgumentException("permits " + permits);
      }
      this.permits = permits;
      this.windowNanos = window.toNanos();
      this.retryAfterSeconds = retryAfterSeconds;
      return this;
    }

    /**
     * A provider-style token bucket: it starts full with {@code burst} tokens and refills
     * continuously at {@code rate} tokens per second up to {@code burst}; an admitted call takes
     * one, a call finding less than one gets 429 with a {@code Retry-After} of the whole seconds
     * until a token is back (at least 1) or the fixed one of {@link #quota(int, Duration, long)}.
     * Unlike {@link #quota(int, Duration)} it lets a burst through at once after a quiet spell.
     */
    public synchronized Faults tokenBucket(double rate, double burst) {
      if (rate <= 0 || burst < 1) {
        throw new IllegalArgumentException("token bucket " + rate + ":" + burst);
      }
      this.bucketRate = rate;
      this.bucketBurst = burst;
      this.bucketStarted = false;
      return this;
    }

    /** As {@link #tokenBucket(double, double)} with a fixed {@code Retry-After} (seconds). */
    public synchronized Faults tokenBucket(double rate, double burst, long retryAfterSeconds) {
      this.retryAfterSeconds = retryAfterSeconds;
      return tokenBucket(rate, burst);
    }

    /** The reply for calls no fault picked (default: a text answer naming the question). */
    public synchronized Faults otherwise(Function<Call, Reply> base) {
      this.otherwise = Objects.requireNonNull(base);
      return this;
    }

    /** From now on every call gets {@code reply} until {@link #recover()}. */
    public Faults outage(Reply reply) {
      this.outage = Objects.requireNonNull(reply);
      return this;
    }

    /** Ends an {@link #outage(Reply)}. */
    public Faults recover() {
      this.outage = null;
      return this;
    }

    @Override
    public synchronized Reply apply(Call call) {
      Reply down = outage;
      if (down != null) {
        return down;
      }
      if (permits >= 0) {
        long now = call.receivedNanos();
        while (!admitted.isEmpty() && now - admitted.peekFirst() >= windowNanos) {
          admitted.removeFirst();
        }
        if (admitted.size() >= permits) {
          long seconds = retryAfterSeconds;
          if (seconds < 0) {
            long waitNanos =
                admitted.isEmpty() ? windowNanos : admitted.peekFirst() + windowNanos - now;
            seconds = Math.max(1, (waitNanos + 999_999_999L) / 1_000_000_000L);
          }
          return Reply.rateLimited(seconds)
              .withHeader("x-ratelimit-limit-requests", Integer.toString(permits))
              .withHeader("x-ratelimit-remaining-requests", "0");
        }
        admitted.addLast(now);
      }
      if (bucketRate > 0) {
        Reply refused = takeToken(call.receivedNanos());
        if (refused != null) {
          return refused;
        }
      }
      double draw = faultRandom.nextDouble();
      Reply reply = null;
      double cumulative = 0;
      for (Fault fault : faults) {
        cumulative += fault.probability();
        if (draw < cumulative) {
          reply = fault.reply().apply(call);
          break;
        }
      }
      if (reply == null) {
        reply = otherwise.apply(call);
      }
      if (reply.kind() == Reply.Kind.HANG) {
        return reply;
      }
      Duration extra = latency.sample(latencyRandom);
      return extra.isZero() ? reply : reply.after(reply.delay().plus(extra));
    }

    /** One token from the bucket (null), or the 429 for a call that found none. */
    private Reply takeToken(long now) {
      if (!bucketStarted) {
        tokens = bucketBurst;
        refilledAtNanos = now;
        bucketStarted = true;
      }
      // calls are decided in arrival order, but a clock may repeat a reading: never refill
      // backwards
      long elapsed = Math.max(0, now - refilledAtNanos);
      tokens = Math.min(bucketBurst, tokens + elapsed / 1e9 * bucketRate);
      refilledAtNanos = Math.max(refilledAtNanos, now);
      if (tokens >= 1) {
        tokens -= 1;
        return null;
      }
      long seconds = retryAfterSeconds;
      if (seconds < 0) {
        seconds = Math.max(1, (long) Math.ceil((1 - tokens) / bucketRate));
      }
      return Reply.rateLimited(seconds)
          .withHeader("x-ratelimit-limit-requests", Long.toString(Math.round(bucketBurst)))
          .withHeader("x-ratelimit-remaining-requests", "0");
    }

    /**
     * The canned reply for an error status: 429/401/400 as OpenAI words them, others "scripted
     * failure".
     */
    static Reply errorFor(int status) {
      return switch (status) {
        case 429 -> Reply.rateLimited(1);
        case 401 -> Reply.unauthorized();
        default -> Reply.error(status);
      };
    }
  }

  private static final ObjectMapper JSON = new ObjectMapper();

  /**
   * The call log for other processes ({@code GET}, outside the OpenAI paths): a JSON array of
   * {@code {sequence, epochMicros, delayMillis, status, userMessage}} in arrival order, so a
   * benchmark can line the calls up with its own wall-clock readings when the fake runs in a JVM of
   * its own. {@code ?from=N} returns the calls from sequence N on.
   */
  public static final String CALL_LOG_PATH = "/_calls";

  /** The standalone server's run-time fault switch, see {@link #handleFaults}. */
  public static final String FAULTS_PATH = "/_faults";

  static {
    // the JDK server writes headers and body separately; without TCP_NODELAY each reply waits ~40
    // ms for a
    // delayed ACK. Read once, when the JDK server's config class loads.
    if (System.getProperty("sun.net.httpserver.nodelay") == null) {
      System.setProperty("sun.net.httpserver.nodelay", "true");
    }
  }

  private final HttpServer server;
  private final ExecutorService executor;
  private final List<Call> calls = new CopyOnWriteArrayList<>();
  private final List<Served> served = new CopyOnWriteArrayList<>();
  private final AtomicInteger sequence = new AtomicInteger();
  private final Object decisionLock = new Object();
  private final CountDownLatch closing = new CountDownLatch(1);
  private volatile CountDownLatch hangRelease = new CountDownLatch(1);
  private volatile LongSupplier clock = System::nanoTime;
  private volatile Function<Call, Reply> script =
      call -> Reply.text("Model answer to: " + call.userMessage());

  private FakeModelServer(HttpServer server, ExecutorService executor) {
    this.server = server;
    this.executor = executor;
  }

  public static FakeModelServer start() {
    return start(0);
  }

  public static FakeModelServer start(int port) {
    try {
      HttpServer http =
          HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 64);
      ExecutorService executor =
          Executors.newCachedThreadPool(
              runnable -> {
                Thread thread = new Thread(runnable, "fake-model-server");
                thread.setDaemon(true);
                return thread;
              });
      FakeModelServer fake = new FakeModelServer(http, executor);
      http.createContext("/v1/chat/completions", fake::handleChat);
      http.createContext(CALL_LOG_PATH, fake::handleCallLog);
      http.setExecutor(executor);
      http.start();
      return fake;
    } catch (IOException e) {
      throw new IllegalStateException("cannot start the fake model server", e);
    }
  }

  /** The value for LLM_BASE_URL. */
  public String baseUrl() {
    return "http://127.0.0.1:" + server.getAddress().getPort() + "/v1";
  }

  /** Replaces the script; takes effect for the next request (safe while requests are in flight). */
  public void script(Function<Call, Reply> script) {
    this.script = Objects.requireNonNull(script);
  }

  /**
   * The clock stamped on each {@link Call} (nanoseconds, like {@link System#nanoTime()}); for quota
   * tests.
   */
  public void clock(LongSupplier nanoTime) {
    this.clock = Objects.requireNonNull(nanoTime);
  }

  public List<Call> calls() {
    return List.copyOf(calls);
  }

  /**
   * Forgets recorded calls and {@link #served()} records (not a script's quota or random state).
   */
  public void clearCalls() {
    synchronized (decisionLock) {
      calls.clear();
      served.clear();
    }
  }

  /** Every call with its arrival time and the status decided for it, in arrival order. */
  public List<Served> served() {
    return List.copyOf(served);
  }

  public long totalCalls() {
    return served.size();
  }

  /** Calls per status returned (sorted by status; hangs under {@link #NO_RESPONSE}). */
  public Map<Integer, Long> statusCounts() {
    Map<Integer, Long> counts = new TreeMap<>();
    for (Served s : served) {
      counts.merge(s.status(), 1L, Long::sum);
    }
    return counts;
  }

  public long count(int status) {
    return served.stream().filter(s -> s.status() == status).count();
  }

  /**
   * The largest number of calls whose status matches {@code status} that arrived within any sliding
   * {@code window} (half-open: arrivals t with {@code start <= t < start + window}).
   */
  public int maxCallsInWindow(Duration window, IntPredicate status) {
    long[] times =
        served.stream()
            .filter(s -> status.test(s.status()))
            .mapToLong(Served::receivedNanos)
            .sorted()
            .toArray();
    long w = window.toNanos();
    int best = 0;
    for (int lo = 0, hi = 0; hi < times.length; hi++) {
      while (times[hi] - times[lo] >= w) {
        lo++;
      }
      best = Math.max(best, hi - lo + 1);
    }
    return best;
  }

  /** Calls per consecutive fixed {@code window}, counted from the first call's arrival. */
  public List<Integer> callsPerWindow(Duration window) {
    List<Served> all = served();
    List<Integer> counts = new ArrayList<>();
    if (all.isEmpty()) {
      return counts;
    }
    long first = all.stream().mapToLong(Served::receivedNanos).min().orElseThrow();
    for (Served s : all) {
      int bucket = (int) ((s.receivedNanos() - first) / window.toNanos());
      while (counts.size() <= bucket) {
        counts.add(0);
      }
      counts.set(bucket, counts.get(bucket) + 1);
    }
    return counts;
  }

  /** Drops the connections of all calls hanging so far (they never get a response). */
  public void releaseHangs() {
    CountDownLatch current = hangRelease;
    hangRelease = new CountDownLatch(1);
    current.countDown();
  }

  private void handleChat(HttpExchange exchange) throws IOException {
    try (exchange) {
      if (!"POST".equals(exchange.getRequestMethod())) {
        send(exchange, 405, error("method not allowed"));
        return;
      }
      JsonNode body = JSON.readTree(exchange.getRequestBody());
      String system = null;
      String user = null;
      for (JsonNode message : body.path("messages")) {
        String role = message.path("role").asText();
        if ("system".equals(role)) {
          system = message.path("content").asText();
        } else if ("user".equals(role)) {
          user = unfenced(message.path("content").asText());
        }
      }
      Reply reply;
      CountDownLatch release = hangRelease;
      synchronized (decisionLock) {
        long now = clock.getAsLong();
        Call call =
            new Call(
                body.path("model").asText(),
                system,
                user,
                body,
                calls.size() + 1L,
                now,
                exchange.getRequestHeaders().getFirst("traceparent"));
        calls.add(call);
        reply = script.apply(call);
        served.add(
            new Served(
                call.sequence(),
                now,
                Instant.now(),
                call,
                reply.status(),
                reply.kind(),
                reply.delay()));
      }
      if (reply.kind() == Reply.Kind.HANG) {
        // closing the exchange without a response drops the connection
        while (!release.await(50, TimeUnit.MILLISECONDS) && closing.getCount() > 0) {
          // hang
        }
        return;
      }
      if (!reply.delay().isZero() && closing.await(reply.delay().toNanos(), TimeUnit.NANOSECONDS)) {
        return; // the server is closing: scripted latency of the fake upstream cut short
      }
      reply.headers().forEach((name, value) -> exchange.getResponseHeaders().set(name, value));
      switch (reply.kind()) {
        case COMPLETION ->
            send(
                exchange,
                reply.status(),
                completion(body.path("model").asText(), reply.content(), promptTokens(body)));
        case ERROR, RAW -> send(exchange, reply.status(), reply.contentType(), reply.rawBody());
        default -> throw new IllegalStateException(reply.kind().toString());
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private void handleCallLog(HttpExchange exchange) throws IOException {
    try (exchange) {
      if (!"GET".equals(exchange.getRequestMethod())) {
        send(exchange, 405, error("method not allowed"));
        return;
      }
      String query = exchange.getRequestURI().getQuery();
      long from =
          query != null && query.startsWith("from=") ? Long.parseLong(query.substring(5)) : 0;
      var array = JSON.createArrayNode();
      for (Served s : served) {
        if (s.sequence() < from) {
          continue;
        }
        Instant at = s.receivedAt();
        array
            .addObject()
            .put("sequence", s.sequence())
            .put("epochMicros", at.getEpochSecond() * 1_000_000 + at.getNano() / 1000)
            .put("delayMillis", s.delay().toMillis())
            .put("status", s.status())
            .put("userMessage", s.call().userMessage());
      }
      send(exchange, 200, JSON.writeValueAsString(array));
    }
  }

  /**
   * The customer's words inside the prompt's customer fence ({@link PromptFences#customer}), as the
   * model reads them; a message without the fence as it is. The request body keeps the message as
   * sent.
   */
  static String unfenced(String content) {
    String open = PromptFences.CUSTOMER_OPEN + "\n";
    String close = "\n" + PromptFences.CUSTOMER_CLOSE;
    if (content.startsWith(open)
        && content.endsWith(close)
        && content.length() >= open.length() + close.length()) {
      return content.substring(open.length(), content.length() - close.length());
    }
    return content;
  }

  /**
   * The prompt tokens this fake reports for a request: the words of all its messages, so a test can
   * tell real counting from a constant.
   */
  public static int promptTokens(JsonNode body) {
    int words = 0;
    for (JsonNode message : body.path("messages")) {
      words += words(message.path("content").asText(""));
    }
    return words;
  }

  /** The completion tokens it reports: the words of the answer. */
  public static int completionTokens(String content) {
    return words(content);
  }

  private static int words(String text) {
    String trimmed = text == null ? "" : text.trim();
    return trimmed.isEmpty() ? 0 : trimmed.split("\\s+").length;
  }

  private String completion(String model, String content, int promptTokens) throws IOException {
    ObjectNode root = JSON.createObjectNode();
    root.put("id", "chatcmpl-fake-" + sequence.incrementAndGet());
    root.put("object", "chat.completion");
    root.put("created", System.currentTimeMillis() / 1000);
    root.put("model", model);
    ObjectNode choice = root.putArray("choices").addObject();
    choice.put("index", 0);
    choice.putObject("message").put("role", "assistant").put("content", content);
    choice.put("finish_reason", "stop");
    root.putObject("usage")
        .put("prompt_tokens", promptTokens)
        .put("completion_tokens", completionTokens(content))
        .put("total_tokens", promptTokens + completionTokens(content));
    return JSON.writeValueAsString(root);
  }

  private static String error(String message) throws IOException {
    ObjectNode root = JSON.createObjectNode();
    root.putObject("error").put("message", message).put("type", "server_error");
    return JSON.writeValueAsString(root);
  }

  private static byte[] errorJson(String message, String type, String param, String code) {
    ObjectNode root = JSON.createObjectNode();
    ObjectNode error = root.putObject("error");
    error.put("message", message).put("type", type).put("param", param).put("code", code);
    try {
      return JSON.writeValueAsBytes(root);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static void send(HttpExchange exchange, int status, String body) throws IOException {
    send(exchange, status, "application/json", body.getBytes(StandardCharsets.UTF_8));
  }

  private static void send(HttpExchange exchange, int status, String contentType, byte[] bytes)
      throws IOException {
    exchange.getResponseHeaders().set("Content-Type", contentType);
    exchange.sendResponseHeaders(status, bytes.length == 0 ? -1 : bytes.length);
    try (OutputStream out = exchange.getResponseBody()) {
      out.write(bytes);
    }
  }

  @Override
  public void close() {
    if (closing.getCount() == 0) {
      return;
    }
    closing.countDown();
    releaseHangs();
    server.stop(0);
    executor.shutdownNow();
  }

  /**
   * Standalone server. Flags (all optional): {@code --port N} (or a bare port number), {@code
   * --seed S}, {@code --latency-ms N} or {@code --latency-ms MIN-MAX} (uniform) or {@code
   * --latency-ms P50:P99} (log-normal), {@code --error-rate P} or {@code --error-rate P:STATUS}
   * (default status 500, repeatable), {@code --hang-rate P}, {@code --quota N} (calls per second,
   * 429 above), {@code --token-bucket RATE:BURST} (a provider's token bucket, 429 when empty, see
   * {@link Faults#tokenBucket(double, double)}) and {@code --retry-after S}. The calls received are
   * at {@code GET /_calls} ({@link #CALL_LOG_PATH}); {@code POST /_faults} ({@link #FAULTS_PATH})
   * changes the faults while it runs.
   */
  public static void main(String[] args) throws InterruptedException {
    int port = 0;
    long seed = 1;
    Latency latency = null;
    Map<Integer, Double> errors = new LinkedHashMap<>();
    double hangRate = 0;
    int quota = -1;
    double bucketRate = -1;
    double bucketBurst = 0;
    long retryAfter = -1;
    for (int i = 0; i < args.length; i++) {
      String arg = args[i];
      if (!arg.startsWith("--")) {
        port = Integer.parseInt(arg);
        continue;
      }
      if (i + 1 >= args.length) {
        throw new IllegalArgumentException(arg + " needs a value");
      }
      String value = args[++i];
      switch (arg) {
        case "--port" -> port = Integer.parseInt(value);
        case "--seed" -> seed = Long.parseLong(value);
        case "--latency-ms" -> latency = parseLatency(value);
        case "--error-rate" -> {
          String[] parts = value.split(":");
          errors.merge(
              parts.length > 1 ? Integer.parseInt(parts[1]) : 500,
              Double.parseDouble(parts[0]),
              Double::sum);
        }
        case "--hang-rate" -> hangRate = Double.parseDouble(value);
        case "--quota" -> quota = Integer.parseInt(value);
        case "--token-bucket" -> {
          String[] parts = value.split(":");
          bucketRate = Double.parseDouble(parts[0]);
          bucketBurst = parts.length > 1 ? Double.parseDouble(parts[1]) : Math.max(1, bucketRate);
        }
        case "--retry-after" -> retryAfter = Long.parseLong(value);
        default -> throw new IllegalArgumentException("unknown flag " + arg);
      }
    }
    FakeModelServer fake = start(port);
    // always a Faults script, so that FAULTS_PATH can change it at run time
    Faults faults = Faults.seeded(seed).errors(errors);
    if (hangRate > 0) {
      faults.hangs(hangRate);
    }
    if (latency != null) {
      faults.latency(latency);
    }
    if (quota >= 0) {
      faults.quota(quota, Duration.ofSeconds(1), retryAfter);
    }
    if (bucketRate > 0) {
      faults.tokenBucket(bucketRate, bucketBurst, retryAfter);
    }
    fake.script(faults);
    fake.server.createContext(FAULTS_PATH, exchange -> handleFaults(exchange, faults));
    System.out.println("fake model listening, LLM_BASE_URL=" + fake.baseUrl());
    Thread.currentThread().join();
  }

  /**
   * A scenario's change of the standalone server's faults, while calls are in flight: {@code POST
   * /_faults?outage=STATUS} (every call gets that error until recovered), {@code ?recover}, {@code
   * ?latency-ms=SPEC} (as the flag). Answers 204.
   */
  private static void handleFaults(HttpExchange exchange, Faults faults) throws IOException {
    try (exchange) {
      String query = exchange.getRequestURI().getQuery();
      if (!"POST".equals(exchange.getRequestMethod()) || query == null) {
        send(
            exchange, 400, error("POST " + FAULTS_PATH + "?outage=STATUS|recover|latency-ms=SPEC"));
        return;
      }
      String[] change = query.split("=", 2);
      try {
        switch (change[0]) {
          case "outage" -> faults.outage(Faults.errorFor(Integer.parseInt(change[1])));
          case "recover" -> faults.recover();
          case "latency-ms" -> faults.latency(parseLatency(change[1]));
          default -> throw new IllegalArgumentException("unknown change " + change[0]);
        }
      } catch (RuntimeException e) {
        send(exchange, 400, error(e.toString()));
        return;
      }
      exchange.sendResponseHeaders(204, -1);
    }
  }

  private static Latency parseLatency(String value) {
    if (value.contains(":")) {
      String[] parts = value.split(":");
      return Latency.logNormal(
          Duration.ofMillis(Long.parseLong(parts[0])), Duration.ofMillis(Long.parseLong(parts[1])));
    }
    if (value.contains("-")) {
      String[] parts = value.split("-");
      return Latency.uniform(
          Duration.ofMillis(Long.parseLong(parts[0])), Duration.ofMillis(Long.parseLong(parts[1])));
    }
    return Latency.fixed(Duration.ofMillis(Long.parseLong(value)));
  }
}
