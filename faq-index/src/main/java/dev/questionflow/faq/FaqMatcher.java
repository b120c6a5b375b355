package dev.questionflow.faq;

import java.util.List;
import java.util.Optional;

/** Matches a customer question to FAQ entries of one pack. Implementations are thread-safe. */
public interface FaqMatcher {

  /** Ranked distinct FAQ entries, best first (may be weak matches). */
  List<FaqMatch> search(String text, int topK);

  /** The confident match, or empty when the matcher abstains (the question is not covered). */
  Optional<FaqMatch> best(String text);

  /** "semantic" (L3: embedding model + inverted index) or "keyword" (L4: no model at all). */
  String level();
}
