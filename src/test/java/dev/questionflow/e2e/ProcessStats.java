package dev.questionflow.e2e;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.OptionalLong;

/**
 * CPU time of a process from {@code /proc/<pid>/stat} (every thread), and a JVM's JIT compilation
 * count from {@code jstat -compiler}: the benchmarks' per-unit CPU figures, measured outside the
 * processes they describe.
 */
final class ProcessStats {

  /** USER_HZ: the kernel reports times in clock ticks of 1/100 s on Linux. */
  private static final double MILLIS_PER_TICK = 10.0;

  private ProcessStats() {}

  /** User + system CPU milliseconds the process has used so far. */
  static double cpuMillis(long pid) {
    try {
      String stat = Files.readString(Path.of("/proc", String.valueOf(pid), "stat"));
      // the command name (field 2) is in parentheses and may contain spaces: count after it
      String[] fields = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
      long utime = Long.parseLong(fields[11]);
      long stime = Long.parseLong(fields[12]);
      return (utime + stime) * MILLIS_PER_TICK;
    } catch (IOException e) {
      throw new IllegalStateException("cannot read /proc/" + pid + "/stat", e);
    }
  }

  /**
   * CPU milliseconds the JVM's JIT compiler threads ("C1 CompilerThre", "C2 CompilerThre") have
   * used so far: the share of a fresh instance's CPU that warming up costs.
   */
  static double compilerCpuMillis(long pid) {
    return threadCpuMillis(pid, name -> name.contains("Compiler"));
  }

  /**
   * CPU milliseconds the threads whose name (the kernel's, cut to 15 characters) passes {@code
   * named} have used so far; threads that ended are not counted.
   */
  static double threadCpuMillis(long pid, java.util.function.Predicate<String> named) {
    try (var tasks = Files.list(Path.of("/proc", String.valueOf(pid), "task"))) {
      return tasks
          .mapToDouble(
              task -> {
                try {
                  String stat = Files.readString(task.resolve("stat"));
                  String name = stat.substring(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
                  if (!named.test(name)) {
                    return 0;
                  }
                  String[] fields = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
                  return (Long.parseLong(fields[11]) + Long.parseLong(fields[12]))
                      * MILLIS_PER_TICK;
                } catch (IOException gone) {
                  return 0; // a thread that ended meanwhile
                }
              })
          .sum();
    } catch (IOException e) {
      throw new IllegalStateException("cannot list /proc/" + pid + "/task", e);
    }
  }

  /**
   * The process whose command line contains every fragment (e.g. the Temporal dev server and its
   * port).
   */
  static OptionalLong find(String... fragments) {
    try (var procs = Files.list(Path.of("/proc"))) {
      return procs
          .filter(p -> p.getFileName().toString().matches("\\d+"))
          .filter(
              p -> {
                try {
                  String cmdline =
                      new String(Files.readAllBytes(p.resolve("cmdline"))).replace('\0', ' ');
                  return java.util.Arrays.stream(fragments).allMatch(cmdline::contains);
                } catch (IOException gone) {
                  return false;
                }
              })
          .mapToLong(p -> Long.parseLong(p.getFileName().toString()))
          .min();
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
  }

  /** Methods the JVM has JIT-compiled so far ({@code jstat -compiler}'s "Compiled"). */
  static long compilations(long pid) {
    Path jstat = Path.of(System.getProperty("java.home"), "bin", "jstat");
    try {
      Process process =
          new ProcessBuilder(jstat.toString(), "-compiler", String.valueOf(pid))
              .redirectErrorStream(true)
              .start();
      String out = new String(process.getInputStream().readAllBytes());
      process.waitFor();
      String[] lines = out.strip().split("\n");
      return Long.parseLong(lines[lines.length - 1].trim().split("\\s+")[0]);
    } catch (IOException | RuntimeException e) {
      return -1;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return -1;
    }
  }
}
