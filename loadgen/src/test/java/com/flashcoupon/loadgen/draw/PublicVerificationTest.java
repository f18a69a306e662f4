package com.flashcoupon.loadgen.draw;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * {@code verify-draw --public} against a local server that publishes docs/architecture.md's worked example of draw
 * function 2 as the api would: it passes; a list or record changed in any way, or a commitment other than the one
 * saved, fails naming the difference. No token is ever sent.
 */
class PublicVerificationTest {

    static final String COMMITMENT = "630dcd2966c4336691125448bbb25b4ff412a49c732db2c8abc1b8581bd710dd";
    static final String LIST = """
            pseudonym\tticket\tplace
            5f42f61caf5076fb441dc7589eb37cf27b2df35ec679fce446a0440290d94511\tf5265dc37d93edc85c5a4ec0d1f0b6a9889992b5a701caafab3ac55f753ec172\t-
            a806c3d8258fdf51a8b6e793f524d24d98e5a9fc6c81def0373c6ea3acbf2737\t4a022593b4116f19086cb1a03d7c796dabd02a6f5f68db2ffe3dd32c87523d7a\t2
            b1daf770db0cf339ea0706485fc62c68959d3721191a1ce7808bbb89b9743ff3\t03b19895dd1b68b83f2a337b8fd0ca613edd53849022e6a0ff54c7c954931648\t1
            b95ee3765f7394b9e5752009c7af0c565c892c7a0e2e358f3a5b635f191497b9\t50502c84542aa7b9fa0ac451f082338bfa8b68d962a0c5c91a6a6a423a31e0d5\t3
            ccea783291ccaaa8dfaf4df7aca147ff696216195dedfd381078f602370ffd49\t9757aed6604f077ea5fc15092b5c5cee62a61be1093f73258191d056cab9561b\t-
            """;
    static final String RECORD = """
            {"couponId":42,"state":"MADE","commitment":"%s","drawAt":"2020-01-02T00:01:00Z","entrants":5,
             "places":3,"entrantsRoot":"69e499fd3d8d39fce6b3fa2a7b1f3ad08bdd05cbf7b2bc2c7968581edec3db73",
             "placed":3,"seed":"000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f",
             "functionVersion":2,"entrantsPath":"/public/v1/coupons/42/draw/entrants"}""";

    private ServedPaths server;
    private Map<String, String> served;

    @BeforeEach
    void serve() throws Exception {
        server = new ServedPaths();
        served = server.bodies;
        served.put("/public/v1/coupons/42/draw", RECORD.formatted(COMMITMENT));
        served.put("/public/v1/coupons/42/draw/entrants", LIST);
    }

    @AfterEach
    void stop() {
        server.close();
    }

    @Test
    void shouldVerifyTheWorkedExampleFromItsPublicRecordWithNoToken() throws Exception {
        assertThat(verify()).startsWith("0 ").contains("OK: the seed matches its commitment");
        assertThat(verify("--commitment", COMMITMENT.toUpperCase()))
                .startsWith("0 ")
                .contains("the one saved earlier");
        assertThat(server.authorizations).isEmpty();
    }

    @Test
    void shouldFailATamperedListOrRecord() throws Exception {
        served.put(
                "/public/v1/coupons/42/draw/entrants",
                LIST.replace("\t2\n", "\t-\n")
                        .replace(
                                "ffd49\t9757aed6604f077ea5fc15092b5c5cee62a61be1093f73258191d056cab9561b\t-",
                                "ffd49\t9757aed6604f077ea5fc15092b5c5cee62a61be1093f73258191d056cab9561b\t2"));
        assertThat(verify()).startsWith("1 ").contains("should be place 2, the export says left out");

        served.put("/public/v1/coupons/42/draw/entrants", LIST.substring(0, LIST.lastIndexOf('\n')));
        assertThat(verify()).startsWith("1 ").contains("does not end with a line feed");

        served.put("/public/v1/coupons/42/draw/entrants", LIST);
        served.put(
                "/public/v1/coupons/42/draw", RECORD.formatted(COMMITMENT).replace("\"entrants\":5", "\"entrants\":6"));
        assertThat(verify()).startsWith("1 ").contains("the export lists 5 entrants, the draw says 6");
    }

    @Test
    void shouldFailACommitmentOtherThanTheOneSaved() throws Exception {
        String other = "0".repeat(64);
        assertThat(verify("--commitment", other)).startsWith("1 ").contains("is not the one saved earlier, " + other);
    }

    private String verify(String... extra) throws InterruptedException {
        var out = new ByteArrayOutputStream();
        var err = new ByteArrayOutputStream();
        List<String> args = new java.util.ArrayList<>(List.of("--public", server.url(), "42"));
        args.addAll(List.of(extra));
        int status = new VerifyDrawCommand(
                        new PrintStream(out, true, StandardCharsets.UTF_8),
                        new PrintStream(err, true, StandardCharsets.UTF_8))
                .run(args, Map.of());
        return status + " " + out.toString(StandardCharsets.UTF_8) + err.toString(StandardCharsets.UTF_8);
    }
}
