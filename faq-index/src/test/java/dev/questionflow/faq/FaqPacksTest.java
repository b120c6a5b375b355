package dev.questionflow.faq;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class FaqPacksTest {

  @TempDir Path tmp;

  static final String PACK_JSON =
      "{\"id\":\"t\",\"name\":\"Test\",\"language\":\"en\",\"attribution\":\"none\"}";
  static final String GOOD =
      "{\"id\":\"a\",\"question\":\"Q a?\",\"answer\":\"A a.\",\"phrasings\":[\"x\"]}";

  static Path writePack(Path dir, String packJson, String entries, String intents)
      throws IOException {
    Files.createDirectories(dir);
    Files.writeString(dir.resolve("pack.json"), packJson, StandardCharsets.UTF_8);
    Files.writeString(dir.resolve("entries.jsonl"), entries, StandardCharsets.UTF_8);
    if (intents != null) {
      Files.writeString(dir.resolve("intents.json"), intents, StandardCharsets.UTF_8);
    }
    return dir;
  }

  @Test
  void banking77LoadsFromClasspathWith77EntriesInCategoryOrder() throws IOException {
    FaqPack pack = FaqPacks.loadFromClasspath("banking77");
    assertThat(pack.id()).isEqualTo("banking77");
    assertThat(pack.language()).isEqualTo("en");
    assertThat(pack.attribution()).contains("PolyAI").contains("Casanueva").contains("CC BY 4.0");
    assertThat(pack.entries()).hasSize(77);
    assertThat(pack.entries())
        .allSatisfy(
            e -> {
              assertThat(e.question()).isNotBlank();
              assertThat(e.answer()).isNotBlank().hasSizeLessThan(400);
              assertThat(e.phrasings()).hasSizeGreaterThan(30);
              assertThat(e.keywords()).isNotEmpty();
              assertThat(e.category()).isNotBlank();
            });
    assertThat(pack.entries().stream().mapToInt(e -> e.phrasings().size()).sum())
        .isGreaterThan(9900);
    assertThat(pack.entry("card_arrival"))
        .get()
        .extracting(FaqEntry::answer)
        .asString()
        .contains("working days");
    assertThat(pack.entry("nope")).isEmpty();
    assertThat(pack.intentRules())
        .extracting(IntentRule::intent)
        .contains("complaint", "human_agent", "greeting", "fraud_report");

    Datasets.require(Datasets.banking77Present(), "the BANKING77 dataset");
    List<String> categories =
        new ObjectMapper()
            .readValue(
                Datasets.banking77().resolve("categories.json").toFile(),
                new TypeReference<List<String>>() {});
    assertThat(pack.entries()).extracting(FaqEntry::id).containsExactlyElementsOf(categories);
  }

  @Test
  void packFolderLoadsFromDirectoryToo() {
    FaqPack fromDir = FaqPacks.loadFromDirectory(Path.of("packs/banking77"));
    FaqPack fromClasspath = FaqPacks.loadFromClasspath("banking77");
    assertThat(fromDir.entries()).isEqualTo(fromClasspath.entries());
  }

  @Test
  void optionalFieldsMayBeMissing() throws IOException {
    FaqPack pack =
        FaqPacks.loadFromDirectory(
            writePack(
                tmp.resolve("p"),
                "{\"id\":\"t\"}",
                "{\"id\":\"a\",\"question\":\"Q?\",\"answer\":\"A.\"}\n\n",
                null));
    assertThat(pack.language()).isEqualTo("en");
    assertThat(pack.intentRules()).isEmpty();
    assertThat(pack.outOfScope()).isEmpty();
    FaqEntry e = pack.entries().get(0);
    assertThat(e.phrasings()).isEmpty();
    assertThat(e.keywords()).isEmpty();
    assertThat(e.category()).isNull();
  }

  @Test
  void outOfScopeExamplesAreOnePerLineWithoutCommentsOrBlankLines() throws IOException {
    Path dir =
        writePack(
            tmp.resolve("oos"),
            "{\"id\":\"t\"}",
            "{\"id\":\"a\",\"question\":\"Q?\",\"answer\":\"A.\"}",
            null);
    Files.writeString(
        dir.resolve("out_of_scope.txt"),
        "\uFEFF# off-topic questions\nwhat is the weather tomorrow\n\n  tell me a joke  \n",
        StandardCharsets.UTF_8);
    assertThat(FaqPacks.loadFromDirectory(dir).outOfScope())
        .containsExactly("what is the weather tomorrow", "tell me a joke");
  }

  @Test
  void ecommerceZhCarriesItsOutOfScopeExamples() {
    assertThat(FaqPacks.loadFromClasspath("ecommerce-zh").outOfScope())
        .hasSizeGreaterThan(100)
        .contains("明天北京下雨吗");
  }

  @Test
  void badJsonNamesFileAndLine() throws IOException {
    Path dir =
        writePack(
            tmp.resolve("p"),
            PACK_JSON,
            GOOD
                + "\n"
                + GOOD.replace("\"a\"", "\"b\"")
                + "\n{\"id\":\"c\",\"question\":\"Q\", oops}\n",
            null);
    assertThatThrownBy(() -> FaqPacks.loadFromDirectory(dir))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining(dir.resolve("entries.jsonl").toString())
        .hasMessageContaining("line 3");
  }

  @Test
  void missingAnswerNamesFileAndLine() throws IOException {
    Path dir =
        writePack(
            tmp.resolve("p"),
            PACK_JSON,
            GOOD + "\n{\"id\":\"b\",\"question\":\"Q b?\",\"phrasings\":[]}\n",
            null);
    assertThatThrownBy(() -> FaqPacks.loadFromDirectory(dir))
        .hasMessageContaining("entries.jsonl")
        .hasMessageContaining("line 2")
        .hasMessageContaining("answer");
  }

  @Test
  void missingIdNamesFileAndLine() throws IOException {
    Path dir =
        writePack(
            tmp.resolve("p"),
            PACK_JSON,
            "\n" + GOOD + "\n{\"question\":\"Q?\",\"answer\":\"A.\"}\n",
            null);
    assertThatThrownBy(() -> FaqPacks.loadFromDirectory(dir))
        .hasMessageContaining("entries.jsonl")
        .hasMessageContaining("line 3")
        .hasMessageContaining("\"id\"");
  }

  @Test
  void duplicateIdNamesFileAndBothLines() throws IOException {
    Path dir = writePack(tmp.resolve("p"), PACK_JSON, GOOD + "\n" + GOOD + "\n", null);
    assertThatThrownBy(() -> FaqPacks.loadFromDirectory(dir))
        .hasMessageContaining("entries.jsonl")
        .hasMessageContaining("line 2")
        .hasMessageContaining("duplicate id 'a'")
        .hasMessageContaining("first on line 1");
  }

  @Test
  void wrongTypesAreRejected() throws IOException {
    Path dir =
        writePack(
            tmp.resolve("p"),
            PACK_JSON,
            "{\"id\":\"a\",\"question\":\"Q?\",\"answer\":\"A.\",\"phrasings\":\"not a list\"}\n",
            null);
    assertThatThrownBy(() -> FaqPacks.loadFromDirectory(dir))
        .hasMessageContaining("entries.jsonl")
        .hasMessageContaining("line 1")
        .hasMessageContaining("phrasings");
  }

  @Test
  void brokenPackJsonNamesFileAndLine() throws IOException {
    Path dir = writePack(tmp.resolve("p"), "{\n  \"id\": \"t\",\n  \"name\": \n}\n", GOOD, null);
    assertThatThrownBy(() -> FaqPacks.loadFromDirectory(dir))
        .hasMessageContaining("pack.json")
        .hasMessageContaining("line 4");
    Path dir2 = writePack(tmp.resolve("p2"), "{\"id\":\"t\",\"language\":\"fr\"}", GOOD, null);
    assertThatThrownBy(() -> FaqPacks.loadFromDirectory(dir2))
        .hasMessageContaining("pack.json")
        .hasMessageContaining("language");
  }

  @Test
  void brokenIntentsNameFileAndLine() throws IOException {
    Path dir =
        writePack(
            tmp.resolve("p"),
            PACK_JSON,
            GOOD,
            "[\n  {\"intent\": \"ok\", \"patterns\": [\"(?i)fine\"]},\n  {\"intent\": \"bad\",\n   \"patterns\": [\"(unclosed\"]}\n]\n");
    assertThatThrownBy(() -> FaqPacks.loadFromDirectory(dir))
        .hasMessageContaining("intents.json")
        .hasMessageContaining("line 4")
        .hasMessageContaining("regex");
    Path dir2 =
        writePack(
            tmp.resolve("p2"),
            PACK_JSON,
            GOOD,
            "[\n {\"intent\": \"x\", \"patterns\": [\"a\"],}\n]");
    assertThatThrownBy(() -> FaqPacks.loadFromDirectory(dir2))
        .hasMessageContaining("intents.json")
        .hasMessageContaining("line 2");
  }

  @Test
  void missingFilesAndPacksFailClearly() throws IOException {
    Path dir = tmp.resolve("empty");
    Files.createDirectories(dir);
    assertThatThrownBy(() -> FaqPacks.loadFromDirectory(dir)).hasMessageContaining("pack.json");
    assertThatThrownBy(() -> FaqPacks.loadFromDirectory(tmp.resolve("nowhere")))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> FaqPacks.loadFromClasspath("no-such-pack"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("no-such-pack");
    assertThatThrownBy(() -> FaqPacks.loadFromClasspath("../etc"))
        .isInstanceOf(IllegalArgumentException.class);
  }
}
