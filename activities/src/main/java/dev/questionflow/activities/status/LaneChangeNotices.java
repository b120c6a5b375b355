package dev.questionflow.activities.status;

import dev.questionflow.activities.lane.LaneLedger;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.util.Set;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A lane ledger that tells the status store when a lane's line changed (a question entered or left
 * it, its call started, a sweep removed entries): the instances that stream waiting questions of
 * that lane refresh their positions once per notice, instead of every stream polling its position.
 * A notice that cannot be sent is skipped (streams re-read on silence); the ledger's own call is
 * never failed by it. A JDK proxy, as {@code RedisOrMemory}: the interface has twenty methods and
 * four of them change the line.
 */
public final class LaneChangeNotices {

  private static final Logger log = LoggerFactory.getLogger(LaneChangeNotices.class);

  /** The ledger's methods that change a line; each takes the lane first. */
  static final Set<String> CHANGING = Set.of("enter", "leave", "started", "sweep");

  private LaneChangeNotices() {}

  public static LaneLedger of(LaneLedger ledger, Consumer<String> laneChanged) {
    return (LaneLedger)
        Proxy.newProxyInstance(
            LaneLedger.class.getClassLoader(),
            new Class<?>[] {LaneLedger.class},
            (self, method, args) -> {
              Object result;
              try {
                result = method.invoke(ledger, args);
              } catch (InvocationTargetException e) {
                throw e.getCause();
              }
              if (CHANGING.contains(method.getName())
                  && args != null
                  && args[0] instanceof String lane
                  && !("sweep".equals(method.getName()) && Long.valueOf(0).equals(result))) {
                try {
                  laneChanged.accept(lane);
                } catch (RuntimeException e) {
                  log.debug("lane {}: change notice not sent: {}", lane, e.toString());
                }
              }
              return result;
            });
  }
}
