package dev.questionflow.workflows.retrieval;

public record FaqHit(String faqId, String question, String answer, double score) {}
