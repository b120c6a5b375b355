package dev.questionflow.api.web;

import org.springframework.boot.jackson.autoconfigure.JsonMapperBuilderCustomizer;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import tools.jackson.databind.DeserializationFeature;
import tools.jackson.databind.cfg.CoercionAction;
import tools.jackson.databind.cfg.CoercionInputShape;
import tools.jackson.databind.cfg.MutableCoercionConfig;
import tools.jackson.databind.type.LogicalType;

/**
 * A number or boolean where the API expects text, a number or text where it expects a boolean
 * ({@code "upgrade": 2}), or a field the API does not know (a typo, or an {@code agent} on a ticket
 * reply that the server takes from the signed-in identity), is a client error (400), not something
 * to coerce or drop silently.
 */
@Configuration(proxyBeanMethods = false)
class StrictJsonConfig {

  @Bean
  JsonMapperBuilderCustomizer noScalarToTextCoercion() {
    return builder ->
        builder
            .enable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
            .withCoercionConfig(
                LogicalType.Textual,
                config ->
                    refuse(
                        config,
                        CoercionInputShape.Integer,
                        CoercionInputShape.Float,
                        CoercionInputShape.Boolean))
            .withCoercionConfig(
                LogicalType.Boolean,
                config ->
                    refuse(
                        config,
                        CoercionInputShape.Integer,
                        CoercionInputShape.Float,
                        CoercionInputShape.String));
  }

  private static void refuse(MutableCoercionConfig config, CoercionInputShape... shapes) {
    for (CoercionInputShape shape : shapes) {
      config.setCoercion(shape, CoercionAction.Fail);
    }
  }
}
