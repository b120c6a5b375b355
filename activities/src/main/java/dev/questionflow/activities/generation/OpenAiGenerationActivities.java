package dev.questionflow.activities.generation;

import dev.langchain4j.data.message.SystemMessage;
import dev.langchain4j.data.message.UserMessage;
import dev.langchain4j.exception.NonRetriableException;
import dev.langchain4j.model.chat.ChatModel;
import dev.langchain4j.model.chat.response.ChatResponse;
import dev.langchain4j.model.openai.OpenAiChatModel;
import dev.questionflow.workflows.generation.GenerationActivities;
import dev.questionflow.workflows.generation.GenerationRequest;
import dev.questionflow.workflows.generation.GenerationResult;
import io.temporal.failure.ApplicationFailure;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Generation through langchain4j's OpenAI-compatible client (OpenAI, Qwen/DashScope, vLLM, Ollama...). The
 * client's own retries are off: Temporal's retry policy is the only retry loop.
 */
public class OpenAiGenerationActivities implements GenerationActivities {

  private static final Logger log = LoggerFactory.getLogger(OpenAiGenerationActivities.class);

  private final ModelSettings settings;
  private final ChatModel model;

  public OpenAiGenerationActivities(ModelSettings settings) {
    this.settings = settings;
    this.model =
        settings.configured()
            ? OpenAiChatModel.builder()
                .baseUrl(settings.baseUrl())
                .apiKey(settings.apiKey() == null || settings.apiKey().isBlank() ? "none" : settings.apiKey())
                .modelName(settings.modelName())
                .timeout(settings.timeout())
                .maxRetries(0)
                .build()
            : null;
    if (model == null) {
      log.info("LLM_BASE_URL is not set: the generation stage reports 'not configured' and answers come from the FAQ");
    }
  }

  @Override
  public GenerationResult generateAnswer(GenerationRequest request) {
    if (model == null) {
      return GenerationResult.notConfigured();
    }
    ChatResponse response;
    try {
      response =
          model.chat(
              SystemMessage.from(PromptBuilder.systemPrompt(settings.companyName(), request.knowledge())),
              UserMessage.from(request.question()));
    } catch (NonRetriableException e) {
      // bad request, auth, content policy, unknown model: retrying cannot help
      throw ApplicationFailure.newNonRetryableFailureWithCause(
          e.getMessage(), e.getClass().getSimpleName(), e);
    }
    String text = response.aiMessage() == null ? null : response.aiMessage().text();
    if (text == null || text.isBlank()) {
      throw ApplicationFailure.newFailure("the model returned an empty answer", "EmptyModelOutput");
    }
    return new GenerationResult(GenerationResult.Outcome.ANSWERED, text.strip(), settings.modelName());
  }
}
