package dev.questionflow.api.ticket;

import org.springframework.context.annotation.Configuration;
import org.springframework.web.servlet.config.annotation.ViewControllerRegistry;
import org.springframework.web.servlet.config.annotation.WebMvcConfigurer;

/**
 * The staff console's address: /staff serves the static page (which signs in and calls the ticket
 * API).
 */
@Configuration(proxyBeanMethods = false)
class StaffConsoleConfig implements WebMvcConfigurer {

  @Override
  public void addViewControllers(ViewControllerRegistry registry) {
    registry.addViewController("/staff").setViewName("forward:/staff.html");
  }
}
