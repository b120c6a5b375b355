package dev.questionflow.api.web;

import io.swagger.v3.oas.annotations.OpenAPIDefinition;
import io.swagger.v3.oas.annotations.enums.SecuritySchemeType;
import io.swagger.v3.oas.annotations.info.Info;
import io.swagger.v3.oas.annotations.security.SecurityRequirement;
import io.swagger.v3.oas.annotations.security.SecurityScheme;
import io.swagger.v3.oas.annotations.servers.Server;
import io.swagger.v3.oas.models.Operation;
import io.swagger.v3.oas.models.headers.Header;
import io.swagger.v3.oas.models.media.ArraySchema;
import io.swagger.v3.oas.models.media.Content;
import io.swagger.v3.oas.models.media.IntegerSchema;
import io.swagger.v3.oas.models.media.MediaType;
import io.swagger.v3.oas.models.media.ObjectSchema;
import io.swagger.v3.oas.models.media.Schema;
import io.swagger.v3.oas.models.media.StringSchema;
import io.swagger.v3.oas.models.responses.ApiResponse;
import io.swagger.v3.oas.models.responses.ApiResponses;
import io.swagger.v3.oas.models.tags.Tag;
import java.util.Comparator;
import org.springdoc.core.customizers.OpenApiCustomizer;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * The API description springdoc serves (SWAGGER_UI_ENABLED) and docs/openapi.json holds: who may
 * call, and the problem+json answers that the exception handler, the security and limit filters and
 * the body-size filter give outside any controller method, where springdoc cannot see them.
 */
@Configuration(proxyBeanMethods = false)
@OpenAPIDefinition(
    info =
        @Info(
            title = "questionflow",
            version = "v1",
            description =
                "Every customer question is a durable workflow: ask, get its workflow ID at once,"
                    + " then follow its status until it is answered (docs/api.md)."),
    // relative: the address this document was fetched from (Swagger UI), a client's own otherwise
    servers = @Server(url = "/", description = "this instance"),
    security = @SecurityRequirement(name = ApiDescription.BEARER))
@SecurityScheme(
    name = ApiDescription.BEARER,
    type = SecuritySchemeType.HTTP,
    scheme = "bearer",
    description =
        "An API key (CALLER_API_KEYS, STAFF_API_KEYS, ADMIN_API_KEY) or a staff/admin OIDC token")
class ApiDescription {

  static final String BEARER = "bearer";
  static final String PROBLEM = "Problem";
  private static final String PROBLEM_REF = "#/components/schemas/" + PROBLEM;

  @Bean
  OpenApiCustomizer problemResponses() {
    return openApi -> {
      openApi.getComponents().addSchemas(PROBLEM, problemSchema());
      if (openApi.getTags() != null) { // in the order the controllers were found otherwise
        openApi.getTags().sort(Comparator.comparing(Tag::getName));
      }
      openApi
          .getPaths()
          .forEach(
              (path, item) ->
                  item.readOperations().forEach(operation -> addProblems(path, operation)));
    };
  }

  /** The refusals an operation may meet, each unless the operation already describes it. */
  private static void addProblems(String path, Operation operation) {
    ApiResponses responses = operation.getResponses();
    boolean hasBody = operation.getRequestBody() != null;
    boolean hasParameters =
        operation.getParameters() != null && !operation.getParameters().isEmpty();
    // an explicitly empty requirement: open to anyone (the chat page's web session)
    boolean needsCredentials =
        operation.getSecurity() == null || !operation.getSecurity().isEmpty();
    if (hasBody || hasParameters) {
      add(responses, "400", "Invalid request: the problem names the field (errors)");
    }
    if (needsCredentials) {
      add(responses, "401", "No valid credentials");
    }
    add(responses, "403", "The credentials lack the role, or a request from another site");
    if (path.contains("{")) {
      add(responses, "404", "No such resource, or another owner's");
    }
    if (hasBody) {
      add(responses, "413", "The body is over the size limit");
      add(responses, "415", "The body is not JSON");
    }
    ApiResponse tooMany =
        add(responses, "429", "Over a limit (per user, per IP or failed sign-ins): retry later");
    if (tooMany.getHeaders() == null || !tooMany.getHeaders().containsKey("Retry-After")) {
      tooMany.addHeaderObject(
          "Retry-After",
          new Header()
              .description("seconds until a retry may succeed")
              .schema(new IntegerSchema()));
    }
  }

  private static ApiResponse add(ApiResponses responses, String code, String description) {
    ApiResponse existing = responses.get(code);
    if (existing != null) {
      return existing;
    }
    ApiResponse response =
        new ApiResponse()
            .description(description)
            .content(
                new Content()
                    .addMediaType(
                        org.springframework.http.MediaType.APPLICATION_PROBLEM_JSON_VALUE,
                        new MediaType().schema(new Schema<>().$ref(PROBLEM_REF))));
    responses.addApiResponse(code, response);
    return response;
  }

  /** RFC 9457 problem details as ApiExceptionHandler and ProblemResponses write them. */
  @SuppressWarnings("rawtypes")
  private static Schema problemSchema() {
    Schema fieldError =
        new ObjectSchema()
            .addProperty("field", new StringSchema())
            .addProperty("message", new StringSchema());
    return new ObjectSchema()
        .description("RFC 9457 problem details: what was wrong, never a stack trace")
        .addProperty("type", new StringSchema().example("about:blank"))
        .addProperty("title", new StringSchema())
        .addProperty("status", new IntegerSchema())
        .addProperty("detail", new StringSchema())
        .addProperty("instance", new StringSchema())
        .addProperty(
            "errors", new ArraySchema().items(fieldError).description("400: the fields at fault"))
        .addProperty(
            "limit", new StringSchema().description("429: the limit hit, e.g. failed-auth"))
        .addProperty(
            "retryAfterSeconds",
            new IntegerSchema().format("int64").description("429: as Retry-After"));
  }
}
