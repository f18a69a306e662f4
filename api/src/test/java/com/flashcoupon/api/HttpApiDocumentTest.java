package com.flashcoupon.api;

import static org.assertj.core.api.Assertions.assertThat;

import com.flashcoupon.api.support.ApiTest;
import com.flashcoupon.api.support.ApiTestBase;
import com.flashcoupon.api.web.ErrorCode;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

/**
 * docs/http-api.md against the running api: every operation of the generated OpenAPI document ({@code /v3/api-docs})
 * has a heading written exactly {@code ### `METHOD /path`} in the document, every such heading is an operation of the
 * OpenAPI document, and every {@link ErrorCode} has a row {@code | status | `CODE` | ... |} in its error table.
 */
@ApiTest
class HttpApiDocumentTest extends ApiTestBase {

    /** Tests run with the module folder as working directory. */
    static final Path DOCUMENT = Path.of("..", "docs", "http-api.md");

    private static final Pattern HEADING = Pattern.compile("^### `(GET|POST|PUT|PATCH|DELETE|HEAD|OPTIONS) (/\\S*)`$");
    private static final Pattern ERROR_ROW = Pattern.compile("^\\| (\\d{3}) \\| `([A-Z_]+)` \\|.*\\|$");
    private static final Set<String> METHODS = Set.of("get", "put", "post", "delete", "patch", "head", "options");

    private String document;

    @BeforeEach
    void readDocument() throws IOException {
        document = Files.readString(DOCUMENT, StandardCharsets.UTF_8);
    }

    @Test
    void shouldDocumentExactlyTheOperationsOfTheOpenApiDocument() {
        Set<String> generated = openApiOperations();
        Set<String> documented = documentedOperations(document);

        assertThat(generated).as("operations in /v3/api-docs").isNotEmpty();
        assertThat(difference(generated, documented))
                .as("operations of /v3/api-docs without a heading ### `METHOD /path` in %s", DOCUMENT)
                .isEmpty();
        assertThat(difference(documented, generated))
                .as("headings in %s that /v3/api-docs does not have", DOCUMENT)
                .isEmpty();
    }

    @Test
    void shouldNoticeAnOperationWhoseHeadingWasRemoved() {
        Set<String> generated = openApiOperations();
        Set<String> documented = documentedOperations(document);
        String removed = generated.stream()
                .filter(documented::contains)
                .findFirst()
                .orElseThrow(() -> new AssertionError("no operation of /v3/api-docs is documented"));
        String withoutIt = document.replace("### `" + removed + "`\n", "");

        assertThat(withoutIt).isNotEqualTo(document);
        assertThat(difference(generated, documentedOperations(withoutIt)))
                .containsAll(difference(generated, documented))
                .contains(removed);
    }

    @Test
    void shouldWriteEveryEndpointHeadingInTheOneParseableForm() {
        List<String> malformed = document.lines()
                .filter(line -> line.startsWith("### `"))
                .filter(line -> !HEADING.matcher(line).matches())
                .toList();
        assertThat(malformed).as("headings not written ### `METHOD /path`").isEmpty();
    }

    @Test
    void shouldListEveryErrorCodeWithItsStatus() {
        Map<String, Integer> documented = new LinkedHashMap<>();
        List<String> repeated = new ArrayList<>();
        document.lines().map(ERROR_ROW::matcher).filter(Matcher::matches).forEach(row -> {
            if (documented.put(row.group(2), Integer.parseInt(row.group(1))) != null) {
                repeated.add(row.group(2));
            }
        });

        Map<String, Integer> actual = new LinkedHashMap<>();
        Arrays.stream(ErrorCode.values())
                .forEach(code -> actual.put(code.name(), code.status().value()));

        assertThat(repeated).as("codes listed twice").isEmpty();
        assertThat(difference(actual.keySet(), documented.keySet()))
                .as("ErrorCode values without a row | status | `CODE` | when | in %s", DOCUMENT)
                .isEmpty();
        assertThat(difference(documented.keySet(), actual.keySet()))
                .as("codes in %s that ErrorCode does not have", DOCUMENT)
                .isEmpty();
        assertThat(documented).as("status of each code").isEqualTo(actual);
    }

    private Set<String> openApiOperations() {
        JsonNode paths = openApiPaths();
        Set<String> operations = new TreeSet<>();
        for (String path : paths.propertyNames()) {
            for (String method : paths.path(path).propertyNames()) {
                if (METHODS.contains(method)) {
                    operations.add(method.toUpperCase() + " " + path);
                }
            }
        }
        return operations;
    }

    static Set<String> documentedOperations(String text) {
        Set<String> operations = new TreeSet<>();
        List<String> repeated = new ArrayList<>();
        text.lines().map(HEADING::matcher).filter(Matcher::matches).forEach(heading -> {
            if (!operations.add(heading.group(1) + " " + heading.group(2))) {
                repeated.add(heading.group(1) + " " + heading.group(2));
            }
        });
        assertThat(repeated).as("operations with more than one heading").isEmpty();
        return operations;
    }

    private static Set<String> difference(Set<String> from, Set<String> minus) {
        Set<String> rest = new TreeSet<>(from);
        rest.removeAll(minus);
        return rest;
    }
}
