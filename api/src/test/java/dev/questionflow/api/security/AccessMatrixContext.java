package dev.questionflow.api.security;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.webmvc.test.autoconfigure.AutoConfigureMockMvc;

/**
 * The embedded default with every kind of key configured (so trial mode is off): one application
 * context, cached and shared by the tests that carry this annotation.
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@SpringBootTest(
    properties = {
      "spring.temporal.test-server.enabled=true",
      "cs.faq.index-dir=../data/faq-index",
      "cs.security.caller-api-keys=backend-a:"
          + AccessMatrixTest.KEY_A
          + ",backend-b:"
          + AccessMatrixTest.KEY_B
          + ",vip-app:"
          + AccessMatrixTest.KEY_VIP
          + ":VIP",
      "cs.security.staff-api-keys=alice:" + AccessMatrixTest.KEY_STAFF,
      "cs.security.admin-api-key=" + AccessMatrixTest.KEY_ADMIN,
      "cs.security.metrics-api-key=" + AccessMatrixTest.KEY_METRICS,
      "cs.security.workflow-id-secret=matrix-test-secret-0123456789"
    })
@AutoConfigureMockMvc
@interface AccessMatrixContext {}
