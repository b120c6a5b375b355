package dev.questionflow.api.config;

import dev.questionflow.activities.generation.ModelSettings;
import dev.questionflow.activities.generation.OpenAiGenerationActivities;
import dev.questionflow.activities.intent.RuleIntentActivities;
import dev.questionflow.activities.retrieval.FaqRetrievalActivities;
import dev.questionflow.activities.template.FaqTemplateActivities;
import dev.questionflow.activities.ticket.HelpdeskWebhook;
import dev.questionflow.activities.ticket.InboxTicketActivities;
import dev.questionflow.activities.ticket.TicketInbox;
import dev.questionflow.faq.FaqPack;
import dev.questionflow.faq.FaqPacks;
import dev.questionflow.faq.KeywordFaqIndex;
import java.nio.file.Path;
import java.time.Clock;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/** The five activity implementations, registered on the worker by bean name in application.yml. */
@Configuration(proxyBeanMethods = false)
class ActivitiesConfig {

  private static final Logger log = LoggerFactory.getLogger(ActivitiesConfig.class);

  @Bean
  FaqPack faqPack(CsProperties properties) {
    FaqPack pack = FaqPacks.loadFromClasspath(properties.faq().pack());
    log.info("FAQ pack {} loaded: {} entries", pack.id(), pack.entries().size());
    return pack;
  }

  @Bean(destroyMethod = "close")
  KeywordFaqIndex keywordFaqIndex(FaqPack pack, CsProperties properties) {
    String dir = properties.faq().indexDir();
    if (dir == null || dir.isBlank()) {
      return KeywordFaqIndex.build(pack);
    }
    return KeywordFaqIndex.open(pack, Path.of(dir).resolve(pack.id()).resolve("keyword"));
  }

  @Bean
  RuleIntentActivities intentActivities(FaqPack pack, KeywordFaqIndex index) {
    return new RuleIntentActivities(pack, index);
  }

  @Bean
  FaqRetrievalActivities retrievalActivities(KeywordFaqIndex index) {
    return new FaqRetrievalActivities(null, index);
  }

  @Bean
  OpenAiGenerationActivities generationActivities(CsProperties properties) {
    CsProperties.Llm llm = properties.llm();
    return new OpenAiGenerationActivities(
        new ModelSettings(llm.baseUrl(), llm.apiKey(), llm.model(), llm.timeout(), llm.companyName()));
  }

  @Bean
  FaqTemplateActivities templateActivities(FaqPack pack) {
    return new FaqTemplateActivities(pack);
  }

  @Bean
  InboxTicketActivities ticketActivities(TicketInbox inbox, CsProperties properties) {
    CsProperties.Tickets tickets = properties.tickets();
    Optional<HelpdeskWebhook> helpdesk =
        Optional.ofNullable(tickets.webhookUrl())
            .filter(url -> !url.toString().isBlank())
            .map(url -> new HelpdeskWebhook(url, tickets.webhookTimeout()));
    return new InboxTicketActivities(inbox, helpdesk, Clock.systemUTC());
  }
}
