package com.flashcoupon.api.device;

import static com.flashcoupon.api.support.ProblemAssert.expectProblem;
import static org.mockito.Mockito.verifyNoInteractions;

import com.flashcoupon.api.blocking.BlockingIo;
import com.flashcoupon.api.support.Tokens;
import com.flashcoupon.api.support.WebSliceBase;
import com.flashcoupon.api.support.WebSliceTest;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;
import org.springframework.context.annotation.Import;
import org.springframework.http.HttpMethod;
import org.springframework.http.MediaType;
import org.springframework.test.context.bean.override.mockito.MockitoBean;

/** Registering a push token with bad input (docs/http-api.md, devices): a problem, and the repository never called. */
@WebSliceTest
@Import({DeviceController.class, BlockingIo.class, DeviceWebTest.Settings.class})
class DeviceWebTest extends WebSliceBase {

    private static final String JSON = MediaType.APPLICATION_JSON_VALUE;
    private static final String PATH = "/api/v1/me/devices/tok-1";

    @MockitoBean
    private DeviceRepository devices;

    @org.springframework.boot.test.context.TestConfiguration(proxyBeanMethods = false)
    @org.springframework.boot.context.properties.EnableConfigurationProperties(DeviceProperties.class)
    static class Settings {}

    static Stream<Arguments> badRegistrations() {
        return Stream.of(
                Arguments.of("unknown platform", PATH, JSON, "{\"platform\": \"BLACKBERRY\"}", 400, "INVALID_REQUEST"),
                Arguments.of("platform a number", PATH, JSON, "{\"platform\": 1}", 400, "INVALID_REQUEST"),
                Arguments.of("missing platform", PATH, JSON, "{}", 400, "INVALID_REQUEST"),
                Arguments.of("not JSON", PATH, JSON, "ANDROID", 400, "INVALID_REQUEST"),
                Arguments.of("platform null", PATH, JSON, "{\"platform\": null}", 400, "INVALID_REQUEST"),
                Arguments.of(
                        "platform in lower case", PATH, JSON, "{\"platform\": \"android\"}", 400, "INVALID_REQUEST"),
                Arguments.of("an array", PATH, JSON, "[]", 400, "INVALID_REQUEST"),
                Arguments.of(
                        "token with a space",
                        "/api/v1/me/devices/tok%201",
                        JSON,
                        "{\"platform\": \"ANDROID\"}",
                        400,
                        "INVALID_REQUEST"),
                Arguments.of(
                        "token of 300 characters",
                        "/api/v1/me/devices/" + "t".repeat(300),
                        JSON,
                        "{\"platform\": \"ANDROID\"}",
                        400,
                        "INVALID_REQUEST"),
                Arguments.of("text/plain", PATH, MediaType.TEXT_PLAIN_VALUE, "IOS", 415, "UNSUPPORTED_MEDIA_TYPE"),
                Arguments.of(
                        "form content type",
                        PATH,
                        MediaType.APPLICATION_FORM_URLENCODED_VALUE,
                        "platform=ANDROID",
                        415,
                        "UNSUPPORTED_MEDIA_TYPE"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("badRegistrations")
    void shouldRefuseWithoutTouchingTheRepositoryWhenTheInputIsBad(
            String label, String path, String type, String body, int status, String code) {
        expectProblem(call(HttpMethod.PUT, path, Tokens.member("m-1"), type, body), status, code);
        verifyNoInteractions(devices);
    }

    @ParameterizedTest
    @ValueSource(strings = {"bad+token", "bad!token", "bad~token", "bad,token", "tok%201"})
    void shouldRefuseATokenOutsideTheAlphabetWhenRegisteringOrUnregistering(String token) {
        String path = "/api/v1/me/devices/" + token;
        expectProblem(
                call(HttpMethod.PUT, path, Tokens.member("m-1"), JSON, "{\"platform\":\"IOS\"}"),
                400,
                "INVALID_REQUEST");
        expectProblem(call(HttpMethod.DELETE, path, Tokens.member("m-1"), null, null), 400, "INVALID_REQUEST");
        expectProblem(
                call(HttpMethod.DELETE, "/api/v1/me/devices/" + "x".repeat(256), Tokens.member("m-1"), null, null),
                400,
                "INVALID_REQUEST");
        verifyNoInteractions(devices);
    }
}
