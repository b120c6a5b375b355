package dev.questionflow.activities.generation;

import dev.questionflow.workflows.retrieval.FaqHit;
import java.util.List;

/** Builds the grounded system prompt from the retrieved FAQ entries. */
final class PromptBuilder {

  private PromptBuilder() {}

  static String systemPrompt(String companyName, List<FaqHit> knowledge) {
    StringBuilder prompt =
        new StringBuilder()
            .append("You are the customer service assistant of ")
            .append(companyName)
            .append(". Answer the customer's question briefly, politely and in the customer's language.");
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
