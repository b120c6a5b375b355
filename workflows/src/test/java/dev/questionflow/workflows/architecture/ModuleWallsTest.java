package dev.questionflow.workflows.architecture;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.Test;

/**
 * Workflow code must stay deterministic and replayable: it sees the Temporal SDK, the JDK, logging
 * and its own types, never the stores, indexes or model clients the activities use (the Maven
 * module keeps them off its class path; this keeps the SDK's own transitive libraries out too).
 */
class ModuleWallsTest {

  private static final String CODEC = "dev.questionflow.workflows.codec..";
  private static final String CONNECTION = "dev.questionflow.workflows.connection..";

  private static final JavaClasses WORKFLOWS =
      new ClassFileImporter()
          .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
          .importPackages("dev.questionflow.workflows");

  @Test
  void workflowCodeSeesOnlyTheTemporalSdkAndItsOwnTypes() {
    classes()
        .that()
        .resideOutsideOfPackages(CODEC, CONNECTION)
        .should()
        .onlyDependOnClassesThat()
        .resideInAnyPackage(
            "dev.questionflow.workflows..",
            "io.temporal..",
            "java..",
            "org.slf4j..",
            // the SDK's workflow metrics scope and the JSON its data converter reads annotations
            // from
            "com.uber.m3..",
            "com.fasterxml.jackson.annotation..")
        .check(WORKFLOWS);
  }

  /**
   * The payload codec sits beside the workflows (bin/replay needs it to read encrypted histories)
   * and also sees JDK crypto and the payload protos; workflow code itself never uses it.
   */
  @Test
  void thePayloadCodecIsNotWorkflowCode() {
    classes()
        .that()
        .resideInAPackage(CODEC)
        .should()
        .onlyDependOnClassesThat()
        .resideInAnyPackage(
            CODEC, "io.temporal..", "java..", "javax.crypto..", "com.google.protobuf..")
        .check(WORKFLOWS);
    noClasses()
        .that()
        .resideOutsideOfPackages(CODEC, "dev.questionflow.workflows.replay..")
        .should()
        .dependOnClassesThat()
        .resideInAPackage(CODEC)
        .check(WORKFLOWS);
  }

  /**
   * How clients reach the frontend (TLS, API key) sits beside the workflows for bin/replay and the
   * app; workflow code itself never uses it.
   */
  @Test
  void theFrontendConnectionIsNotWorkflowCode() {
    classes()
        .that()
        .resideInAPackage(CONNECTION)
        .should()
        .onlyDependOnClassesThat()
        .resideInAnyPackage(CONNECTION, "io.temporal..", "io.grpc..", "java..", "javax.net..")
        .check(WORKFLOWS);
    noClasses()
        .that()
        .resideOutsideOfPackages(CONNECTION, "dev.questionflow.workflows.replay..")
        .should()
        .dependOnClassesThat()
        .resideInAPackage(CONNECTION)
        .check(WORKFLOWS);
  }
}
