package dev.questionflow.faq;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class KeywordFaqIndexTest {

  static FaqPack pack;
  static KeywordFaqIndex index;

  @TempDir Path tmp;

  @BeforeAll
  static void build() {
    pack = FaqPacks.loadFromClasspath("banking77");
    index = KeywordFaqIndex.build(pack);
  }

  @AfterAll
  static void close() {
    index.close();
  }

  @Test
  void sizeIsTheNumberOfEntries() {
    assertThat(index.size()).isEqualTo(77);
  }

  @Test
  void answersAKnownQuestion() {
    assertThat(index.best("I still have not received my new card"))
        .get()
        .satisfies(
            m -> {
              assertThat(m.faqId()).isEqualTo("card_arrival");
              assertThat(m.entry()).isEqualTo(pack.entry("card_arrival").orElseThrow());
              assertThat(m.score()).isBetween(0.0, 1.0);
            });
  }

  @ParameterizedTest
  @CsvSource(
      delimiter = '|',
      value = {
        "How do I change my PIN? | change_pin",
        "my phone got stolen, what now | lost_or_stolen_phone",
        "I was charged twice for the same purchase | transaction_charged_twice",
        "how do I close my account | terminate_account",
        "the ATM swallowed my card | card_swallowed",
        "Can I top up with Apple Pay? | apple_pay_or_google_pay",
      })
  void answersParaphrases(String text, String id) {
    assertThat(index.best(text)).get().extracting(FaqMatch::faqId).isEqualTo(id);
  }

  @ParameterizedTest
  @CsvSource(
      delimiter = '|',
      value = {
        "What is the airspeed velocity of an unladen swallow?",
        "how do I unclog a drain",
        "who won the world cup in 2010",
        "can you help me",
        "thanks",
        "card",
      })
  void abstainsOnOutOfScopeOrContentFreeText(String text) {
    assertThat(index.best(text)).isEmpty();
  }

  @Test
  void searchRanksDistinctEntriesBestFirst() {
    List<FaqMatch> matches = index.search("my card payment was declined at the shop", 5);
    assertThat(matches).hasSize(5);
    assertThat(matches).extracting(FaqMatch::faqId).doesNotHaveDuplicates();
    assertThat(matches.get(0).faqId()).isEqualTo("declined_card_payment");
    for (int i = 1; i < matches.size(); i++) {
      assertThat(matches.get(i).score()).isLessThanOrEqualTo(matches.get(i - 1).score());
    }
    assertThat(index.search("my card payment was declined", 1)).hasSize(1);
    assertThat(index.search("my card payment was declined", 0)).isEmpty();
  }

  @Test
  void weirdInputNeverThrows() {
    Random random = new Random(7);
    StringBuilder noise = new StringBuilder();
    for (int i = 0; i < 5000; i++) {
      noise.append((char) (32 + random.nextInt(0x3000)));
    }
    List<String> inputs =
        new ArrayList<>(
            List.of(
                "",
                " ",
                "???",
                "AND OR NOT (",
                "*:*",
                "\"unbalanced",
                "a\\",
                "title:foo~2^3 [a TO b]",
                "\u0000\u0001\n\t",
                "🙂🙂🙂",
                "我的卡还没有到",
                "-",
                "+ - && || ! ( ) { } [ ] ^",
                "card ".repeat(1000),
                noise.toString(),
                "x".repeat(5000)));
    inputs.add(null);
    for (String input : inputs) {
      assertThatCode(
              () -> {
                index.search(input, 10);
                index.best(input);
              })
          .as("input %s", input == null ? "null" : input.substring(0, Math.min(30, input.length())))
          .doesNotThrowAnyException();
    }
    assertThat(index.search("", 10)).isEmpty();
    assertThat(index.search("???", 10)).isEmpty();
    assertThat(index.search(null, 10)).isEmpty();
    assertThat(index.best("???")).isEmpty();
  }

  @Test
  void stopWordOnlyTextGivesNoResults() {
    assertThat(index.search("the and of it is", 10)).isEmpty();
    assertThat(index.search("can you help me please", 10)).isEmpty();
    assertThat(index.best("hello")).isEmpty();
  }

  @Test
  void concurrentSearchesGiveTheSameResults() throws Exception {
    List<String> queries = pack.entries().stream().map(FaqEntry::question).toList();
    Map<String, List<FaqMatch>> expected = new TreeMap<>();
    for (String q : queries) {
      expected.put(q, index.search(q, 3));
    }
    ExecutorService pool = Executors.newFixedThreadPool(8);
    try {
      List<Future<Boolean>> futures = new ArrayList<>();
      for (int round = 0; round < 8; round++) {
        futures.add(
            pool.submit(
                () -> {
                  for (String q : queries) {
                    if (!index.search(q, 3).equals(expected.get(q))) {
                      return false;
                    }
                  }
                  return true;
                }));
      }
      for (Future<Boolean> f : futures) {
        assertThat(f.get()).isTrue();
      }
    } finally {
      pool.shutdownNow();
    }
  }

  @Test
  void onDiskIndexIsReusedWhenUnchangedAndRebuiltWhenThePackChanges() throws IOException {
    Path dir = tmp.resolve("index");
    Map<String, FileTime> firstFiles;
    try (KeywordFaqIndex first = KeywordFaqIndex.open(pack, dir)) {
      assertThat(first.rebuilt()).isTrue();
      assertThat(first.best("I still have not received my new card"))
          .get()
          .extracting(FaqMatch::faqId)
          .isEqualTo("card_arrival");
      firstFiles = files(dir);
    }
    assertThat(firstFiles).isNotEmpty();

    try (KeywordFaqIndex second =
        KeywordFaqIndex.open(FaqPacks.loadFromClasspath("banking77"), dir)) {
      assertThat(second.rebuilt()).isFalse();
      assertThat(files(dir)).isEqualTo(firstFiles);
      assertThat(second.size()).isEqualTo(77);
      assertThat(second.search("I still have not received my new card", 3))
          .isEqualTo(index.search("I still have not received my new card", 3));
    }

    List<FaqEntry> changed = new ArrayList<>(pack.entries());
    FaqEntry e = changed.get(0);
    List<String> phrasings = new ArrayList<>(e.phrasings());
    phrasings.add("where is my shiny purple plastic");
    changed.set(
        0, new FaqEntry(e.id(), e.question(), e.answer(), phrasings, e.keywords(), e.category()));
    FaqPack edited =
        new FaqPack(
            pack.id(),
            pack.name(),
            pack.language(),
            pack.attribution(),
            changed,
            pack.intentRules());
    try (KeywordFaqIndex third = KeywordFaqIndex.open(edited, dir)) {
      assertThat(third.rebuilt()).isTrue();
      assertThat(files(dir)).isNotEqualTo(firstFiles);
      assertThat(third.best("shiny purple plastic"))
          .get()
          .extracting(FaqMatch::faqId)
          .isEqualTo(e.id());
    }
    try (KeywordFaqIndex fourth = KeywordFaqIndex.open(edited, dir)) {
      assertThat(fourth.rebuilt()).isFalse();
    }
  }

  @Test
  void unreadableIndexFolderIsRebuilt() throws IOException {
    Path dir = tmp.resolve("broken");
    Files.createDirectories(dir);
    Files.writeString(dir.resolve("segments_1"), "not a lucene file");
    try (KeywordFaqIndex idx = KeywordFaqIndex.open(pack, dir)) {
      assertThat(idx.rebuilt()).isTrue();
      assertThat(idx.best("I still have not received my new card")).isPresent();
    }
  }

  @Test
  void chinesePackUsesCjkAnalysis() throws IOException {
    Path dir =
        FaqPacksTest.writePack(
            tmp.resolve("zh"),
            "{\"id\":\"zh-test\",\"language\":\"zh\"}",
            "{\"id\":\"card_arrival\",\"question\":\"我的卡什么时候到？\",\"answer\":\"3-5个工作日。\","
                + "\"phrasings\":[\"我的新卡还没有收到\",\"卡片寄到哪里了\"]}\n"
                + "{\"id\":\"change_pin\",\"question\":\"如何修改密码？\",\"answer\":\"在应用中修改。\","
                + "\"phrasings\":[\"我想改密码\",\"怎么更改银行卡密码\"]}\n",
            null);
    try (KeywordFaqIndex zh = KeywordFaqIndex.build(FaqPacks.loadFromDirectory(dir))) {
      assertThat(zh.search("新卡还没收到", 1))
          .extracting(FaqMatch::faqId)
          .containsExactly("card_arrival");
      assertThat(zh.search("修改密码", 1)).extracting(FaqMatch::faqId).containsExactly("change_pin");
    }
  }

  private static Map<String, FileTime> files(Path dir) throws IOException {
    Map<String, FileTime> out = new TreeMap<>();
    try (Stream<Path> s = Files.list(dir)) {
      for (Path p : s.toList()) {
        if (!p.getFileName().toString().equals("write.lock")) {
          out.put(p.getFileName().toString(), Files.getLastModifiedTime(p));
        }
      }
    }
    return out;
  }
}
