package dev.questionflow.api.config;

import dev.questionflow.activities.generation.LinkAllowList;
import dev.questionflow.activities.generation.ModelSettings;
import dev.questionflow.activities.generation.ModelUsage;
import dev.questionflow.activities.generation.OpenAiGenerationActivities;
import dev.questionflow.activities.generation.OutputChecks;
import dev.questionflow.activities.generation.PromptCanary;
import dev.questionflow.activities.generation.Safeguards;
import dev.questionflow.activities.intent.RuleIntentActivities;
import dev.questionflow.activities.lane.LaneGate;
import dev.questionflow.activities.learning.FaqChangeLog;
import dev.questionflow.activities.learning.FaqLearning;
import dev.questionflow.activities.learning.LiveFaq;
import dev.questionflow.activities.privacy.RedactionSettings;
import dev.questionflow.activities.privacy.Redactor;
import dev.questionflow.activities.resilience.DependencyBreakers;
import dev.questionflow.activities.resilience.UpstreamErrors;
import dev.questionflow.activities.retrieval.FaqRetrievalActivities;
import dev.questionflow.activities.retrieval.HotEntryCache;
import dev.questionflow.activities.session.SessionActivitiesImpl;
import dev.questionflow.activities.session.SessionStore;
import dev.questionflow.activities.session.TemporalSessionSignals;
import dev.questionflow.activities.template.FaqTemplateActivities;
import dev.questionflow.activities.ticket.HelpdeskWebhook;
import dev.questionflow.activities.ticket.InboxTicketActivities;
import dev.questionflow.activities.ticket.TicketInbox;
import dev.questionflow.api.tracing.TracingConfig;
import dev.questionflow.faq.FaqPack;
import dev.questionflow.faq.FaqPacks;
import dev.questionflow.faq.KeywordFaqIndex;
import dev.questionflow.faq.SemanticFaqIndex;
import dev.questionflow.workflows.retrieval.RetrievalActivities;
import io.micrometer.core.instrument.MeterRegistry;
import io.temporal.client.WorkflowClient;
import java.net.http.HttpClient;
import java.nio.file.Path;
import java.time.Clock;
import java.util.Optional;
import java.util.function.UnaryOperator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/** The activity implementations, registered on the worker by bean name in application.yml. */
@Configuration(proxyBeanMethods = false)
class ActivitiesConfig {

  private static final Logger log = LoggerFactory.getLogger(ActivitiesConfig.class);

  @Bean
  FaqPack faqPack(CsProperties properties) {
    FaqPack pack = FaqPacks.loadFromClasspath(properties.faq().pack());
    log.info("FAQ pack {} loaded: {} entries", pack.id(), pack.entries().size());
    return pack;
  }

  /** L4: Lucene BM25 and rules, no model, so it works even when the embedding model cannot load. */
  @Bean(destroyMethod = "close")
  KeywordFaqIndex keywordFaqIndex(FaqPack pack, CsProperties properties) {
    Optional<Path> dir = indexDir(pack, properties);
    return dir.map(d -> KeywordFaqIndex.open(pack, d.resolve("keyword")))
        .orElseGet(() -> KeywordFaqIndex.build(pack));
  }

  /**
   * L3: the embedding model + Lucene HNSW, hybrid with BM25. Empty when disabled or when the model
   * cannot load.
   */
  @Bean(destroyMethod = "close")
  SemanticMatcher semanticMatcher(
      FaqPack pack, CsProperties properties, KeywordFaqIndex keyword, MeterRegistry meters) {
    if (!properties.faq().semanticEnabled()) {
      log.warn(
          "the semantic FAQ matcher is disabled (cs.faq.semantic-enabled=false): FAQ answers come from the"
              + " keyword matcher (level KEYWORD)");
      return new SemanticMatcher(null);
    }
    long started = System.nanoTime();
    try {
      SemanticFaqIndex index =
          indexDir(pack, properties)
              .map(d -> SemanticFaqIndex.open(pack, d, keyword))
              .orElseGet(() -> SemanticFaqIndex.build(pack));
      log.info(
          "semantic FAQ matcher ready for pack {} with model {} in {} ms",
          pack.id(),
          index.modelId(),
          (System.nanoTime() - started) / 1_000_000);
      // intent detection and retrieval match the same question, and customers repeat the common
      // ones: each is matched once per FAQ revision
      index.withMatchCache(properties.faq().matchCacheQuestions());
      FaqMatchCacheMetrics.register(index, meters);
      return new SemanticMatcher(index);
    } catch (RuntimeException | LinkageError e) {
      log.error(
          "the semantic FAQ matcher could not start, answering from the keyword matcher (level KEYWORD)",
          e);
      return new SemanticMatcher(null);
    }
  }

  /**
   * Holder, because a bean cannot be null: {@code index} is null when the semantic level is
   * unavailable.
   */
  record SemanticMatcher(SemanticFaqIndex index) implements AutoCloseable {
    @Override
    public void close() {
      if (index != null) {
        index.close();
      }
    }
  }

  private static Optional<Path> indexDir(FaqPack pack, CsProperties properties) {
    String dir = properties.faq().indexDir();
    return dir == null || dir.isBlank()
        ? Optional.empty()
        : Optional.of(Path.of(dir).resolve(pack.id()));
  }

  /**
   * One redactor for every text that leaves for the model or is stored: prompts, session history,
   * tickets and the helpdesk payload, answers.
   */
  @Bean
  Redactor redactor(CsProperties properties) {
    RedactionSettings settings =
        properties.privacy() == null || properties.privacy().redaction() == null
            ? RedactionSettings.ALL
            : properties.privacy().redaction().settings();
    log.info(
        "redacting {} before text leaves for the model or is stored; {} allow-listed values",
        settings.kinds().isEmpty() ? "nothing" : settings.kinds(),
        settings.allow().size());
    return new Redactor(settings);
  }

  @Bean
  RuleIntentActivities intentActivities(
      FaqPack pack,
      SemanticMatcher semantic,
      KeywordFaqIndex keyword,
      OpenAiGenerationActivities generation) {
    return new RuleIntentActivities(
        pack, semantic.index() != null ? semantic.index() : keyword, generation::modelsDown);
  }

  /**
   * semantic (EMBEDDING breaker) -> keyword -> hot-entry cache, each with its own time limit
   * (cs.resilience.retrieval).
   */
  @Bean // FaqRetrievalActivities is AutoCloseable: Spring infers close() when it is the instance
  RetrievalActivities retrievalActivities(
      SemanticMatcher semantic,
      KeywordFaqIndex keyword,
      CsProperties properties,
      DependencyBreakers breakers,
      UpstreamErrors errors,
      HotEntryCache hotCache) {
    if (properties.drills() != null
        && properties.drills().isDown(ResilienceConfig.RETRIEVAL_DRILL)) {
      log.warn(
          "DRILL: the retrieval stage is forced down (cs.drills.down); answers come without knowledge");
      return request -> {
        throw io.temporal.failure.ApplicationFailure.newFailure(
            "drill: retrieval is forced down (cs.drills.down)", FaqRetrievalActivities.UNAVAILABLE);
      };
    }
    CsProperties.Resilience.Retrieval r = retrieval(properties);
    FaqRetrievalActivities.Timeouts defaults = FaqRetrievalActivities.Timeouts.DEFAULT;
    return new FaqRetrievalActivities(
        semantic.index(),
        keyword,
        new FaqRetrievalActivities.Timeouts(
            r.semanticTimeout() != null ? r.semanticTimeout() : defaults.semantic(),
            r.keywordTimeout() != null ? r.keywordTimeout() : defaults.keyword()),
        hotCache,
        breakers,
        errors);
  }

  /**
   * The primary model (cs.llm) and the optional backup (cs.llm.backup), each behind its own circuit
   * breaker; on a lane's task queue each call passes the lane's gate (throttle and ledger). The
   * prompt is redacted and fenced, carries the canary, and answers pass the output checks (prompt
   * leak, foreign links).
   */
  @Bean
  OpenAiGenerationActivities generationActivities(
      CsProperties properties,
      DependencyBreakers breakers,
      UpstreamErrors errors,
      SessionStore sessions,
      LaneGate laneGate,
      Safeguards safeguards,
      ObjectProvider<TracingConfig.ModelHttpTracing> tracing,
      ModelUsage usage) {
    CsProperties.Llm llm = properties.llm();
    // with tracing on (TracingConfig) every model call is a client span and carries traceparent
    UnaryOperator<HttpClient> httpClients =
        tracing
            .getIfAvailable(() -> new TracingConfig.ModelHttpTracing(UnaryOperator.identity()))
            .wrap();
    ModelSettings primary =
        new ModelSettings(
            llm.baseUrl(),
            llm.apiKey(),
            llm.model(),
            llm.timeout(),
            llm.companyName(),
            llm.maxTokens(),
            httpClients);
    CsProperties.Llm.Backup b = llm.backup();
    ModelSettings backup =
        b == null
            ? null
            : new ModelSettings(
                b.baseUrl(),
                b.apiKey(),
                b.model(),
                b.timeout() != null ? b.timeout() : llm.timeout(),
                llm.companyName(),
                llm.maxTokens(),
                httpClients);
    return new OpenAiGenerationActivities(
        primary,
        backup,
        new dev.questionflow.activities.generation.RateLimitPolicy(
            llm.rateLimitDefaultDelay(), llm.rateLimitMaxDelay()),
        breakers,
        errors,
        sessions,
        laneGate,
        safeguards,
        usage);
  }

  /** One canary and one allow-list for the model's answers and for answers staff teach the FAQ. */
  @Bean
  Safeguards safeguards(Redactor redactor, CsProperties properties) {
    CsProperties.Llm llm = properties.llm();
    return new Safeguards(redactor, promptCanary(llm), allowedLinks(llm));
  }

  private static LinkAllowList allowedLinks(CsProperties.Llm llm) {
    LinkAllowList links = new LinkAllowList(llm.allowedLinkHosts());
    log.info(
        "answers may link to {} (cs.llm.allowed-link-hosts); an answer with any other link is"
            + " rejected",
        links.hosts().isEmpty() ? "no host" : links.hosts());
    return links;
  }

  private static PromptCanary promptCanary(CsProperties.Llm llm) {
    if (llm.promptCanary() != null && !llm.promptCanary().isBlank()) {
      return PromptCanary.of(llm.promptCanary());
    }
    // the value itself is never logged: an answer or a log line that shows it is a leak
    log.info(
        "cs.llm.prompt-canary (PROMPT_CANARY) is not set: generated a random prompt canary for this"
            + " process");
    return PromptCanary.random();
  }

  /** Learned entries included: a question matched to one is answered with the staff reply. */
  @Bean
  FaqTemplateActivities templateActivities(LiveFaq live) {
    return new FaqTemplateActivities(live.basePack().id(), live::entry);
  }

  /**
   * The pack with what staff learned from tickets, laid over both matchers; the whole change log is
   * applied before the worker starts taking questions, then polled (cs.faq.learning.poll-interval).
   */
  @Bean(destroyMethod = "close")
  LiveFaq liveFaq(
      FaqPack pack,
      KeywordFaqIndex keyword,
      SemanticMatcher semantic,
      FaqChangeLog changes,
      HotEntryCache hotCache,
      Safeguards safeguards,
      CsProperties properties,
      MeterRegistry meters) {
    return new LiveFaq(
            pack,
            keyword,
            semantic.index(),
            changes,
            hotCache::clear,
            new OutputChecks(safeguards)::rejection)
        .start(properties.faq().learningPollInterval(), meters);
  }

  @Bean
  FaqLearning faqLearning(LiveFaq live, Redactor redactor, MeterRegistry meters) {
    return new FaqLearning(live, redactor, Clock.systemUTC(), meters);
  }

  /** The last retrieval fallback; cleared whenever the learned pack changes. */
  @Bean
  HotEntryCache hotEntryCache(CsProperties properties) {
    CsProperties.Resilience.Retrieval r = retrieval(properties);
    return new HotEntryCache(
        r.hotCacheQuestions() != null ? r.hotCacheQuestions() : 1000,
        r.hotCacheEntries() != null ? r.hotCacheEntries() : 100);
  }

  private static CsProperties.Resilience.Retrieval retrieval(CsProperties properties) {
    return properties.resilience() == null || properties.resilience().retrieval() == null
        ? new CsProperties.Resilience.Retrieval(null, null, null, null)
        : properties.resilience().retrieval();
  }

  @Bean
  InboxTicketActivities ticketActivities(
      TicketInbox inbox,
      CsProperties properties,
      DependencyBreakers breakers,
      UpstreamErrors errors,
      Redactor redactor) {
    CsProperties.Tickets tickets = properties.tickets();
    Optional<HelpdeskWebhook> helpdesk =
        Optional.ofNullable(tickets.webhookUrl())
            .filter(url -> !url.toString().isBlank())
            .map(
                url ->
                    new HelpdeskWebhook(
                        url,
                        tickets.webhookTimeout(),
                        tickets.webhookSecret(),
                        Boolean.TRUE.equals(tickets.webhookAllowPlainHttp())));
    return new InboxTicketActivities(
        inbox, helpdesk, Clock.systemUTC(), redactor, breakers, errors);
  }

  /**
   * Per-session order: JoinSession / FinishSessionTurn; the next question is signalled through the
   * Temporal client (resolved lazily, at the first signal).
   */
  @Bean
  SessionActivitiesImpl sessionActivities(
      SessionStore sessions, ObjectProvider<WorkflowClient> client, Redactor redactor) {
    return new SessionActivitiesImpl(
        sessions, new TemporalSessionSignals(client::getObject), redactor);
  }
}
