package dev.questionflow.faq;

import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.Reader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;

/**
 * Loads FAQ packs: a folder with {@code pack.json}, {@code entries.jsonl} and (optional) {@code
 * intents.json} and {@code out_of_scope.txt}.
 *
 * <p>A broken pack (bad JSON, missing id/question/answer, duplicate id, bad regex, ...) fails with
 * an {@link IllegalArgumentException} whose message names the file and the line, e.g. {@code
 * "Invalid FAQ pack file packs/x/entries.jsonl, line 12: duplicate id 'card_arrival' (first on line
 * 3)"}. A missing pack or required file fails with an {@link IllegalArgumentException}; I/O errors
 * with an {@link UncheckedIOException}.
 */
public final class FaqPacks {

  static final String PACK_FILE = "pack.json";
  static final String ENTRIES_FILE = "entries.jsonl";
  static final String INTENTS_FILE = "intents.json";
  static final String OUT_OF_SCOPE_FILE = "out_of_scope.txt";
  private static final Pattern PACK_ID = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._-]*");

  private static final ObjectMapper JSON =
      JsonMapper.builder()
          .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
          .enable(com.fasterxml.jackson.core.StreamReadFeature.STRICT_DUPLICATE_DETECTION)
          .build();

  private FaqPacks() {}

  /**
   * Loads {@code packs/<packId>/...} from the classpath (context class loader, then this
   * library's).
   */
  public static FaqPack loadFromClasspath(String packId) {
    if (packId == null || !PACK_ID.matcher(packId).matches()) {
      throw new IllegalArgumentException("Invalid FAQ pack id: " + packId);
    }
    String base = "packs/" + packId + "/";
    List<ClassLoader> loaders = new ArrayList<>();
    ClassLoader ctx = Thread.currentThread().getContextClassLoader();
    if (ctx != null) {
      loaders.add(ctx);
    }
    loaders.add(FaqPacks.class.getClassLoader());
    PackSource source =
        new PackSource() {
          @Override
          public String describe(String file) {
            return "classpath:" + base + file;
          }

          @Override
          public InputStream open(String file) {
            for (ClassLoader cl : loaders) {
              InputStream in = cl.getResourceAsStream(base + file);
              if (in != null) {
                return in;
              }
            }
            return null;
          }
        };
    try (InputStream probe = source.open(PACK_FILE)) {
      if (probe == null) {
        throw new IllegalArgumentException(
            "FAQ pack '" + packId + "' not found on the classpath (no " + base + PACK_FILE + ")");
      }
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot read " + source.describe(PACK_FILE), e);
    }
    FaqPack pack = load(source);
    if (!pack.id().equals(packId)) {
      throw new IllegalArgumentException(
          "Invalid FAQ pack file "
              + source.describe(PACK_FILE)
              + ", line 1: id '"
              + pack.id()
              + "' does not match the pack folder '"
              + packId
              + "'");
    }
    return pack;
  }

  /** Loads a pack from a folder on disk. */
  public static FaqPack loadFromDirectory(Path dir) {
    if (dir == null || !Files.isDirectory(dir)) {
      throw new IllegalArgumentException("FAQ pack folder not found: " + dir);
    }
    return load(
        new PackSource() {
          @Override
          public String describe(String file) {
            return dir.resolve(file).toString();
          }

          @Override
          public InputStream open(String file) {
            try {
              return Files.newInputStream(dir.resolve(file));
            } catch (NoSuchFileException e) {
              return null;
            } catch (IOException e) {
              throw new UncheckedIOException("Cannot read " + dir.resolve(file), e);
            }
          }
        });
  }

  /** Where the pack files come from. */
  interface PackSource {
    String describe(String file);

    /** The file's content, or null when it does not exist. */
    InputStream open(String file);
  }

  static FaqPack load(PackSource source) {
    JsonNode meta = readPackJson(source);
    String file = source.describe(PACK_FILE);
    String id = requiredText(meta, "id", file, 1);
    if (!PACK_ID.matcher(id).matches()) {
      throw invalid(file, 1, "id '" + id + "' must match " + PACK_ID.pattern());
    }
    String language = optionalText(meta, "language", file, 1);
    if (language == null) {
      language = "en";
    }
    if (!language.equals("en") && !language.equals("zh")) {
      throw invalid(file, 1, "language must be \"en\" or \"zh\", not '" + language + "'");
    }
    String name = optionalText(meta, "name", file, 1);
    String attribution = optionalText(meta, "attribution", file, 1);
    List<FaqEntry> entries = readEntries(source);
    List<IntentRule> rules = readIntents(source);
    return new FaqPack(
        id,
        name == null ? id : name,
        language,
        attribution,
        entries,
        rules,
        readOutOfScope(source),
        PackEncoder.read(meta, id, language, source, file));
  }

  /**
   * {@code out_of_scope.txt} (optional): one question per line; blank lines and lines starting with
   * {@code #} are skipped.
   */
  private static List<String> readOutOfScope(PackSource source) {
    List<String> questions = new ArrayList<>();
    try (InputStream in = source.open(OUT_OF_SCOPE_FILE)) {
      if (in == null) {
        return List.of();
      }
      BufferedReader r = new BufferedReader(reader(in));
      String line;
      while ((line = r.readLine()) != null) {
        String q = line.replace("\uFEFF", "").strip();
        if (!q.isEmpty() && !q.startsWith("#")) {
          questions.add(q);
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot read " + source.describe(OUT_OF_SCOPE_FILE), e);
    }
    return questions;
  }

  private static JsonNode readPackJson(PackSource source) {
    String file = source.describe(PACK_FILE);
    try (InputStream in = source.open(PACK_FILE)) {
      if (in == null) {
        throw new IllegalArgumentException("FAQ pack file missing: " + file);
      }
      JsonNode node;
      try {
        node = JSON.readTree(reader(in));
      } catch (JsonProcessingException e) {
        throw invalid(file, line(e.getLocation()), e.getOriginalMessage(), e);
      }
      if (node == null || !node.isObject()) {
        throw invalid(file, 1, "expected a JSON object");
      }
      return node;
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot read " + file, e);
    }
  }

  private static List<FaqEntry> readEntries(PackSource source) {
    String file = source.describe(ENTRIES_FILE);
    List<FaqEntry> entries = new ArrayList<>();
    Map<String, Integer> firstLine = new HashMap<>();
    try (InputStream in = source.open(ENTRIES_FILE)) {
      if (in == null) {
        throw new IllegalArgumentException("FAQ pack file missing: " + file);
      }
      BufferedReader r = new BufferedReader(reader(in));
      String line;
      int lineNo = 0;
      while ((line = r.readLine()) != null) {
        lineNo++;
        if (lineNo == 1 && line.startsWith("\uFEFF")) {
          line = line.substring(1);
        }
        if (line.isBlank()) {
          continue;
        }
        JsonNode node;
        try {
          node = JSON.readTree(line);
        } catch (JsonProcessingException e) {
          throw invalid(file, lineNo, e.getOriginalMessage(), e);
        }
        if (node == null || !node.isObject()) {
          throw invalid(file, lineNo, "expected one JSON object per line");
        }
        String id = requiredText(node, "id", file, lineNo);
        Integer previous = firstLine.putIfAbsent(id, lineNo);
        if (previous != null) {
          throw invalid(file, lineNo, "duplicate id '" + id + "' (first on line " + previous + ")");
        }
        entries.add(
            new FaqEntry(
                id,
                requiredText(node, "question", file, lineNo),
                requiredText(node, "answer", file, lineNo),
                textList(node, "phrasings", file, lineNo),
                textList(node, "keywords", file, lineNo),
                optionalText(node, "category", file, lineNo)));
      }
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot read " + file, e);
    }
    if (entries.isEmpty()) {
      throw invalid(file, 1, "no entries");
    }
    return entries;
  }

  /** Streams intents.json so that errors can name the line of the offending rule or pattern. */
  private static List<IntentRule> readIntents(PackSource source) {
    String file = source.describe(INTENTS_FILE);
    List<IntentRule> rules = new ArrayList<>();
    try (InputStream in = source.open(INTENTS_FILE)) {
      if (in == null) {
        return rules; // optional
      }
      try (JsonParser p = JSON.createParser(reader(in))) {
        JsonToken t = p.nextToken();
        if (t != JsonToken.START_ARRAY) {
          throw invalid(file, line(p.currentTokenLocation()), "expected a JSON array of rules");
        }
        while ((t = p.nextToken()) != JsonToken.END_ARRAY) {
          int ruleLine = line(p.currentTokenLocation());
          if (t != JsonToken.START_OBJECT) {
            throw invalid(file, ruleLine, "expected a rule object {\"intent\", \"patterns\"}");
          }
          String intent = null;
          List<Pattern> patterns = null;
          while ((t = p.nextToken()) != JsonToken.END_OBJECT) {
            String field = p.currentName();
            t = p.nextToken();
            int valueLine = line(p.currentTokenLocation());
            if ("intent".equals(field)) {
              if (t != JsonToken.VALUE_STRING || p.getText().isBlank()) {
                throw invalid(file, valueLine, "\"intent\" must be a non-empty string");
              }
              intent = p.getText().trim();
            } else if ("patterns".equals(field)) {
              if (t != JsonToken.START_ARRAY) {
                throw invalid(file, valueLine, "\"patterns\" must be an array of regex strings");
              }
              patterns = new ArrayList<>();
              while ((t = p.nextToken()) != JsonToken.END_ARRAY) {
                int patternLine = line(p.currentTokenLocation());
                if (t != JsonToken.VALUE_STRING || p.getText().isEmpty()) {
                  throw invalid(file, patternLine, "a pattern must be a non-empty string");
                }
                try {
                  patterns.add(Pattern.compile(p.getText()));
                } catch (PatternSyntaxException e) {
                  throw invalid(file, patternLine, "invalid regex: " + e.getMessage(), e);
                }
              }
            } else {
              p.skipChildren(); // unknown field, e.g. "comment"
            }
          }
          if (intent == null) {
            throw invalid(file, ruleLine, "rule without \"intent\"");
          }
          if (patterns == null || patterns.isEmpty()) {
            throw invalid(file, ruleLine, "rule '" + intent + "' without \"patterns\"");
          }
          rules.add(new IntentRule(intent, patterns));
        }
        if (p.nextToken() != null) {
          throw invalid(
              file, line(p.currentTokenLocation()), "unexpected content after the rules array");
        }
      } catch (JsonProcessingException e) {
        throw invalid(file, line(e.getLocation()), e.getOriginalMessage(), e);
      }
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot read " + file, e);
    }
    return rules;
  }

  private static Reader reader(InputStream in) {
    return new InputStreamReader(in, StandardCharsets.UTF_8);
  }

  private static String requiredText(JsonNode node, String field, String file, int line) {
    String value = optionalText(node, field, file, line);
    if (value == null || value.isBlank()) {
      throw invalid(file, line, "missing or empty \"" + field + "\"");
    }
    return value;
  }

  private static String optionalText(JsonNode node, String field, String file, int line) {
    JsonNode v = node.get(field);
    if (v == null || v.isNull()) {
      return null;
    }
    if (!v.isTextual()) {
      throw invalid(file, line, "\"" + field + "\" must be a string");
    }
    return v.textValue().trim();
  }

  private static List<String> textList(JsonNode node, String field, String file, int line) {
    JsonNode v = node.get(field);
    if (v == null || v.isNull()) {
      return List.of();
    }
    if (!v.isArray()) {
      throw invalid(file, line, "\"" + field + "\" must be an array of strings");
    }
    List<String> out = new ArrayList<>(v.size());
    for (JsonNode item : v) {
      if (!item.isTextual()) {
        throw invalid(file, line, "\"" + field + "\" must contain only strings");
      }
      String s = item.textValue().trim();
      if (!s.isEmpty()) {
        out.add(s);
      }
    }
    return out;
  }

  private static int line(JsonLocation location) {
    return location == null || location.getLineNr() < 1 ? 1 : location.getLineNr();
  }

  static IllegalArgumentException invalid(String file, int line, String message) {
    return invalid(file, line, message, null);
  }

  private static IllegalArgumentException invalid(
      String file, int line, String message, Throwable cause) {
    return new IllegalArgumentException(
        "Invalid FAQ pack file " + file + ", line " + line + ": " + message, cause);
  }
}
