package dev.questionflow.faq;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The Chinese e-commerce pack ({@code packs/ecommerce-zh}, fictional shop 云杉商城) at the keyword
 * level (SmartChineseAnalyzer + BM25): loading, the labelled paraphrases in {@code
 * eval/paraphrases.tsv} and the out-of-scope questions in {@code eval/out_of_scope.tsv}. The eval
 * files are not packaged into the jar; they are read from the module folder (surefire's working
 * directory).
 */
class EcommerceZhPackTest {

  static final Path EVAL = Path.of("packs", "ecommerce-zh", "eval");

  static FaqPack pack;
  static KeywordFaqIndex index;

  @BeforeAll
  static void build() {
    pack = FaqPacks.loadFromClasspath("ecommerce-zh");
    index = KeywordFaqIndex.build(pack);
  }

  @AfterAll
  static void close() {
    index.close();
  }

  record Labelled(String text, String label) {}

  static List<Labelled> paraphrases() throws IOException {
    List<String> lines =
        Files.readAllLines(EVAL.resolve("paraphrases.tsv"), StandardCharsets.UTF_8);
    assertThat(lines.get(0)).isEqualTo("text\tlabel");
    List<Labelled> out = new ArrayList<>();
    for (String line : lines.subList(1, lines.size())) {
      if (line.isBlank()) {
        continue;
      }
      String[] cols = line.split("\t", -1);
      assertThat(cols).as(line).hasSize(2);
      out.add(new Labelled(cols[0].strip(), cols[1].strip()));
    }
    return out;
  }

  static List<String> outOfScope() throws IOException {
    List<String> lines =
        Files.readAllLines(EVAL.resolve("out_of_scope.tsv"), StandardCharsets.UTF_8);
    assertThat(lines.get(0)).isEqualTo("text");
    return lines.subList(1, lines.size()).stream()
        .map(String::strip)
        .filter(s -> !s.isEmpty())
        .toList();
  }

  /** Comparison key: no whitespace or punctuation, lower case ("退款多久到账？" equals "退款多久到账"). */
  static String key(String s) {
    return s.replaceAll("[\\s\\p{P}\\p{S}]", "").toLowerCase();
  }

  @Test
  void packLoadsWithEnoughEntriesAndPhrasings() {
    assertThat(pack.id()).isEqualTo("ecommerce-zh");
    assertThat(pack.language()).isEqualTo("zh");
    assertThat(pack.attribution()).contains("questionflow").contains("CC BY 4.0");
    assertThat(pack.entries()).hasSizeGreaterThanOrEqualTo(20);
    assertThat(pack.entries())
        .allSatisfy(
            e -> {
              assertThat(e.id()).matches("[a-z]+(_[a-z]+)*");
              assertThat(e.question()).isNotBlank();
              assertThat(e.answer()).isNotBlank().hasSizeLessThan(200);
              assertThat(e.phrasings()).hasSizeGreaterThanOrEqualTo(5);
              assertThat(e.keywords()).isNotEmpty();
              assertThat(e.category()).isNotBlank();
            });
    assertThat(pack.entry("refund_timing"))
        .get()
        .extracting(FaqEntry::answer)
        .asString()
        .contains("工作日");
    assertThat(pack.intentRules())
        .extracting(IntentRule::intent)
        .containsExactly("fraud_report", "complaint", "human_agent", "greeting");
  }

  @Test
  void evalFilesAreLabelledAndIndependentOfThePack() throws IOException {
    List<Labelled> eval = paraphrases();
    assertThat(eval).hasSizeGreaterThanOrEqualTo(100);
    Set<String> ids = new HashSet<>();
    pack.entries().forEach(e -> ids.add(e.id()));
    assertThat(eval).extracting(Labelled::label).allSatisfy(l -> assertThat(ids).contains(l));
    Map<String, Integer> perLabel = new HashMap<>();
    eval.forEach(l -> perLabel.merge(l.label(), 1, Integer::sum));
    assertThat(perLabel.keySet()).as("every entry has paraphrases").isEqualTo(ids);
    assertThat(perLabel.values()).allSatisfy(n -> assertThat(n).isGreaterThanOrEqualTo(4));

    Map<String, String> packTexts = new HashMap<>();
    for (FaqEntry e : pack.entries()) {
      packTexts.put(key(e.question()), e.id() + " question");
      e.phrasings().forEach(p -> packTexts.put(key(p), e.id() + " phrasing"));
    }
    Set<String> seen = new HashSet<>();
    for (Labelled l : eval) {
      assertThat(packTexts)
          .as("eval text equals a pack text: " + l.text())
          .doesNotContainKey(key(l.text()));
      assertThat(seen.add(key(l.text()))).as("duplicate eval text: " + l.text()).isTrue();
    }
    List<String> oos = outOfScope();
    assertThat(oos).hasSizeGreaterThanOrEqualTo(30).doesNotHaveDuplicates();
    assertThat(oos).allSatisfy(q -> assertThat(packTexts).doesNotContainKey(key(q)));
  }

  /**
   * Measured with the zh defaults (SmartCN, minScore 0.05, minCoverage 0.40): see
   * faq-index/README.md.
   */
  @Test
  void keywordLevelAccuracyOnParaphrasesAndAbstention() throws IOException {
    List<Labelled> eval = paraphrases();
    int top1 = 0;
    int top3 = 0;
    int answered = 0;
    int answeredRight = 0;
    for (Labelled l : eval) {
      List<FaqMatch> ranked = index.search(l.text(), 3);
      if (!ranked.isEmpty() && ranked.get(0).faqId().equals(l.label())) {
        top1++;
      }
      if (ranked.stream().anyMatch(m -> m.faqId().equals(l.label()))) {
        top3++;
      }
      Optional<FaqMatch> best = index.best(l.text());
      if (best.isPresent()) {
        answered++;
        if (best.get().faqId().equals(l.label())) {
          answeredRight++;
        }
      }
      if (ranked.isEmpty() || !ranked.get(0).faqId().equals(l.label()) || best.isEmpty()) {
        System.out.printf(
            "miss  %-24s %s -> %s%s terms=%s%n",
            l.label(),
            l.text(),
            ranked.isEmpty()
                ? "-"
                : ranked.get(0).faqId() + String.format(" %.3f", ranked.get(0).score()),
            best.isEmpty() ? " (abstains)" : "",
            index.queryTerms(l.text()).keySet());
      }
    }
    List<String> oos = outOfScope();
    int abstained = 0;
    for (String q : oos) {
      Optional<FaqMatch> best = index.best(q);
      if (best.isEmpty()) {
        abstained++;
      } else {
        System.out.printf(
            "oos answered: %s -> %s %.3f terms=%s%n",
            q, best.get().faqId(), best.get().score(), index.queryTerms(q).keySet());
      }
    }
    int n = eval.size();
    double top1Rate = (double) top1 / n;
    double answerRate = (double) answered / n;
    double answerAccuracy = answered == 0 ? 0 : (double) answeredRight / answered;
    double oosAbstention = (double) abstained / oos.size();
    System.out.printf(
        "ecommerce-zh keyword level: top-1 %d/%d = %.1f %%, top-3 %.1f %%, answered %.1f %%, "
            + "accuracy of answers %.1f %%, OOS abstention %d/%d = %.1f %%%n",
        top1,
        n,
        100 * top1Rate,
        100.0 * top3 / n,
        100 * answerRate,
        100 * answerAccuracy,
        abstained,
        oos.size(),
        100 * oosAbstention);
    // measured with the pack's k-fold calibration: top-1 94.61 %, answered 90.03 %, accuracy of
    // answers 96.11 %, OOS abstention 91.07 % (112 questions, half of them shop-related)
    assertThat(top1Rate).isGreaterThanOrEqualTo(0.92);
    assertThat(answerRate).isGreaterThanOrEqualTo(0.87);
    assertThat(answerAccuracy).isGreaterThanOrEqualTo(0.94);
    assertThat(oosAbstention).isGreaterThanOrEqualTo(0.88);
  }

  @ParameterizedTest
  @CsvSource(
      delimiter = '|',
      value = {
        "我想改一下收货地址 | change_delivery_address",
        "退款多久到账 | refund_timing",
        "退款成功了但钱没到账 | refund_not_received",
        "怎么开发票 | invoice_request",
        "优惠券为什么用不了 | coupon_usage",
        "快递到哪了 | order_tracking",
        "收到的杯子碎了 | damaged_item",
        "鞋子小了想换大一码 | exchange_size",
        "买完第二天就降价了能退差价吗 | price_protection",
        "支持货到付款吗？ | cash_on_delivery",
      })
  void answersConcreteQuestions(String text, String id) {
    assertThat(index.best(text)).as(text).get().extracting(FaqMatch::faqId).isEqualTo(id);
  }

  @ParameterizedTest
  @CsvSource(
      delimiter = '|',
      value = {
        "明天上海天气怎么样",
        "红烧肉怎么做",
        "这道数学题怎么解",
        "你好，在吗？",
        "谢谢",
        "退款",
        "订单",
      })
  void abstainsOnOutOfScopeChitChatAndVagueQuestions(String text) {
    assertThat(index.best(text)).as(text).isEmpty();
  }

  @Test
  void chitChatIsOnlyStopWords() {
    assertThat(index.queryTerms("你好，请问一下在吗？")).isEmpty();
    assertThat(index.search("您好呀", 5)).isEmpty();
  }

  @Test
  void storedIndexUsesTheZhDefaultsToo(@org.junit.jupiter.api.io.TempDir Path dir) {
    try (KeywordFaqIndex stored = KeywordFaqIndex.open(pack, dir)) {
      assertThat(stored.best("下完单发现地址写错了"))
          .get()
          .extracting(FaqMatch::faqId)
          .isEqualTo("change_delivery_address");
    }
  }

  @ParameterizedTest
  @CsvSource(
      delimiter = '|',
      value = {
        "我的银行卡被盗刷了 | fraud_report",
        "这个订单不是我本人下的 | fraud_report",
        "我被骗了，你们这些骗子 | fraud_report",
        "我要投诉你们 | complaint",
        "服务太差了，气死我了 | complaint",
        "你们就是骗子 | complaint",
        "转人工 | human_agent",
        "我要找真人客服 | human_agent",
        "你好 | greeting",
        "在吗？ | greeting",
        "您好，在吗 | greeting",
      })
  void intentRules(String text, String intent) {
    assertThat(IntentRules.match(pack, text)).as(text).contains(intent);
  }

  @Test
  void ordinaryQuestionsHaveNoIntentRule() throws IOException {
    assertThat(IntentRules.match(pack, "你好，我想改一下收货地址")).isEmpty();
    assertThat(IntentRules.match(pack, "寄来的东西不是我买的")).isEmpty(); // wrong item, not fraud
    List<String> texts = new ArrayList<>();
    for (FaqEntry e : pack.entries()) {
      texts.add(e.question());
      texts.addAll(e.phrasings());
    }
    paraphrases().forEach(l -> texts.add(l.text()));
    texts.addAll(outOfScope());
    assertThat(texts).allSatisfy(t -> assertThat(IntentRules.match(pack, t)).as(t).isEmpty());
  }
}
