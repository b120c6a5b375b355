package dev.questionflow.faq.cli;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.questionflow.faq.Calibrator;
import dev.questionflow.faq.FaqEvaluation;
import dev.questionflow.faq.FaqEvaluation.LabeledQuestion;
import dev.questionflow.faq.FaqPack;
import dev.questionflow.faq.LearningCurve;
import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.Random;

/**
 * {@code bin/faq learn-curve}: the FAQ level's hit rate per block of questions while staff file
 * every missed question as a phrasing ({@link LearningCurve}), on two streams: the held-out
 * questions in file order, then the pack's phrasings the starting matcher left out, shuffled.
 */
final class LearnCurveCommand {

  private static final ObjectMapper JSON = new ObjectMapper();

  private LearnCurveCommand() {}

  static void run(FaqPack pack, FaqCli.Options options, PrintStream out) {
    Path questionsFile =
        options.questions != null ? options.questions : FaqCli.defaultQuestions(pack);
    List<LabeledQuestion> heldOut =
        questionsFile == null
            ? List.of()
            : new ArrayList<>(FaqEvaluation.readLabeled(questionsFile));
    long seed = Calibrator.Options.DEFAULT.seed();
    if (options.shuffleQuestions) {
      // BANKING77's validation file is grouped by entry: in file order, one ticket would teach the
      // next questions of the same entry, which no real stream of customers does
      Collections.shuffle(heldOut, new Random(seed));
    }
    // the held-out questions leave the pack first (BANKING77's validation texts are among its
    // phrasings), so neither stream's matcher has seen them
    FaqPack unseen = FaqEvaluation.unseen(pack, heldOut);
    FaqPack start = LearningCurve.startingPack(unseen, options.startPhrasings);
    List<LabeledQuestion> rest =
        LearningCurve.remainingPhrasings(unseen, options.startPhrasings, seed);
    rest = rest.subList(0, Math.min(rest.size(), options.phrasingStream));

    out.printf(
        Locale.ROOT,
        "learn-curve: pack %s, level %s%s, with the pack's calibration; start: the first %d"
            + " phrasings of each of the %d entries (+ its standard question)%n",
        pack.id(),
        options.level,
        "keyword".equals(options.level) ? "" : " (" + pack.encoderId() + ")",
        options.startPhrasings,
        start.entries().size());
    out.println(
        "every question abstained on or answered with the wrong entry is a ticket, filed as a phrasing"
            + " of its true entry (FaqOverlay applied to the matcher, as a staff reply's"
            + " learn.asPhrasingOf is)");
    ObjectNode json = JSON.createObjectNode();
    json.put("pack", pack.id());
    json.put("level", options.level);
    json.put("startPhrasings", options.startPhrasings);
    json.put("block", options.block);
    ArrayNode streams = json.putArray("streams");
    if (!heldOut.isEmpty()) {
      String name =
          "held-out questions "
              + FaqCli.relativeToRepo(questionsFile)
              + (options.shuffleQuestions ? ", shuffled with seed " + seed : ", in file order");
      LearningCurve.Result result = replay(start, heldOut, options, name, out);
      streams.add(toJson(name, result));
      int fullBlocks = heldOut.size() / options.block;
      if (fullBlocks < 3) {
        out.printf(
            Locale.ROOT,
            "  note: %d held-out questions make only %d full block(s) of %d; the next stream replays"
                + " more%n",
            heldOut.size(),
            fullBlocks,
            options.block);
      }
    }
    if (!rest.isEmpty()) {
      String name =
          String.format(
              Locale.ROOT,
              "the pack's other phrasings (not among the first %d, not held out), shuffled with seed"
                  + " %d",
              options.startPhrasings,
              seed);
      streams.add(toJson(name, replay(start, rest, options, name, out)));
    }
    if (options.out != null) {
      try {
        Files.writeString(
            options.out, JSON.writerWithDefaultPrettyPrinter().writeValueAsString(json));
      } catch (IOException e) {
        throw new UncheckedIOException("cannot write " + options.out, e);
      }
    }
  }

  private static LearningCurve.Result replay(
      FaqPack start,
      List<LabeledQuestion> questions,
      FaqCli.Options options,
      String name,
      PrintStream out) {
    out.printf(Locale.ROOT, "%nstream: %s (%,d questions)%n", name, questions.size());
    out.println("  questions        hit rate   answered   learned   hit rate without learning");
    LearningCurve.Result result = replay(start, questions, options, true);
    LearningCurve.Result frozen = replay(start, questions, options, false);
    for (int i = 0; i < result.blocks().size(); i++) {
      LearningCurve.Block b = result.blocks().get(i);
      out.printf(
          Locale.ROOT,
          "  %-15s %7.2f %%   %6.2f %%   %7d   %7.2f %%%n",
          b.first() + "-" + (b.first() + b.questions() - 1),
          100 * b.hitRate(),
          100 * b.answerRate(),
          b.learned(),
          100 * frozen.blocks().get(i).hitRate());
    }
    out.printf(
        Locale.ROOT,
        "  total: %,d questions, hit rate %.2f %% (without learning %.2f %%), %,d phrasings learned"
            + " (%d tickets were already phrasings), %.1f s (%.1f s without learning)%n",
        result.questions(),
        100 * result.hitRate(),
        100 * frozen.hitRate(),
        result.learned(),
        result.alreadyKnown(),
        result.millis() / 1000.0,
        frozen.millis() / 1000.0);
    return result;
  }

  private static LearningCurve.Result replay(
      FaqPack start, List<LabeledQuestion> questions, FaqCli.Options options, boolean learn) {
    try (LearningCurve.Learner learner =
        LearningCurve.learner(start, options.level, options.indexDir.resolve("embedding-cache"))) {
      return LearningCurve.replay(learner, start, questions, options.block, learn);
    }
  }

  private static ObjectNode toJson(String name, LearningCurve.Result result) {
    ObjectNode stream = JSON.createObjectNode();
    stream.put("stream", name);
    stream.put("questions", result.questions());
    stream.put("hitRate", result.hitRate());
    stream.put("learned", result.learned());
    stream.put("alreadyKnown", result.alreadyKnown());
    stream.put("millis", result.millis());
    ArrayNode blocks = stream.putArray("blocks");
    for (LearningCurve.Block b : result.blocks()) {
      ObjectNode block = blocks.addObject();
      block.put("first", b.first());
      block.put("questions", b.questions());
      block.put("correct", b.correct());
      block.put("answered", b.answered());
      block.put("learned", b.learned());
      block.put("hitRate", b.hitRate());
    }
    return stream;
  }
}
