package dev.questionflow.api.admin;

import dev.questionflow.api.config.CsProperties;
import io.swagger.v3.oas.annotations.enums.SecuritySchemeIn;
import io.swagger.v3.oas.annotations.enums.SecuritySchemeType;
import io.swagger.v3.oas.annotations.security.SecurityScheme;
import org.springframework.boot.web.servlet.FilterRegistrationBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

@Configuration(proxyBeanMethods = false)
@SecurityScheme(name = "adminApiKey", type = SecuritySchemeType.APIKEY, in = SecuritySchemeIn.HEADER,
    paramName = AdminApiKeyFilter.HEADER)
class AdminConfig {

  @Bean
  FilterRegistrationBean<AdminApiKeyFilter> adminApiKeyFilter(CsProperties properties) {
    String key = properties.admin() == null ? null : properties.admin().apiKey();
    FilterRegistrationBean<AdminApiKeyFilter> registration = new FilterRegistrationBean<>(new AdminApiKeyFilter(key));
    registration.addUrlPatterns(AdminController.BASE + "/*", AdminController.BASE);
    return registration;
  }
}
