package dev.questionflow.activities.redis;

import dev.questionflow.activities.resilience.Dependency;
import dev.questionflow.activities.resilience.DependencyBreakers;
import dev.questionflow.activities.resilience.UpstreamErrors;
import io.github.resilience4j.circuitbreaker.CallNotPermittedException;
import io.lettuce.core.RedisException;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A store that lives in Redis and, while Redis fails or the {@link Dependency#REDIS} circuit is
 * open, in this instance's memory instead: for what only costs accuracy when it is per instance for
 * a while (session order and history, queue positions), never for what must not be lost (tickets
 * fail and are retried by Temporal).
 *
 * <p>A JDK proxy written here because Resilience4j decorates one call at a time and its fallback
 * annotations need Spring-managed beans; this wraps every method of a store interface the same way.
 */
public final class RedisOrMemory {

  private static final Logger log = LoggerFactory.getLogger(RedisOrMemory.class);

  private RedisOrMemory() {}

  public static <T> T of(
      Class<T> store, T redis, T memory, DependencyBreakers breakers, UpstreamErrors errors) {
    Object proxy =
        Proxy.newProxyInstance(
            store.getClassLoader(),
            new Class<?>[] {store},
            (self, method, args) -> {
              if (method.getDeclaringClass() == Object.class) {
                return method.invoke(redis, args);
              }
              try {
                return breakers.call(Dependency.REDIS, () -> invoke(method, redis, args));
              } catch (CallNotPermittedException e) {
                errors.record(Dependency.REDIS, UpstreamErrors.Kind.CIRCUIT_OPEN);
              } catch (RedisException e) {
                errors.record(Dependency.REDIS, e);
                log.debug(
                    "{}.{} from memory: {}", store.getSimpleName(), method.getName(), e.toString());
              }
              return invoke(method, memory, args);
            });
    return store.cast(proxy);
  }

  /** Calls the method, unwrapping what the method itself threw. */
  private static Object invoke(Method method, Object target, Object[] args) {
    try {
      return method.invoke(target, args);
    } catch (InvocationTargetException e) {
      if (e.getCause() instanceof RuntimeException runtime) {
        throw runtime;
      }
      throw new IllegalStateException(e.getCause());
    } catch (IllegalAccessException e) {
      throw new IllegalStateException(e);
    }
  }
}
