package dev.questionflow.activities.generation;

import dev.langchain4j.data.message.AiMessage;
import dev.langchain4j.data.message.ChatMessage;
import dev.langchain4j.data.message.SystemMessage;
import dev.langchain4j.data.message.UserMessage;
import dev.questionflow.activities.privacy.Redactor;
import dev.questionflow.activities.session.Turn;
import dev.questionflow.workflows.retrieval.FaqHit;
import java.util.ArrayList;
import java.util.List;

/**
 * Builds the grounded system prompt from the retrieved FAQ entries, and the messages of one model
 * call. Every text from a conversation passes the {@link Redactor} here, the one place where it
 * becomes prompt text, so no personal data leaves for the model (history turns stored before
 * redaction existed included).
 */
final class PromptBuilder {

  private final String companyName;
  private final Redactor redactor;

  PromptBuilder(String companyName, Redactor redactor) {
    this.companyName = companyName;
    this.redactor = redactor;
  }

  /**
   * The system prompt, then the session's previous turns (oldest first) as user / assistant
   * messages, then the question.
   */
  List<ChatMessage> messages(List<FaqHit> knowledge, List<Turn> history, String question) {
    List<ChatMessage> messages = new ArrayList<>(2 + 2 * history.size());
    messages.add(SystemMessage.from(systemPrompt(knowledge)));
    for (Turn turn : history) {
      if (turn.question() == null
          || turn.question().isBlank()
          || turn.answer() == null
          || turn.answer().isBlank()) {
        continue;
      }
      messages.add(UserMessage.from(redactor.redact(turn.question())));
      messages.add(AiMessage.from(redactor.redact(turn.answer())));
    }
    messages.add(UserMessage.from(redactor.redact(question)));
    return messages;
  }

  String systemPrompt(List<FaqHit> knowledge) {
    StringBuilder prompt =
        new StringBuilder()
            .append("You are the customer service assistant of ")
            .append(companyName)
            .append(
                ". Answer the customer's question briefly, politely and in the customer's language.");
    if (knowledge.isEmpty()) {
      prompt.append(" If you are not sure, say so and offer to pass the question to a colleague.");
      return prompt.toString();
    }
    prompt.append(
        " Base your answer on the knowledge below. If it does not cover the question, say you are not sure."
            + "\n\nKnowledge:");
    for (FaqHit hit : knowledge) {
      prompt
          .append("\n[FAQ ")
          .append(hit.faqId())
          .append("] Q: ")
          .append(hit.question())
          .append("\nA: ")
          .append(hit.answer());
    }
    return prompt.toString();
  }
}
