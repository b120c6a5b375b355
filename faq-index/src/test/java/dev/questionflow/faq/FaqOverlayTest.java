package dev.questionflow.faq;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Learned phrasings and entries laid over the stored indexes ({@link FaqOverlay}): the next match
 * sees them, an empty overlay takes them out again, and the stored index is never written.
 */
class FaqOverlayTest {

  /** Out of scope for a bank: every matcher abstains on it before anything is learned. */
  static final String SWALLOW = "what is the airspeed velocity of an unladen swallow";

  static final FaqOverlay SWALLOW_IS_CARD_ARRIVAL =
      new FaqOverlay(List.of(), List.of(new FaqOverlay.Phrasing("card_arrival", SWALLOW)));

  static final FaqEntry OPENING_HOURS =
      new FaqEntry(
          "branch_opening_hours",
          "When are your branches open?",
          "Our branches are open Monday to Friday, 9:00 to 17:00.",
          List.of("what time does the branch open on saturday"),
          List.of(),
          null);

  private static FaqPack pack;
  private static KeywordFaqIndex keyword;

  @TempDir static Path tmp;

  @BeforeAll
  static void open() {
    pack = FaqPacks.loadFromClasspath("banking77");
    keyword = KeywordFaqIndex.open(pack, tmp.resolve("keyword"));
  }

  @AfterAll
  static void close() {
    keyword.close();
  }

  @Test
  void aLearnedPhrasingChangesTheNextKeywordMatchAndTheEmptyOverlayTakesItBack() throws Exception {
    assertThat(keyword.best(SWALLOW)).isEmpty();
    List<byte[]> stored = storedFiles(tmp.resolve("keyword"));
    Map<String, List<String>> before = new HashMap<>();
    for (String q : OWN_QUESTIONS) {
      before.put(q, ids(keyword.search(q, 3)));
    }
    try {
      keyword.apply(SWALLOW_IS_CARD_ARRIVAL);
      assertThat(keyword.best(SWALLOW)).get().extracting(FaqMatch::faqId).isEqualTo("card_arrival");
      assertThat(keyword.best(SWALLOW).orElseThrow().entry().phrasings()).contains(SWALLOW);
      // the pack's own matches are unchanged
      for (String q : OWN_QUESTIONS) {
        assertThat(ids(keyword.search(q, 3))).as(q).isEqualTo(before.get(q));
      }
    } finally {
      keyword.apply(FaqOverlay.EMPTY);
    }
    assertThat(keyword.best(SWALLOW)).isEmpty();
    assertThat(keyword.overlay()).isEqualTo(FaqOverlay.EMPTY);
    // customer text never reaches the stored index
    assertThat(storedFiles(tmp.resolve("keyword"))).usingRecursiveComparison().isEqualTo(stored);
  }

  @Test
  void aNewEntryIsMatchedWithItsOwnAnswerAndCountedUntilItIsTakenOut() {
    assertThat(keyword.best("are your branches open saturdays")).isEmpty();
    try {
      keyword.apply(new FaqOverlay(List.of(OPENING_HOURS), List.of()));
      FaqMatch match = keyword.best("are your branches open saturdays").orElseThrow();
      assertThat(match.faqId()).isEqualTo("branch_opening_hours");
      assertThat(match.entry().answer()).startsWith("Our branches are open");
      assertThat(keyword.size()).isEqualTo(78);
    } finally {
      keyword.apply(FaqOverlay.EMPTY);
    }
    assertThat(keyword.best("are your branches open saturdays")).isEmpty();
    assertThat(keyword.size()).isEqualTo(77);
  }

  @Test
  void anOverlayThatDoesNotFitThePackIsRefusedAndTheAppliedOneStays() {
    try {
      keyword.apply(SWALLOW_IS_CARD_ARRIVAL);
      assertThatThrownBy(
              () ->
                  keyword.apply(
                      new FaqOverlay(
                          List.of(), List.of(new FaqOverlay.Phrasing("no_such_entry", "hello")))))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("no entry 'no_such_entry'");
      FaqEntry taken = new FaqEntry("card_arrival", "q", "a", List.of(), List.of(), null);
      assertThatThrownBy(() -> keyword.apply(new FaqOverlay(List.of(taken), List.of())))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("already exists");
      assertThat(keyword.overlay()).isEqualTo(SWALLOW_IS_CARD_ARRIVAL);
      assertThat(keyword.best(SWALLOW)).isPresent();
    } finally {
      keyword.apply(FaqOverlay.EMPTY);
    }
  }

  @Test
  void searchesRunningWhileOverlaysComeAndGoNeverFail() throws Exception {
    ExecutorService pool = Executors.newFixedThreadPool(3);
    AtomicBoolean done = new AtomicBoolean();
    try {
      List<Future<Integer>> searches = new ArrayList<>();
      for (int t = 0; t < 2; t++) {
        searches.add(
            pool.submit(
                () -> {
                  int n = 0;
                  while (!done.get()) {
                    // either answer is fine; a wrong document-to-entry mapping or a closed reader
                    // is not
                    keyword
                        .best(SWALLOW)
                        .ifPresent(m -> assertThat(m.faqId()).isEqualTo("card_arrival"));
                    assertThat(keyword.best("I still have not received my new card"))
                        .get()
                        .extracting(FaqMatch::faqId)
                        .isEqualTo("card_arrival");
                    n++;
                  }
                  return n;
                }));
      }
      for (int i = 0; i < 40; i++) {
        keyword.apply(i % 2 == 0 ? SWALLOW_IS_CARD_ARRIVAL : FaqOverlay.EMPTY);
      }
      done.set(true);
      for (Future<Integer> f : searches) {
        assertThat(f.get()).isPositive();
      }
    } finally {
      done.set(true);
      pool.shutdownNow();
      keyword.apply(FaqOverlay.EMPTY);
    }
  }

  @Test
  void theSemanticMatcherTakesALearnedPhrasingWithItsEmbeddingAndANewEntry() {
    // a small pack of its own (10 entries): the shared BANKING77 fixture must not change under
    // other
    // tests
    List<FaqEntry> entries =
        pack.entries().stream()
            .limit(10)
            .map(
                e ->
                    new FaqEntry(
                        e.id(),
                        e.question(),
                        e.answer(),
                        e.phrasings().stream().limit(20).toList(),
                        e.keywords(),
                        e.category()))
            .toList();
    FaqPack small =
        new FaqPack(
            pack.id(), pack.name(), pack.language(), pack.attribution(), entries, List.of());
    String target = entries.get(3).id();
    FaqOverlay learned =
        new FaqOverlay(List.of(OPENING_HOURS), List.of(new FaqOverlay.Phrasing(target, SWALLOW)));
    CachingEmbedder embedder = CachingEmbedder.of(SemanticFixtures.MODEL);
    try (SemanticFaqIndex semantic =
        SemanticFaqIndex.build(
            small, embedder, SemanticSettings.defaults(SemanticFixtures.MODEL.id()), false)) {
      assertThat(semantic.best(SWALLOW)).isEmpty();
      semantic.apply(learned);
      assertThat(semantic.keyword().overlay()).isEqualTo(learned);
      assertThat(semantic.best(SWALLOW)).get().extracting(FaqMatch::faqId).isEqualTo(target);
      assertThat(semantic.best("what time do your branches open"))
          .get()
          .extracting(FaqMatch::faqId)
          .isEqualTo("branch_opening_hours");
      assertThat(semantic.search("what time do your branches open", 20))
          .extracting(FaqMatch::faqId)
          .doesNotHaveDuplicates()
          .contains("branch_opening_hours", target);

      semantic.apply(FaqOverlay.EMPTY);
      assertThat(semantic.best(SWALLOW)).isEmpty();
      assertThat(semantic.keyword().overlay()).isEqualTo(FaqOverlay.EMPTY);
      assertThat(semantic.search("what time do your branches open", 20))
          .extracting(FaqMatch::faqId)
          .doesNotContain("branch_opening_hours");
    } finally {
      embedder.save();
    }
  }

  private static final List<String> OWN_QUESTIONS =
      List.of(
          "I still have not received my new card",
          "how do I top up by bank transfer",
          "my card payment was declined");

  private static List<String> ids(List<FaqMatch> matches) {
    return matches.stream().map(FaqMatch::faqId).toList();
  }

  private static List<byte[]> storedFiles(Path dir) throws Exception {
    try (Stream<Path> files = Files.list(dir)) {
      List<byte[]> out = new ArrayList<>();
      for (Path f : files.sorted().toList()) {
        if (!f.getFileName().toString().equals("write.lock")) {
          out.add(Files.readAllBytes(f));
        }
      }
      return out;
    }
  }
}
