package dev.questionflow.api.role;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.boot.web.servlet.FilterRegistrationBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.Ordered;
import org.springframework.core.env.Environment;

/** The instance's {@link Role}: logged once, and a worker's HTTP side closed but for /actuator. */
@Configuration(proxyBeanMethods = false)
class RoleConfig {

  private static final Logger log = LoggerFactory.getLogger(RoleConfig.class);

  @Bean
  Role role(Environment environment) {
    Role role = Role.of(environment);
    log.info(
        "role: {} ({})",
        role,
        switch (role) {
          case ALL -> "HTTP API and workers";
          case API -> "HTTP API, no workers: questions are answered by worker instances";
          case WORKER -> "workers; HTTP serves /actuator only";
        });
    return role;
  }

  @Bean
  FilterRegistrationBean<WorkerOnlyFilter> workerOnlyFilter(Role role) {
    FilterRegistrationBean<WorkerOnlyFilter> registration =
        new FilterRegistrationBean<>(new WorkerOnlyFilter());
    registration.setEnabled(!role.servesApi());
    registration.setOrder(Ordered.HIGHEST_PRECEDENCE + 1); // after RequestIdFilter
    return registration;
  }
}
