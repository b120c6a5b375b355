package dev.questionflow.workflows.session;

public record SessionJoin(String sessionId, String workflowId) {}
