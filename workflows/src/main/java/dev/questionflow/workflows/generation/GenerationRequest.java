package dev.questionflow.workflows.generation;

import dev.questionflow.workflows.retrieval.FaqHit;
import java.util.List;

/** @param knowledge retrieved FAQ entries to ground the answer in; empty means an LLM-only answer */
public record GenerationRequest(String question, List<FaqHit> knowledge) {}
