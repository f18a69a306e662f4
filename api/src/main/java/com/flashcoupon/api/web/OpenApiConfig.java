package com.flashcoupon.api.web;

import io.swagger.v3.oas.models.Components;
import io.swagger.v3.oas.models.OpenAPI;
import io.swagger.v3.oas.models.Operation;
import io.swagger.v3.oas.models.info.Info;
import io.swagger.v3.oas.models.media.ArraySchema;
import io.swagger.v3.oas.models.media.Content;
import io.swagger.v3.oas.models.media.IntegerSchema;
import io.swagger.v3.oas.models.media.MediaType;
import io.swagger.v3.oas.models.media.ObjectSchema;
import io.swagger.v3.oas.models.media.Schema;
import io.swagger.v3.oas.models.media.StringSchema;
import io.swagger.v3.oas.models.responses.ApiResponse;
import io.swagger.v3.oas.models.security.SecurityRequirement;
import io.swagger.v3.oas.models.security.SecurityScheme;
import java.util.List;
import java.util.Map;
import org.springdoc.core.customizers.OpenApiCustomizer;
import org.springdoc.core.models.GroupedOpenApi;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * The OpenAPI document at {@code /v3/api-docs} (UI at {@code /swagger-ui.html}) is generated from the controllers; this
 * adds what is true of every operation (docs/http-api.md, Authentication and Errors): the bearer scheme, 401/403 where a token
 * is needed, 429 and 503 everywhere, 400 wherever input is read, and every error body as {@code Problem}.
 */
@Configuration(proxyBeanMethods = false)
public class OpenApiConfig {

    static final String PROBLEM = "Problem";
    static final String BEARER = "bearer-jwt";

    /** The group of the member's paths (and the public records). */
    public static final String MEMBER_GROUP = "member";

    @Bean
    OpenAPI flashCouponOpenApi() {
        return new OpenAPI()
                .info(new Info()
                        .title("flash-coupon")
                        .version("v1")
                        .description("First-come coupon issuance during flash events. Errors are"
                                + " application/problem+json with a stable `code`."))
                .components(new Components()
                        .addSecuritySchemes(
                                BEARER,
                                new SecurityScheme()
                                        .type(SecurityScheme.Type.HTTP)
                                        .scheme("bearer")
                                        .bearerFormat("JWT"))
                        .addSchemas(PROBLEM, problemSchema()));
    }

    /**
     * The member's part of the document, {@code /v3/api-docs/member}: what a public port serves at {@code /v3/api-docs}
     * when the operators' and the order service's paths are on a private plane (PlaneFilter), so that the public
     * document does not list paths the public port does not answer.
     */
    @Bean
    GroupedOpenApi memberDocument() {
        return GroupedOpenApi.builder()
                .group(MEMBER_GROUP)
                .pathsToMatch("/api/**", "/public/v1/**", "/.well-known/**")
                // springdoc adds the document's own paths-to-match (api.yml) to a group's: exclude the others' paths
                .pathsToExclude("/admin/**", "/internal/**")
                .addOpenApiCustomizer(contractResponses())
                .build();
    }

    @Bean
    OpenApiCustomizer contractResponses() {
        return openApi -> openApi.getPaths()
                .forEach((path, item) -> item.readOperationsMap().forEach((method, operation) -> {
                    boolean secured = path.startsWith("/api/") || path.startsWith("/admin/");
                    if (secured) {
                        operation.addSecurityItem(new SecurityRequirement().addList(BEARER));
                        addIfMissing(operation, "401", "UNAUTHORIZED: no or bad token");
                        addIfMissing(
                                operation,
                                "403",
                                path.startsWith("/admin/")
                                        ? "FORBIDDEN: the token lacks the coupon-admin role"
                                        : "FORBIDDEN: not allowed");
                    }
                    if ((operation.getParameters() != null
                                    && !operation.getParameters().isEmpty())
                            || operation.getRequestBody() != null) {
                        addIfMissing(operation, "400", "INVALID_REQUEST: malformed or invalid input");
                    }
                    if (operation.getRequestBody() != null) {
                        addIfMissing(operation, "413", "PAYLOAD_TOO_LARGE: body over 16 KiB");
                    }
                    addIfMissing(operation, "429", "RATE_LIMITED: too many calls; see Retry-After");
                    addIfMissing(operation, "503", "UNAVAILABLE: a backing service is down");
                    operation.getResponses().forEach((code, response) -> {
                        if (code.startsWith("4") || code.startsWith("5")) {
                            response.setContent(new Content()
                                    .addMediaType(
                                            "application/problem+json",
                                            new MediaType().schema(new Schema<>().$ref(PROBLEM))));
                        }
                    });
                }));
    }

    private static void addIfMissing(Operation operation, String code, String description) {
        if (!operation.getResponses().containsKey(code)) {
            operation.getResponses().addApiResponse(code, new ApiResponse().description(description));
        }
    }

    @SuppressWarnings({"rawtypes", "unchecked"})
    private static Schema problemSchema() {
        Schema fieldError =
                new ObjectSchema().addProperty("field", new StringSchema()).addProperty("message", new StringSchema());
        return new ObjectSchema()
                .description("RFC 9457 problem with the contract's stable code")
                .properties(Map.of(
                        "type", new StringSchema(),
                        "title", new StringSchema(),
                        "status", new IntegerSchema(),
                        "detail", new StringSchema(),
                        "code", new StringSchema().example("SOLD_OUT"),
                        "errors", new ArraySchema().items(fieldError)))
                .required(List.of("type", "title", "status", "detail", "code"));
    }
}
