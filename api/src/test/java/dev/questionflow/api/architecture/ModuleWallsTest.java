package dev.questionflow.api.architecture;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.Test;
import org.springframework.web.bind.annotation.RestController;

/**
 * Controllers are thin: they talk to services, never to the stores, indexes or model clients
 * themselves.
 */
class ModuleWallsTest {

  private static final JavaClasses API =
      new ClassFileImporter()
          .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
          .importPackages("dev.questionflow.api");

  @Test
  void controllersNeverTouchLettuceLuceneOrLangchain4j() {
    noClasses()
        .that()
        .areAnnotatedWith(RestController.class)
        .should()
        .dependOnClassesThat()
        .resideInAnyPackage("io.lettuce..", "org.apache.lucene..", "dev.langchain4j..")
        .check(API);
  }
}
