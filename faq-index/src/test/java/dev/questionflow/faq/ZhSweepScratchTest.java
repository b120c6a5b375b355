package dev.questionflow.faq;

import java.util.*;
import org.junit.jupiter.api.Test;

class ZhSweepScratchTest {
    @Test
    void sweep() throws Exception {
        FaqPack pack = FaqPacks.loadFromClasspath("ecommerce-zh");
        var eval = EcommerceZhPackTest.paraphrases();
        var oos = EcommerceZhPackTest.outOfScope();
        try (KeywordFaqIndex idx = KeywordFaqIndex.build(pack)) {
            List<KeywordFaqIndex.Candidate> in = new ArrayList<>();
            List<Boolean> ok = new ArrayList<>();
            for (var l : eval) { var r = idx.rank(l.text(), 1); in.add(r.isEmpty() ? null : r.get(0)); ok.add(!r.isEmpty() && r.get(0).faqId().equals(l.label())); }
            List<KeywordFaqIndex.Candidate> out = new ArrayList<>();
            for (var q : oos) { var r = idx.rank(q, 1); out.add(r.isEmpty() ? null : r.get(0));
                if (!r.isEmpty()) System.out.printf("OOS %s -> %s score=%.3f cov=%.2f idf=%.2f%n", q, r.get(0).faqId(), r.get(0).score(), r.get(0).coverage(), r.get(0).maxPossible()); }
            for (int i = 0; i < eval.size(); i++) { var c = in.get(i); if (c != null) System.out.printf("IN %s ok=%s score=%.3f cov=%.2f idf=%.2f%n", eval.get(i).text(), ok.get(i), c.score(), c.coverage(), c.maxPossible()); }
            for (double ms : new double[] {0.0, 0.01, 0.02, 0.03, 0.04, 0.05, 0.08})
              for (double mc : new double[] {0.4, 0.5, 0.6, 0.7})
                for (double mi : new double[] {0, 2.0, 3.0, 4.0}) {
                    int ans = 0, right = 0, oa = 0;
                    for (int i = 0; i < in.size(); i++) { var c = in.get(i); if (c != null && c.score() >= ms && c.coverage() >= mc && c.maxPossible() >= mi) { ans++; if (ok.get(i)) right++; } }
                    for (var c : out) if (c != null && c.score() >= ms && c.coverage() >= mc && c.maxPossible() >= mi) oa++;
                    System.out.printf("SWEEP score>=%.2f cov>=%.1f idf>=%.1f answered %.1f%% correct-of-all %.1f%% acc %.1f%% oosAbst %.1f%%%n", ms, mc, mi, 100.0*ans/in.size(), 100.0*right/in.size(), ans==0?0:100.0*right/ans, 100.0*(out.size()-oa)/out.size());
                }
        }
    }
}
