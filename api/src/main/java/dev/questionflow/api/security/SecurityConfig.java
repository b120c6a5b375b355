package dev.questionflow.api.security;

import dev.questionflow.api.payload.PayloadProperties;
import dev.questionflow.api.ratelimit.AccessLimitFilter;
import dev.questionflow.api.ratelimit.AccessLimiter;
import dev.questionflow.api.ratelimit.ClientIp;
import jakarta.servlet.Filter;
import java.time.Clock;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.annotation.Order;
import org.springframework.http.HttpMethod;
import org.springframework.security.access.hierarchicalroles.RoleHierarchy;
import org.springframework.security.access.hierarchicalroles.RoleHierarchyImpl;
import org.springframework.security.authentication.AuthenticationManager;
import org.springframework.security.authentication.AuthenticationProvider;
import org.springframework.security.authorization.AuthenticatedAuthorizationManager;
import org.springframework.security.authorization.AuthorityAuthorizationManager;
import org.springframework.security.authorization.AuthorizationManagers;
import org.springframework.security.config.annotation.method.configuration.EnableMethodSecurity;
import org.springframework.security.config.annotation.web.builders.HttpSecurity;
import org.springframework.security.config.annotation.web.configuration.EnableWebSecurity;
import org.springframework.security.config.http.SessionCreationPolicy;
import org.springframework.security.config.observation.SecurityObservationSettings;
import org.springframework.security.oauth2.server.resource.web.BearerTokenResolver;
import org.springframework.security.oauth2.server.resource.web.DefaultBearerTokenResolver;
import org.springframework.security.oauth2.server.resource.web.authentication.BearerTokenAuthenticationFilter;
import org.springframework.security.web.SecurityFilterChain;
import org.springframework.security.web.access.intercept.AuthorizationFilter;
import org.springframework.web.cors.CorsConfiguration;
import org.springframework.web.cors.UrlBasedCorsConfigurationSource;
import org.springframework.web.servlet.HandlerExceptionResolver;
import org.springframework.web.util.UrlPathHelper;

/**
 * Who may do what. Every request is authenticated by one of: a bearer API key (chat back end,
 * staff, admin; the admin key also as {@code X-Api-Key}), a bearer JWT from the staff's OIDC
 * provider, the chat page's signed web-session cookie, or, in trial mode only, the per-start trial
 * token (bearer or cookie). Browser requests from other origins may change nothing ({@link
 * CrossSiteRequests}). Roles: CALLER asks questions and reads its own, STAFF reads every question
 * and answers tickets, ADMIN is staff plus the admin API and the actuator, METRICS (Prometheus's
 * key) reads {@code /actuator/prometheus} and nothing else.
 */
@Configuration(proxyBeanMethods = false)
@EnableWebSecurity
@EnableMethodSecurity
class SecurityConfig {

  private static final Logger log = LoggerFactory.getLogger(SecurityConfig.class);

  /**
   * The admin API's header before bearer tokens; still accepted for the admin key (and any API
   * key).
   */
  static final String API_KEY_HEADER = "X-Api-Key";

  @Bean
  ServerSecret serverSecret(SecurityProperties properties) {
    return ServerSecret.of(properties.workflowIdSecret(), properties.dataDir());
  }

  /**
   * @param maxLifetime how long renewals may keep one visitor's session going (its own setting, not
   *     a SecurityProperties field, to keep this change apart from the others of issue 28)
   */
  @Bean
  WebSessions webSessions(
      ServerSecret secret,
      SecurityProperties properties,
      @Value("${cs.security.web-session-max-lifetime:24h}") java.time.Duration maxLifetime) {
    return new WebSessions(secret, properties.webSessionTtl(), maxLifetime, Clock.systemUTC());
  }

  /** Trial mode's per-start token; {@link TrialToken#OFF} when trial mode is off. */
  @Bean
  TrialToken trialToken(
      SecurityProperties properties, @Value("${server.address:}") String serverAddress) {
    return TrialMode.on(properties, serverAddress)
        ? TrialToken.create(properties.dataDir(), serverAddress)
        : TrialToken.OFF;
  }

  @Bean
  CrossSiteRequests crossSiteRequests(SecurityProperties properties, ClientIp clientIp) {
    return new CrossSiteRequests(properties.publicOrigins(), clientIp);
  }

  /**
   * Spring Security's own observations (management.observations.enable.spring.security, {@code
   * SECURITY_OBSERVATIONS_ENABLED}). Off, the filter chain is not wrapped at all: the property
   * alone leaves every filter wrapped in an observation that is then dropped, which cost as much
   * CPU per request as the request's own work when thousands of event streams open at once
   * (profiled in docs/benchmarks/streams-before-after.txt).
   */
  @Bean
  static SecurityObservationSettings securityObservations(
      @Value("${management.observations.enable.spring.security:false}") boolean enabled) {
    return enabled
        ? SecurityObservationSettings.withDefaults().build()
        : SecurityObservationSettings.noObservations();
  }

  @Bean
  static RoleHierarchy roleHierarchy() {
    return RoleHierarchyImpl.withDefaultRolePrefix().role("ADMIN").implies("STAFF").build();
  }

  /**
   * API keys, our web sessions and, when configured, the OIDC provider's tokens: each token to its
   * own checker.
   */
  @Bean
  AuthenticationManager bearerAuthentication(
      SecurityProperties properties, WebSessions webSessions, TrialToken trial) {
    AuthenticationProvider apiKeys =
        new ApiKeyAuthenticationProvider(
            ApiKeys.parse("CALLER_API_KEYS", properties.callerApiKeys()),
            ApiKeys.parse("STAFF_API_KEYS", properties.staffApiKeys()),
            ApiKeys.single("ADMIN_API_KEY", "admin", properties.adminApiKey()),
            ApiKeys.single("METRICS_API_KEY", "prometheus", properties.metricsApiKey()));
    AuthenticationProvider oidc = null;
    if (properties.jwt().configured()) {
      oidc = StaffJwt.authenticationProvider(properties.jwt());
      log.info(
          "staff sign-in with OIDC tokens from {}",
          properties.jwt().issuerUri() != null
              ? properties.jwt().issuerUri()
              : properties.jwt().jwkSetUri());
    }
    return trial.before(new BearerTokenRouter(apiKeys, webSessions.authenticationProvider(), oidc));
  }

  /**
   * Health probes open; Prometheus's scrape for the metrics key and admins; everything else of the
   * actuator (details, metrics) for admins only.
   */
  @Bean
  @Order(1)
  SecurityFilterChain actuator(
      HttpSecurity http,
      AuthenticationManager bearer,
      TrialToken trial,
      CrossSiteRequests crossSite)
      throws Exception {
    http.securityMatcher("/actuator/**")
        .authorizeHttpRequests(
            requests ->
                requests
                    .requestMatchers(
                        "/actuator/health",
                        "/actuator/health/liveness",
                        "/actuator/health/readiness")
                    .permitAll()
                    .requestMatchers("/actuator/prometheus")
                    .hasAnyRole("ADMIN", "METRICS")
                    .anyRequest()
                    .hasRole("ADMIN"));
    return common(http, bearer, trial, crossSite.filter(List.of())).build();
  }

  @Bean
  ClientIp clientIp(SecurityProperties properties) {
    return new ClientIp(properties.trustedProxies());
  }

  @Bean
  FailedAuthentications failedAuthentications(AccessLimiter limiter, ClientIp clientIp) {
    return new FailedAuthentications(limiter, clientIp);
  }

  /**
   * Temporal's codec protocol for the Web UI and CLI: staff and admins only. The UI calls it from
   * the browser, from its own origin: CORS lets exactly the configured origins ({@code
   * TEMPORAL_UI_ORIGIN}) send the staff's bearer token or cookie; preflights are answered before
   * authentication.
   */
  @Bean
  @Order(2)
  SecurityFilterChain codec(
      HttpSecurity http,
      AuthenticationManager bearer,
      PayloadProperties payloads,
      TrialToken trial,
      CrossSiteRequests crossSite,
      AccessLimiter limiter,
      ClientIp clientIp,
      @Qualifier("handlerExceptionResolver") HandlerExceptionResolver errors)
      throws Exception {
    CorsConfiguration cors = new CorsConfiguration();
    cors.setAllowedOrigins(payloads.codecOrigins());
    cors.setAllowedMethods(java.util.List.of("POST"));
    cors.setAllowedHeaders(java.util.List.of("Authorization", "Content-Type", "X-Namespace"));
    cors.setAllowCredentials(true);
    cors.setMaxAge(java.time.Duration.ofHours(1));
    UrlBasedCorsConfigurationSource origins = new UrlBasedCorsConfigurationSource();
    origins.registerCorsConfiguration("/codec/**", cors);
    http.securityMatcher("/codec/**")
        .cors(c -> c.configurationSource(origins))
        .authorizeHttpRequests(requests -> requests.anyRequest().hasRole("STAFF"));
    http.addFilterAfter(
        new AccessLimitFilter(limiter, clientIp, errors), AuthorizationFilter.class);
    // the configured Web UI origins call the codec from the browser: its CORS rules decide for them
    return common(http, bearer, trial, crossSite.filter(payloads.codecOrigins())).build();
  }

  @Bean
  @Order(3)
  SecurityFilterChain api(
      HttpSecurity http,
      AuthenticationManager bearer,
      SecurityProperties properties,
      @Value("${server.address:}") String serverAddress,
      TrialToken trial,
      CrossSiteRequests crossSite,
      AccessLimiter limiter,
      ClientIp clientIp,
      @Qualifier("handlerExceptionResolver") HandlerExceptionResolver errors)
      throws Exception {
    http.authorizeHttpRequests(
        requests ->
            requests
                .requestMatchers(
                    HttpMethod.GET,
                    "/",
                    "/index.html",
                    "/app.js",
                    "/app.css",
                    "/problem.js",
                    "/staff",
                    "/staff.html",
                    "/staff.js",
                    "/staff-view.js",
                    "/staff-signin.js",
                    "/favicon.ico")
                .permitAll()
                .requestMatchers("/error")
                .permitAll()
                .requestMatchers(HttpMethod.POST, WebSessionController.PATH)
                .permitAll()
                // springdoc is off unless SWAGGER_UI_ENABLED=true; then its pages are public (they
                // hold no data)
                .requestMatchers("/v3/api-docs/**", "/swagger-ui/**", "/swagger-ui.html")
                .permitAll()
                .requestMatchers("/api/v1/admin/**")
                .hasRole("ADMIN")
                .requestMatchers("/api/v1/tickets/**")
                .hasRole("STAFF")
                .requestMatchers(HttpMethod.POST, "/api/v1/questions")
                .hasRole("CALLER")
                .requestMatchers("/api/v1/questions/**")
                .hasAnyRole("CALLER", "STAFF")
                // any signed-in requester but Prometheus: its key is for the scrape only
                .anyRequest()
                .access(
                    AuthorizationManagers.allOf(
                        AuthenticatedAuthorizationManager.authenticated(),
                        AuthorizationManagers.not(
                            AuthorityAuthorizationManager.hasRole("METRICS")))));
    // limits count only what was let in; not a bean, so the servlet container does not run it a
    // second time
    http.addFilterAfter(
        new AccessLimitFilter(limiter, clientIp, errors), AuthorizationFilter.class);
    if (trial.enabled()) {
      // not a bean, as above: opening the printed ?token= URL sets the trial cookie
      http.addFilterBefore(
          new TrialTokenLink(trial, clientIp), BearerTokenAuthenticationFilter.class);
      log.warn(
          "TRIAL MODE: no CALLER_API_KEYS, STAFF_API_KEYS, ADMIN_API_KEY or STAFF_JWT_* is set, so the holder"
              + " of the trial token (the URL below, or the file it names) is the caller 'local' (staff and admin"
              + " too), and the server listens on {} only. Configure a key to turn trial mode off.",
          serverAddress.isBlank() ? "loopback" : serverAddress);
    } else if (!properties.anyCredentialConfigured()) {
      log.warn(
          "No CALLER_API_KEYS, STAFF_API_KEYS, ADMIN_API_KEY or STAFF_JWT_* is set and the server listens on {}:"
              + " every API request will be refused (401). Configure keys (docs/runbook.md, Access and roles).",
          serverAddress);
    }
    return common(http, bearer, trial, crossSite.filter(List.of())).build();
  }

  private HttpSecurity common(
      HttpSecurity http, AuthenticationManager bearer, TrialToken trial, Filter crossSite)
      throws Exception {
    http.sessionManagement(
            sessions -> sessions.sessionCreationPolicy(SessionCreationPolicy.STATELESS))
        // no server-side sessions and no cookie but our SameSite=Strict web session: nothing for
        // CSRF to ride on
        .csrf(csrf -> csrf.disable())
        .requestCache(cache -> cache.disable())
        .oauth2ResourceServer(
            server ->
                server
                    // failed credentials are counted per address; a used-up address is refused
                    .authenticationManagerResolver(
                        http.getSharedObject(org.springframework.context.ApplicationContext.class)
                            .getBean(FailedAuthentications.class)
                            .guarding(bearer))
                    .bearerTokenResolver(tokenResolver(trial))
                    .authenticationEntryPoint(ProblemResponses.unauthorized())
                    .accessDeniedHandler(ProblemResponses.forbidden()))
        .exceptionHandling(
            errors ->
                errors
                    .authenticationEntryPoint(ProblemResponses.unauthorized())
                    .accessDeniedHandler(ProblemResponses.forbidden()));
    // after authentication, so it knows a cookie's or the trial token's requests; not a bean: a
    // Filter bean would also be registered with the servlet container, outside Spring Security
    http.addFilterAfter(crossSite, BearerTokenAuthenticationFilter.class);
    return http;
  }

  /**
   * {@code Authorization: Bearer}, else {@code X-Api-Key}, else the trial cookie, else the chat
   * page's web-session cookie. The cookies count only on the API (the trial cookie on the codec and
   * actuator too) and not when asking for a new session: an expired cookie must neither break the
   * public pages nor lock its visitor out of getting a fresh one. A trial cookie from an earlier
   * start counts not at all, so the chat page goes on as its visitor.
   */
  static BearerTokenResolver tokenResolver(TrialToken trial) {
    DefaultBearerTokenResolver authorization = new DefaultBearerTokenResolver();
    return request -> {
      String token = authorization.resolve(request);
      if (token != null) {
        return token;
      }
      String key = request.getHeader(API_KEY_HEADER);
      if (key != null && !key.isBlank()) {
        return key.trim();
      }
      String path =
          UrlPathHelper.defaultInstance.getPathWithinApplication(request); // decoded, as matched
      if (path.equals(WebSessionController.PATH)) {
        return null;
      }
      if (path.startsWith("/api/") || path.startsWith("/codec/") || path.startsWith("/actuator/")) {
        String trialCookie = trial.validCookie(request).orElse(null);
        if (trialCookie != null) {
          return trialCookie;
        }
      }
      return path.startsWith("/api/") ? WebSessions.cookieOf(request).orElse(null) : null;
    };
  }
}
