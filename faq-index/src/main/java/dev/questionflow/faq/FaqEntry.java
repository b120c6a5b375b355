package dev.questionflow.faq;

import java.util.List;
import java.util.Objects;

/**
 * One FAQ entry of a pack: a standard question with its standard answer, plus the user phrasings
 * and keywords that the matchers index.
 *
 * @param id unique id inside the pack (for BANKING77 the intent label)
 * @param question the standard question
 * @param answer the standard answer, shown as is
 * @param phrasings real user phrasings of the question (may be empty)
 * @param keywords salient terms (may be empty)
 * @param category coarse group, or {@code null}
 */
public record FaqEntry(
    String id,
    String question,
    String answer,
    List<String> phrasings,
    List<String> keywords,
    String category) {

  public FaqEntry {
    Objects.requireNonNull(id, "id");
    Objects.requireNonNull(question, "question");
    Objects.requireNonNull(answer, "answer");
    phrasings = phrasings == null ? List.of() : List.copyOf(phrasings);
    keywords = keywords == null ? List.of() : List.copyOf(keywords);
  }
}
