package dev.questionflow.workflows.retrieval;

public record RetrievalRequest(String text, int topK) {}
