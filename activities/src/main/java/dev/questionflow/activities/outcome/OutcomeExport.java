package dev.questionflow.activities.outcome;

import dev.questionflow.activities.redis.LazyRedis;
import java.io.BufferedWriter;
import java.io.IOException;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.Locale;

/**
 * {@code bin/outcomes export --since <ISO time | 24h | 30m | 7d> --format csv|jsonl [--out file]}:
 * the outcome records from REDIS_URL's stream (XRANGE), written out. Exit 2 on bad arguments.
 */
public final class OutcomeExport {

  private OutcomeExport() {}

  public static void main(String[] args) throws IOException {
    String since = null;
    String format = "jsonl";
    String out = null;
    for (int i = 0; i < args.length; i++) {
      switch (args[i]) {
        case "export" -> {}
        case "--since" -> since = args[++i];
        case "--format" -> format = args[++i];
        case "--out" -> out = args[++i];
        default -> usage("unknown argument " + args[i]);
      }
    }
    if (since == null || !(format.equals("csv") || format.equals("jsonl"))) {
      usage("--since is required; --format is csv or jsonl");
    }
    String url = System.getenv("REDIS_URL");
    if (url == null || url.isBlank()) {
      usage("REDIS_URL is not set (the outcome stream is in Redis)");
    }
    long from = sinceMillis(since, Clock.systemUTC());
    try (LazyRedis redis = new LazyRedis(url, Duration.ofSeconds(10), Duration.ofSeconds(1))) {
      var records =
          new RedisOutcomeStream(redis, Long.MAX_VALUE, Duration.ofDays(36500), Clock.systemUTC())
              .since(from);
      try (Writer writer =
          out == null
              ? new BufferedWriter(new OutputStreamWriter(System.out, StandardCharsets.UTF_8))
              : Files.newBufferedWriter(Path.of(out))) {
        OutcomeFormats.write(format, records, writer);
      }
      System.err.println(
          "[outcomes] " + records.size() + " record(s) since " + Instant.ofEpochMilli(from));
    }
  }

  /** An ISO instant, or a duration back from now: 90s, 30m, 24h, 7d (or ISO PT24H). */
  static long sinceMillis(String since, Clock clock) {
    try {
      return Instant.parse(since).toEpochMilli();
    } catch (DateTimeParseException notAnInstant) {
      String text = since.trim().toLowerCase(Locale.ROOT);
      Duration back;
      if (text.startsWith("p")) {
        back = Duration.parse(text.toUpperCase(Locale.ROOT));
      } else {
        long amount = Long.parseLong(text.substring(0, text.length() - 1));
        back =
            switch (text.charAt(text.length() - 1)) {
              case 's' -> Duration.ofSeconds(amount);
              case 'm' -> Duration.ofMinutes(amount);
              case 'h' -> Duration.ofHours(amount);
              case 'd' -> Duration.ofDays(amount);
              default -> throw new IllegalArgumentException("--since: " + since);
            };
      }
      return clock.millis() - back.toMillis();
    }
  }

  private static void usage(String why) {
    System.err.println(
        "usage: bin/outcomes export --since <ISO time | 24h | 30m | 7d> --format csv|jsonl [--out file]\n"
            + why);
    System.exit(2);
  }
}
