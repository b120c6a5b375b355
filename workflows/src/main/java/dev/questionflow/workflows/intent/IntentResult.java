package dev.questionflow.workflows.intent;

/**
 * @param source which classifier decided: "rules", "default" (later: "model")
 */
public record IntentResult(String intent, String source) {}
