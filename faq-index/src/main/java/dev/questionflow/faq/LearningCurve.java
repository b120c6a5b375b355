package dev.questionflow.faq;

import dev.questionflow.faq.FaqEvaluation.LabeledQuestion;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.Set;
import java.util.function.Consumer;

/**
 * The FAQ level learning from tickets ({@code bin/faq learn-curve}): a matcher starts from a few
 * phrasings per entry, unseen questions are replayed in order, and every question it abstains on or
 * answers with the wrong entry becomes a ticket that a simulated staff member files as a phrasing
 * of its true entry. Filing goes through the overlay the app's staff replies use ({@link
 * FaqOverlay}, applied with the matcher's own {@code apply}, as {@code LiveFaq} does after {@code
 * learn: asPhrasingOf}), so the curve measures the app's learning, not a rebuilt index.
 */
public final class LearningCurve {

  /**
   * One block of the replay.
   *
   * @param first 1-based position of the block's first question in the stream
   * @param questions questions in the block
   * @param correct answered with the right entry (the FAQ-level hits)
   * @param answered answered at all (right or wrong); the rest were abstained on
   * @param learned phrasings filed from the block's tickets
   */
  public record Block(int first, int questions, int correct, int answered, int learned) {
    public double hitRate() {
      return questions == 0 ? Double.NaN : correct / (double) questions;
    }

    public double answerRate() {
      return questions == 0 ? Double.NaN : answered / (double) questions;
    }
  }

  /**
   * A replayed stream.
   *
   * @param alreadyKnown tickets not filed because the question already is a phrasing of its entry
   *     (the staff API refuses those too)
   */
  public record Result(List<Block> blocks, int learned, int alreadyKnown, long millis) {
    public int questions() {
      return blocks.stream().mapToInt(Block::questions).sum();
    }

    public int correct() {
      return blocks.stream().mapToInt(Block::correct).sum();
    }

    public double hitRate() {
      return questions() == 0 ? Double.NaN : correct() / (double) questions();
    }
  }

  /** A matcher and how it takes an overlay (its {@code apply}, as the app's {@code LiveFaq}). */
  public record Learner(FaqMatcher matcher, Consumer<FaqOverlay> applier, Runnable closer)
      implements AutoCloseable {

    void apply(FaqOverlay overlay) {
      applier.accept(overlay);
    }

    @Override
    public void close() {
      closer.run();
    }
  }

  private LearningCurve() {}

  /**
   * The pack with only the first {@code phrasings} phrasings of each entry (in pack order, which
   * for BANKING77 is the order of its training file, not a curated choice); questions, answers and
   * keywords stay.
   */
  public static FaqPack startingPack(FaqPack pack, int phrasings) {
    List<FaqEntry> entries = new ArrayList<>();
    for (FaqEntry e : pack.entries()) {
      List<String> kept = e.phrasings().subList(0, Math.min(phrasings, e.phrasings().size()));
      entries.add(new FaqEntry(e.id(), e.question(), e.answer(), kept, e.keywords(), e.category()));
    }
    return pack.withEntries(entries);
  }

  /**
   * The pack's phrasings that {@link #startingPack} leaves out, as labelled questions in a seeded
   * shuffle: unseen by the starting matcher, so they can be replayed like customer questions.
   */
  public static List<LabeledQuestion> remainingPhrasings(FaqPack pack, int phrasings, long seed) {
    List<LabeledQuestion> rest = new ArrayList<>();
    for (FaqEntry e : pack.entries()) {
      Set<String> start = new HashSet<>();
      e.phrasings().stream().limit(phrasings).forEach(p -> start.add(key(p)));
      start.add(key(e.question()));
      for (String p :
          e.phrasings().subList(Math.min(phrasings, e.phrasings().size()), e.phrasings().size())) {
        if (!start.contains(key(p))) {
          rest.add(new LabeledQuestion(p, e.id()));
        }
      }
    }
    Collections.shuffle(rest, new Random(seed));
    return rest;
  }

  /**
   * The level's matcher over the pack, built in memory with the pack's calibration; the semantic
   * level embeds through the on-disk cache of {@code embeddingCache} (pack and evaluation texts
   * only, as {@code bin/faq calibrate} does), which is saved when the learner is closed.
   */
  public static Learner learner(FaqPack pack, String level, Path embeddingCache) {
    if ("keyword".equals(level)) {
      KeywordFaqIndex keyword = KeywordFaqIndex.build(pack);
      return new Learner(keyword, keyword::apply, keyword::close);
    }
    CachingEmbedder embedder = CachingEmbedder.of(pack, embeddingCache);
    SemanticFaqIndex semantic =
        SemanticFaqIndex.build(
            pack, embedder, SemanticSettings.forPack(pack.id(), embedder.modelId()), false);
    return new Learner(
        semantic,
        semantic::apply,
        () -> {
          semantic.close();
          embedder.save();
        });
  }

  /**
   * Replays the questions in order through {@code matcher.best}; after each ticket (abstained or
   * wrong) the whole overlay learned so far is applied, as {@code LiveFaq} applies the change log.
   *
   * @param start the pack the matcher was built from (to tell which texts it already has)
   * @param block questions per block (the last block may be shorter)
   * @param learn false: tickets are not filed, so the matcher stays as it started (the baseline
   *     that tells learning from blocks that are merely easier)
   * @throws IllegalArgumentException when a question's label is not an entry of the pack
   */
  public static Result replay(
      Learner learner, FaqPack start, List<LabeledQuestion> questions, int block, boolean learn) {
    Map<String, Set<String>> known = new HashMap<>();
    for (FaqEntry e : start.entries()) {
      Set<String> texts = new HashSet<>();
      texts.add(key(e.question()));
      e.phrasings().forEach(p -> texts.add(key(p)));
      known.put(e.id(), texts);
    }
    for (LabeledQuestion q : questions) {
      if (!known.containsKey(q.faqId())) {
        throw new IllegalArgumentException(
            "question '"
                + q.text()
                + "' is labelled '"
                + q.faqId()
                + "', not an entry of pack "
                + start.id());
      }
    }
    long started = System.nanoTime();
    List<FaqOverlay.Phrasing> learned = new ArrayList<>();
    List<Block> blocks = new ArrayList<>();
    int alreadyKnown = 0;
    for (int from = 0; from < questions.size(); from += block) {
      int to = Math.min(questions.size(), from + block);
      int correct = 0;
      int answered = 0;
      int learnedBefore = learned.size();
      for (LabeledQuestion q : questions.subList(from, to)) {
        Optional<FaqMatch> best = learner.matcher().best(q.text());
        answered += best.isPresent() ? 1 : 0;
        if (best.isPresent() && best.get().faqId().equals(q.faqId())) {
          correct++;
        } else if (learn && known.get(q.faqId()).add(key(q.text()))) {
          // the ticket: staff file the question as a phrasing of its entry, live at once
          learned.add(new FaqOverlay.Phrasing(q.faqId(), collapsed(q.text())));
          learner.apply(new FaqOverlay(List.of(), learned));
        } else if (learn) {
          alreadyKnown++;
        }
      }
      blocks.add(new Block(from + 1, to - from, correct, answered, learned.size() - learnedBefore));
    }
    return new Result(
        List.copyOf(blocks),
        learned.size(),
        alreadyKnown,
        (System.nanoTime() - started) / 1_000_000);
  }

  /** Spaces collapsed, as the staff API stores a phrasing. */
  private static String collapsed(String text) {
    return text.strip().replaceAll("\\s+", " ");
  }

  /** How the staff API tells a phrasing the entry already has: collapsed and lower-cased. */
  private static String key(String text) {
    return collapsed(text).toLowerCase(Locale.ROOT);
  }
}
