package dev.questionflow.api.admin;

import io.swagger.v3.oas.annotations.enums.SecuritySchemeType;
import io.swagger.v3.oas.annotations.security.SecurityScheme;
import org.springframework.context.annotation.Configuration;

/**
 * The OpenAPI description of the credentials (checked by Spring Security, see the security
 * package).
 */
@Configuration(proxyBeanMethods = false)
@SecurityScheme(
    name = "bearer",
    type = SecuritySchemeType.HTTP,
    scheme = "bearer",
    description =
        "An API key (CALLER_API_KEYS, STAFF_API_KEYS, ADMIN_API_KEY) or a staff/admin OIDC token")
class AdminConfig {}
