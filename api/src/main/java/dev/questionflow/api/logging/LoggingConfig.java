package dev.questionflow.api.logging;

import ch.qos.logback.classic.LoggerContext;
import dev.questionflow.api.config.CsProperties;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.DisposableBean;
import org.springframework.context.annotation.Configuration;

/**
 * Installs the log sampling of {@code cs.log-sampling} into Logback (after Spring Boot configured
 * it).
 */
@Configuration(proxyBeanMethods = false)
class LoggingConfig implements DisposableBean {

  private final SampledLogFilter filter;

  LoggingConfig(CsProperties properties) {
    CsProperties.LogSampling sampling = properties.logSampling();
    if (sampling == null || sampling.loggers() == null || sampling.loggers().isEmpty()) {
      filter = null;
      return;
    }
    filter =
        new SampledLogFilter(
            new SampledLogFilter.Settings(
                sampling.loggers(),
                sampling.firstPerWindow(),
                sampling.thenOneIn(),
                sampling.window()),
            System::nanoTime);
    filter.start();
    if (LoggerFactory.getILoggerFactory() instanceof LoggerContext logback) {
      logback.addTurboFilter(filter);
    }
  }

  @Override
  public void destroy() {
    if (filter != null && LoggerFactory.getILoggerFactory() instanceof LoggerContext logback) {
      logback.getTurboFilterList().remove(filter);
    }
  }
}
