package dev.questionflow.api.security;

import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.get;

import org.springframework.boot.test.context.TestConfiguration;
import org.springframework.boot.webmvc.test.autoconfigure.MockMvcBuilderCustomizer;
import org.springframework.context.annotation.Bean;

/**
 * For API tests on the embedded default (trial mode): every MockMvc request presents this start's
 * trial token, as bin/run's users do ({@code Authorization: Bearer $(cat data/trial-token)}); a
 * request's own Authorization header replaces it.
 */
@TestConfiguration(proxyBeanMethods = false)
public class TrialTokenRequests {

  @Bean
  MockMvcBuilderCustomizer trialTokenOnEveryRequest(TrialToken trial) {
    return builder ->
        builder.defaultRequest(get("/").header("Authorization", "Bearer " + trial.value()));
  }
}
