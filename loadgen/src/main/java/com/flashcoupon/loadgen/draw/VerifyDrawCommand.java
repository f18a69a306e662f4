package com.flashcoupon.loadgen.draw;

import com.flashcoupon.loadgen.Flags;
import com.flashcoupon.loadgen.Flags.Option;
import com.flashcoupon.loadgen.UsageException;
import com.flashcoupon.loadgen.jwt.JwtMinter;
import java.io.IOException;
import java.io.PrintStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Stream;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * {@code verify-draw COUPON_ID}: fetches what the api publishes of a fair start's draw (the admin view and the
 * entrants' export), recomputes every ticket and place from the seed alone ({@link DrawCheck}), checks the seed against
 * the commitment, and compares with who holds a wallet coupon in MySQL (unless {@code --no-db}). Exit status 0 only
 * when every place matches; 1 naming the first difference otherwise; 2 on a bad argument; 3 when the api or MySQL
 * could not be read.
 */
public final class VerifyDrawCommand {

    public static final int VERIFIED = 0;
    public static final int DIFFERENT = 1;
    public static final int USAGE = 2;
    public static final int BROKEN = 3;

    static final List<Option> OPTIONS = List.of(
            new Option(
                    "api", "COUPON_API_URL", "base URL of the api (default http://127.0.0.1:$COUPON_API_PORT, 8080)"),
            new Option(
                    "operator-token",
                    "COUPON_OPERATOR_TOKEN",
                    "an operator's token (default: one minted with COUPON_JWT_SECRET)"),
            new Option("jwt-secret", "COUPON_JWT_SECRET", "HS256 secret to mint an operator's token with"),
            new Option("db-url", "COUPON_DB_URL", "JDBC URL (default jdbc:mysql://127.0.0.1:3306/coupon)"),
            new Option("db-user", "COUPON_DB_USER", "database user (default coupon)"),
            new Option("db-password", "COUPON_DB_PASSWORD", "database password (default coupon)"));

    private static final Duration TIMEOUT = Duration.ofMinutes(5);

    private final PrintStream out;
    private final PrintStream err;
    private final JsonMapper json = JsonMapper.builder().build();

    public VerifyDrawCommand(PrintStream out, PrintStream err) {
        this.out = out;
        this.err = err;
    }

    public static String usage() {
        return "verify-draw COUPON_ID [--no-db] [--commitment HEX] [flags]: recompute a fair start's draw from its"
                + " published seed and check every place\n"
                + "verify-draw --public BASE_URL COUPON_ID [--commitment HEX]: the same from the public record alone,"
                + " no token (draws made with function 2)\n"
                + "  --no-db  check only what the api publishes, not the wallet coupons in MySQL\n"
                + "  --commitment HEX  the commitment saved when the event was announced: it must be the one published\n"
                + "  --beacon URL  a draw that mixed in a randomness beacon round (function 3): read that round again"
                + " from the beacon (drand's HTTP API) and check it is the first after drawAt and the one recorded\n"
                + Flags.usage(OPTIONS);
    }

    public int run(List<String> arguments, Map<String, String> env) throws InterruptedException {
        List<String> args = new ArrayList<>(arguments);
        String savedCommitment = null;
        int at = args.indexOf("--commitment");
        if (at >= 0) {
            if (at + 1 >= args.size() || !args.get(at + 1).matches("[0-9a-fA-F]{64}")) {
                throw new UsageException("--commitment needs the 64 hex digits saved when the event was announced");
            }
            savedCommitment = args.get(at + 1).toLowerCase(Locale.ROOT);
            args.remove(at + 1);
            args.remove(at);
        }
        String beaconUrl = null;
        int beaconAt = args.indexOf("--beacon");
        if (beaconAt >= 0) {
            if (beaconAt + 1 >= args.size() || !args.get(beaconAt + 1).matches("https?://.+")) {
                throw new UsageException("--beacon needs the beacon's http(s) URL");
            }
            beaconUrl = args.get(beaconAt + 1);
            args.remove(beaconAt + 1);
            args.remove(beaconAt);
        }
        if (!args.isEmpty() && args.getFirst().equals("--public")) {
            return new PublicVerification(out, err).run(args.subList(1, args.size()), savedCommitment, beaconUrl);
        }
        if (args.isEmpty() || args.getFirst().startsWith("-")) {
            if (args.contains("--help") || args.contains("-h")) {
                out.print(usage());
                return VERIFIED;
            }
            throw new UsageException("verify-draw needs a coupon id");
        }
        long couponId;
        try {
            couponId = Long.parseLong(args.getFirst());
        } catch (NumberFormatException e) {
            throw new UsageException("not a coupon id: " + args.getFirst());
        }
        List<String> rest = new ArrayList<>(args.subList(1, args.size()));
        boolean withDb = !rest.remove("--no-db");
        Flags flags = Flags.parse(rest, OPTIONS, env);
        String api = flags.string("api", "http://127.0.0.1:" + env.getOrDefault("COUPON_API_PORT", "8080"));
        String token = flags.find("operator-token").orElseGet(() -> operatorToken(flags));

        DrawCheck.Published published;
        Instant drawAt;
        List<DrawCheck.Entrant> entrants;
        HttpClient http =
                HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();
        try {
            published = published(http, api, token, couponId);
            if (published == null) {
                return BROKEN;
            }
            drawAt = this.drawAt;
            entrants = entrants(http, api, token, couponId);
            if (entrants == null) {
                return BROKEN;
            }
        } catch (IOException e) {
            err.println("verify-draw: cannot read the api at " + api + ": " + e);
            return BROKEN;
        }
        List<DrawCheck.Wallet> wallets = List.of();
        if (withDb) {
            try {
                wallets = wallets(flags, couponId);
            } catch (SQLException e) {
                err.println("verify-draw: cannot read the wallets in MySQL (--no-db skips them): " + e.getMessage());
                return BROKEN;
            }
        }

        List<String> differences = new ArrayList<>();
        if (savedCommitment != null && !savedCommitment.equals(published.commitment())) {
            differences.add("the commitment published now, " + published.commitment()
                    + ", is not the one saved earlier, " + savedCommitment);
        }
        differences.addAll(DrawCheck.differences(published, entrants, wallets));
        if (beaconUrl != null) {
            try {
                differences.addAll(BeaconCheck.differences(http, beaconUrl, drawAt, published.beacon()));
            } catch (IOException | RuntimeException e) {
                err.println("verify-draw: cannot read the beacon at " + beaconUrl + ": " + e);
                return BROKEN;
            }
        }
        out.printf(
                Locale.ROOT,
                "coupon %d: %,d entrants, %,d placed; commitment %s; %,d tickets and places recomputed from seed %s;"
                        + " %s%n",
                couponId,
                published.entrants(),
                published.placed(),
                published.commitment(),
                entrants.size(),
                published.seed(),
                withDb
                        ? String.format(Locale.ROOT, "%,d wallet coupons compared in MySQL", wallets.size())
                        : "wallets not compared (--no-db)");
        if (differences.isEmpty()) {
            out.println("OK: the seed matches its commitment"
                    + (published.beacon() != null
                            ? ", the beacon round " + published.beacon().round() + " is mixed in"
                                    + (beaconUrl != null ? " (as the beacon publishes it)" : "")
                            : "")
                    + " and every ticket and place matches the draw");
            return VERIFIED;
        }
        out.println("DIFFERENT: " + differences.getFirst());
        if (differences.size() > 1) {
            out.printf(Locale.ROOT, "  and %,d more:%n", differences.size() - 1);
            differences.stream().skip(1).limit(20).forEach(difference -> out.println("  " + difference));
        }
        return DIFFERENT;
    }

    private String operatorToken(Flags flags) {
        String secret = flags.find("jwt-secret")
                .orElseThrow(() -> new UsageException("give COUPON_OPERATOR_TOKEN or COUPON_JWT_SECRET"));
        try {
            return new JwtMinter(secret, Clock.systemUTC(), Duration.ofMinutes(30)).operator("verify-draw");
        } catch (IllegalArgumentException e) {
            throw new UsageException(e.getMessage());
        }
    }

    /** The admin view's draw; null (after saying why) when there is none to check. */
    private DrawCheck.Published published(HttpClient http, String api, String token, long couponId)
            throws IOException, InterruptedException {
        HttpResponse<String> answer =
                http.send(request(api + "/admin/v1/coupons/" + couponId, token), HttpResponse.BodyHandlers.ofString());
        if (answer.statusCode() != 200) {
            err.println("verify-draw: GET /admin/v1/coupons/" + couponId + " answered " + answer.statusCode() + " "
                    + answer.body());
            return null;
        }
        JsonNode view = json.readTree(answer.body());
        if (view.path("draw").isMissingNode() || view.path("draw").isNull()) {
            err.println("verify-draw: coupon " + couponId + " has no draw (it is first come, first served)");
            return null;
        }
        if (!"MADE".equals(view.path("draw").path("state").asString())) {
            err.println("verify-draw: the draw of coupon " + couponId + " is not made yet ("
                    + view.path("draw").path("state") + "); its seed is published once it is");
            return null;
        }
        String at = view.path("draw").path("drawAt").asString("");
        drawAt = at.isEmpty() ? null : Instant.parse(at);
        return published(view);
    }

    /** The drawAt of the draw {@link #published(HttpClient, String, String, long)} read last. */
    private Instant drawAt;

    /** What an admin view ({@code GET /admin/v1/coupons/{id}}) publishes of a made draw. */
    public static DrawCheck.Published published(JsonNode view) {
        JsonNode draw = view.path("draw");
        return new DrawCheck.Published(
                view.path("id").asLong(),
                view.path("totalQuantity").asLong(),
                text(draw, "commitment"),
                text(draw, "seed"),
                text(draw, "entrantsDigest"),
                draw.path("entrants").asLong(),
                draw.path("placed").asLong(),
                draw.path("firstSequence").asLong(),
                DrawCheck.Beacon.of(draw.path("beacon")));
    }

    /** The entrants' export, line by line; null (after saying why) when it cannot be read. */
    private List<DrawCheck.Entrant> entrants(HttpClient http, String api, String token, long couponId)
            throws IOException, InterruptedException {
        String path = "/admin/v1/coupons/" + couponId + "/draw/entrants";
        HttpResponse<Stream<String>> answer =
                http.send(request(api + path, token), HttpResponse.BodyHandlers.ofLines());
        try (Stream<String> lines = answer.body()) {
            if (answer.statusCode() != 200) {
                err.println("verify-draw: GET " + path + " answered " + answer.statusCode() + " "
                        + String.join("\n", lines.toList()));
                return null;
            }
            return lines.skip(1)
                    .filter(line -> !line.isEmpty())
                    .map(VerifyDrawCommand::entrant)
                    .toList();
        }
    }

    /**
     * One export line: memberId, ticket, place or '-', walletCouponId or '-', failureReason or '-', and for a draw made
     * with function 2, the pseudonym.
     */
    public static DrawCheck.Entrant entrant(String line) {
        String[] fields = line.split("\t", -1);
        if (fields.length != 5 && fields.length != 6) {
            throw new IllegalArgumentException("an export line has 5 or 6 tab-separated fields: " + line);
        }
        return new DrawCheck.Entrant(
                fields[0],
                fields[1],
                fields[2].equals("-") ? 0 : Integer.parseInt(fields[2]),
                fields[3].equals("-") ? null : Long.valueOf(fields[3]),
                fields[4].equals("-") ? null : fields[4],
                fields.length == 6 ? fields[5] : null);
    }

    private static List<DrawCheck.Wallet> wallets(Flags flags, long couponId) throws SQLException {
        List<DrawCheck.Wallet> wallets = new ArrayList<>();
        try (var connection = DriverManager.getConnection(
                        flags.string("db-url", "jdbc:mysql://127.0.0.1:3306/coupon"),
                        flags.string("db-user", "coupon"),
                        flags.string("db-password", "coupon"));
                var statement = connection.prepareStatement(
                        "SELECT member_id, request_seq FROM coupon_wallet WHERE coupon_id = ?")) {
            statement.setLong(1, couponId);
            try (var rows = statement.executeQuery()) {
                while (rows.next()) {
                    wallets.add(new DrawCheck.Wallet(rows.getString(1), rows.getLong(2)));
                }
            }
        }
        return wallets;
    }

    private static HttpRequest request(String url, String token) {
        return HttpRequest.newBuilder(URI.create(url))
                .timeout(TIMEOUT)
                .header("Authorization", "Bearer " + token)
                .GET()
                .build();
    }

    private static String text(JsonNode node, String field) {
        JsonNode value = node.path(field);
        return value.isMissingNode() || value.isNull() ? null : value.asString();
    }
}
