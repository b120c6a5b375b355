package dev.questionflow.faq;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import org.apache.lucene.analysis.Analyzer;
import org.apache.lucene.analysis.CharArraySet;
import org.apache.lucene.analysis.TokenStream;
import org.apache.lucene.analysis.cn.smart.SmartChineseAnalyzer;
import org.apache.lucene.analysis.en.EnglishAnalyzer;
import org.apache.lucene.analysis.tokenattributes.CharTermAttribute;

/**
 * How the keyword matcher reads text: Lucene's English analyzer or SmartCN for Chinese packs, each
 * with the stop words of its language (Lucene's plus the data files {@code stopwords-en.txt} and
 * {@code stopwords-zh.txt}: words that carry no FAQ topic).
 */
final class KeywordAnalysis {

  private KeywordAnalysis() {}

  /** The added stop words (data: {@code stopwords-en.txt}, {@code stopwords-zh.txt}), as read. */
  private static final String EN_STOPWORDS_TEXT = PackageData.text("stopwords-en.txt");

  private static final String ZH_STOPWORDS_TEXT = PackageData.text("stopwords-zh.txt");

  /** Lucene's English stop words plus pronouns, auxiliaries and chit-chat with no FAQ topic. */
  private static final CharArraySet EN_STOPWORDS =
      stopwords(EnglishAnalyzer.ENGLISH_STOP_WORDS_SET, EN_STOPWORDS_TEXT);

  /** SmartChineseAnalyzer's stop set (punctuation) plus particles, pronouns and politeness. */
  private static final CharArraySet ZH_STOPWORDS =
      stopwords(SmartChineseAnalyzer.getDefaultStopSet(), ZH_STOPWORDS_TEXT);

  /** Lucene's set plus one word per line of {@code words} (# starts a comment line). */
  private static CharArraySet stopwords(CharArraySet base, String words) {
    CharArraySet set = new CharArraySet(base, true);
    words
        .lines()
        .map(String::strip)
        .filter(line -> !line.isEmpty() && !line.startsWith("#"))
        .forEach(set::add);
    return CharArraySet.unmodifiableSet(set);
  }

  /** The added stop words of a pack language (part of the index fingerprint). */
  static String stopwordsText(String language) {
    return "zh".equals(language) ? ZH_STOPWORDS_TEXT : EN_STOPWORDS_TEXT;
  }

  static Analyzer analyzer(FaqPack pack, KeywordSettings settings) {
    if ("zh".equals(pack.language())) {
      return settings.chatStopwords()
          ? new SmartChineseAnalyzer(ZH_STOPWORDS)
          : new SmartChineseAnalyzer();
    }
    return settings.chatStopwords() ? new EnglishAnalyzer(EN_STOPWORDS) : new EnglishAnalyzer();
  }

  /** The analyzed terms of an entry's question, phrasings and keywords (its vocabulary). */
  static Set<String> entryTerms(Analyzer analyzer, FaqEntry e) {
    Set<String> terms = new HashSet<>();
    terms.addAll(terms(analyzer, e.question(), Integer.MAX_VALUE).keySet());
    for (String p : e.phrasings()) {
      terms.addAll(terms(analyzer, p, Integer.MAX_VALUE).keySet());
    }
    terms.addAll(terms(analyzer, String.join(" ", e.keywords()), Integer.MAX_VALUE).keySet());
    return terms;
  }

  /**
   * The analyzed terms of {@code text} with their counts, at most {@code maxTerms} distinct ones.
   */
  static Map<String, Integer> terms(Analyzer analyzer, String text, int maxTerms) {
    Map<String, Integer> terms = new LinkedHashMap<>();
    try (TokenStream ts = analyzer.tokenStream(KeywordIndexWriter.F_TEXT, text)) {
      CharTermAttribute term = ts.addAttribute(CharTermAttribute.class);
      ts.reset();
      while (ts.incrementToken()) {
        String s = term.toString();
        if (s.isEmpty()) {
          continue;
        }
        if (terms.containsKey(s)) {
          terms.merge(s, 1, Integer::sum);
        } else if (terms.size() < maxTerms) {
          terms.put(s, 1);
        }
      }
      ts.end();
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot analyze query text", e);
    }
    return terms;
  }
}
