package dev.questionflow.bench.naive;

import dev.langchain4j.model.chat.ChatModel;
import dev.langchain4j.model.openai.OpenAiChatModel;
import dev.questionflow.faq.FaqMatcher;
import dev.questionflow.faq.FaqPack;
import dev.questionflow.faq.FaqPacks;
import dev.questionflow.faq.KeywordFaqIndex;
import dev.questionflow.faq.SemanticFaqIndex;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.context.event.ApplicationReadyEvent;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.event.EventListener;

/**
 * The naive peer of the benchmark (not part of the product): a small synchronous Spring Boot app
 * that calls the model inside the HTTP request, on Tomcat's default thread pool (200 threads, no
 * custom executor, no virtual threads), and answers from the product's FAQ matcher only when that
 * call fails. A fair naive design, not a straw man: the same model client and the same FAQ matcher
 * as the product, without Temporal, breakers, lanes or budgets.
 *
 * <p>No security at all: it is a benchmark peer listening on loopback, never deployed.
 *
 * <p>Environment: {@code LLM_BASE_URL} (required), {@code LLM_API_KEY} (default {@code none}),
 * {@code LLM_MODEL} (default {@code qwen-plus}, the product's), {@code FAQ_PACK} (default {@code
 * banking77}, the product's), {@code SERVER_PORT} or {@code --server.port} (default 8080).
 */
@SpringBootApplication
public class NaiveBotApplication {

  private static final Logger log = LoggerFactory.getLogger(NaiveBotApplication.class);

  /**
   * langchain4j's default for {@code OpenAiChatModel.builder().maxRetries(...)} when it is not set:
   * 2 retries, so up to 3 attempts per question (500 ms then ~750 ms backoff, jittered) on a
   * timeout, a 5xx or a 429; 4xx errors are not retried. A naive team leaves the default, so the
   * builder below does not set it; the constant only documents it (and the startup line reports
   * it).
   */
  static final int LANGCHAIN4J_DEFAULT_MAX_RETRIES = 2;

  public static void main(String[] args) {
    SpringApplication.run(NaiveBotApplication.class, args);
  }

  /** The same client class and settings as the product's primary model, timeout 30 s. */
  @Bean
  ChatModel chatModel(
      @Value("${naive.llm.base-url}") String baseUrl,
      @Value("${naive.llm.api-key}") String apiKey,
      @Value("${naive.llm.model}") String model,
      @Value("${naive.llm.timeout}") Duration timeout,
      @Value("${naive.llm.max-tokens}") int maxTokens) {
    if (baseUrl == null || baseUrl.isBlank()) {
      throw new IllegalStateException(
          "LLM_BASE_URL is not set: the naive bot needs an OpenAI-compatible model to call");
    }
    return OpenAiChatModel.builder()
        .baseUrl(baseUrl)
        .apiKey(apiKey == null || apiKey.isBlank() ? "none" : apiKey)
        .modelName(model)
        .timeout(timeout)
        // the product's cap on every call (cs.llm.max-tokens, LLM_MAX_TOKENS, 512), so both ask the
        // model for answers of the same length
        .maxTokens(maxTokens)
        // maxRetries not set: langchain4j's default, LANGCHAIN4J_DEFAULT_MAX_RETRIES (2)
        .build();
  }

  /**
   * The product's FAQ matcher, built the way the product builds it (api's ActivitiesConfig): the
   * semantic matcher (embedding model + HNSW, fused with BM25) with its match cache, and the
   * keyword matcher only when the semantic one cannot start. {@code FAQ_INDEX_DIR} set: the indexes
   * are stored there and reused, as the product's {@code cs.faq.index-dir}; unset: built in memory.
   */
  @Bean(destroyMethod = "close")
  Faq faq(
      @Value("${naive.faq.pack}") String packId,
      @Value("${naive.faq.index-dir:}") String indexDir,
      @Value("${naive.faq.match-cache-size}") int matchCacheSize) {
    FaqPack pack = FaqPacks.loadFromClasspath(packId);
    Optional<Path> dir =
        indexDir == null || indexDir.isBlank()
            ? Optional.empty()
            : Optional.of(Path.of(indexDir).resolve(pack.id()));
    KeywordFaqIndex keyword =
        dir.map(d -> KeywordFaqIndex.open(pack, d.resolve("keyword")))
            .orElseGet(() -> KeywordFaqIndex.build(pack));
    try {
      SemanticFaqIndex semantic =
          dir.map(d -> SemanticFaqIndex.open(pack, d, keyword))
              .orElseGet(() -> SemanticFaqIndex.build(pack));
      semantic.withMatchCache(matchCacheSize);
      return new Faq(pack, semantic, semantic, keyword);
    } catch (RuntimeException | LinkageError e) {
      log.warn("the semantic FAQ matcher could not start, answering from the keyword matcher", e);
      return new Faq(pack, keyword, null, keyword);
    }
  }

  /** The FAQ matcher answering, and the indexes to close. */
  record Faq(FaqPack pack, FaqMatcher matcher, SemanticFaqIndex semantic, KeywordFaqIndex keyword)
      implements AutoCloseable {
    @Override
    public void close() {
      if (semantic != null) {
        semantic.close();
      }
      keyword.close();
    }
  }

  /** The only log line of a run (per-request logging is off: it would cost the benchmark). */
  @EventListener
  void ready(ApplicationReadyEvent event) {
    Faq faq = event.getApplicationContext().getBean(Faq.class);
    int port =
        event.getApplicationContext() instanceof WebServerApplicationContext web
            ? web.getWebServer().getPort()
            : -1;
    var env = event.getApplicationContext().getEnvironment();
    log.info(
        "naive-bot ready on port {} in {} ms: model {} at {} (timeout {}, maxRetries {} = langchain4j's"
            + " default), FAQ pack {} ({} entries, {} matcher{})",
        port,
        event.getTimeTaken() == null ? -1 : event.getTimeTaken().toMillis(),
        env.getProperty("naive.llm.model"),
        env.getProperty("naive.llm.base-url"),
        env.getProperty("naive.llm.timeout"),
        LANGCHAIN4J_DEFAULT_MAX_RETRIES,
        faq.pack().id(),
        faq.pack().entries().size(),
        faq.matcher().level(),
        faq.semantic() == null ? "" : ", model " + faq.semantic().modelId());
  }
}
