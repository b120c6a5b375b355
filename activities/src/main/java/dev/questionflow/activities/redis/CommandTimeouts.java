package dev.questionflow.activities.redis;

import io.lettuce.core.TimeoutOptions;
import io.lettuce.core.protocol.CommandType;
import io.lettuce.core.protocol.RedisCommand;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

/**
 * Each command's time limit: {@code cs.redis.command-timeout}, and for WAIT that plus its own
 * timeout, since WAIT blocks on the server until the replicas acknowledge or its timeout passes.
 */
final class CommandTimeouts extends TimeoutOptions.TimeoutSource {

  private final long commandMillis;
  private final long waitMillis;

  CommandTimeouts(Duration commandTimeout, Duration waitTimeout) {
    this.commandMillis = commandTimeout.toMillis();
    this.waitMillis = commandMillis + waitTimeout.toMillis();
  }

  static TimeoutOptions options(Duration commandTimeout, Duration waitTimeout) {
    return TimeoutOptions.builder()
        .timeoutCommands(true)
        .timeoutSource(new CommandTimeouts(commandTimeout, waitTimeout))
        .build();
  }

  @Override
  public long getTimeout(RedisCommand<?, ?, ?> command) {
    return command.getType() == CommandType.WAIT ? waitMillis : commandMillis;
  }

  @Override
  public TimeUnit getTimeUnit() {
    return TimeUnit.MILLISECONDS;
  }
}
