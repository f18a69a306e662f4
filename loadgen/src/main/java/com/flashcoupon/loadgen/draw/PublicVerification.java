package com.flashcoupon.loadgen.draw;

import com.flashcoupon.loadgen.UsageException;
import java.io.IOException;
import java.io.PrintStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * {@code verify-draw --public BASE_URL COUPON_ID [--commitment HEX]}: a fair start's draw checked from its public
 * record alone, with no token, as any member or outsider can (docs/http-api.md, "Public records"): the record ({@code
 * GET /public/v1/coupons/{id}/draw}) and the pseudonymous list of entrants it points to, recomputed with draw function
 * 2 as docs/architecture.md states it ({@link DrawCheck}); with {@code --commitment}, the commitment saved when the
 * event was announced must be the one published now. Exit status as {@link VerifyDrawCommand}'s.
 */
final class PublicVerification {

    private static final Duration TIMEOUT = Duration.ofMinutes(5);

    private final PrintStream out;
    private final PrintStream err;
    private final JsonMapper json = JsonMapper.builder().build();

    PublicVerification(PrintStream out, PrintStream err) {
        this.out = out;
        this.err = err;
    }

    /** {@code args}: BASE_URL COUPON_ID; {@code savedCommitment}: null when none was given. */
    int run(List<String> args, String savedCommitment) throws InterruptedException {
        return run(args, savedCommitment, null);
    }

    /** As {@link #run(List, String)}; {@code beaconUrl}: the beacon to read a function 3 draw's round from, or null. */
    int run(List<String> args, String savedCommitment, String beaconUrl) throws InterruptedException {
        if (args.size() != 2) {
            throw new UsageException("verify-draw --public needs BASE_URL and COUPON_ID");
        }
        String base = args.get(0).replaceAll("/+$", "");
        long couponId;
        try {
            couponId = Long.parseLong(args.get(1));
        } catch (NumberFormatException e) {
            throw new UsageException("not a coupon id: " + args.get(1));
        }
        HttpClient http =
                HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();
        JsonNode record;
        List<String> lines;
        try {
            HttpResponse<String> answer = http.send(
                    get(base + "/public/v1/coupons/" + couponId + "/draw"), HttpResponse.BodyHandlers.ofString());
            if (answer.statusCode() != 200) {
                err.println("verify-draw: the public record of coupon " + couponId + " answered " + answer.statusCode()
                        + " " + answer.body());
                return VerifyDrawCommand.BROKEN;
            }
            record = json.readTree(answer.body());
            if (!"MADE".equals(text(record, "state"))) {
                err.println("verify-draw: the draw of coupon " + couponId + " is not made yet (" + text(record, "state")
                        + "); its seed and list are published once it is");
                return VerifyDrawCommand.BROKEN;
            }
            int version = record.path("functionVersion").asInt();
            if (version == 3 && DrawCheck.Beacon.of(record.path("beacon")) == null) {
                err.println("verify-draw: coupon " + couponId + " was drawn with function 3 but its record shows no"
                        + " beacon round");
                return VerifyDrawCommand.DIFFERENT;
            }
            if (version != 2 && version != 3) {
                err.println("verify-draw: coupon " + couponId + " was drawn with function "
                        + record.path("functionVersion").asInt() + ", whose list names members and is not public:"
                        + " verify it with an operator's token (verify-draw COUPON_ID)");
                return VerifyDrawCommand.BROKEN;
            }
            HttpResponse<String> list =
                    http.send(get(base + text(record, "entrantsPath")), HttpResponse.BodyHandlers.ofString());
            if (list.statusCode() != 200) {
                err.println("verify-draw: GET " + text(record, "entrantsPath") + " answered " + list.statusCode() + " "
                        + list.body());
                return VerifyDrawCommand.BROKEN;
            }
            lines = List.of(list.body().split("\n", -1));
        } catch (IOException e) {
            err.println("verify-draw: cannot read the public record at " + base + ": " + e);
            return VerifyDrawCommand.BROKEN;
        }

        List<String> differences = new ArrayList<>();
        if (savedCommitment != null && !savedCommitment.equalsIgnoreCase(text(record, "commitment"))) {
            differences.add("the commitment published now, " + text(record, "commitment")
                    + ", is not the one saved earlier, " + savedCommitment.toLowerCase(Locale.ROOT));
        }
        List<DrawCheck.Entrant> entrants = entrants(lines, differences);
        long placed = record.path("placed").asLong();
        DrawCheck.Published published = new DrawCheck.Published(
                couponId,
                placed,
                text(record, "commitment"),
                text(record, "seed"),
                text(record, "entrantsRoot"),
                record.path("entrants").asLong(),
                placed,
                0,
                DrawCheck.Beacon.of(record.path("beacon")));
        differences.addAll(DrawCheck.differences(published, entrants, List.of()));
        if (beaconUrl != null) {
            try {
                differences.addAll(BeaconCheck.differences(
                        http, beaconUrl, java.time.Instant.parse(text(record, "drawAt")), published.beacon()));
            } catch (IOException | RuntimeException e) {
                err.println("verify-draw: cannot read the beacon at " + beaconUrl + ": " + e);
                return VerifyDrawCommand.BROKEN;
            }
        }
        out.printf(
                Locale.ROOT,
                "coupon %d (public record, function %d): %,d entrants, %,d placed; commitment %s; %,d tickets and"
                        + " places recomputed from seed %s and root %s%n",
                couponId,
                record.path("functionVersion").asInt(),
                published.entrants(),
                placed,
                published.commitment(),
                entrants.size(),
                published.seed(),
                published.entrantsDigest());
        if (differences.isEmpty()) {
            out.println("OK: the seed matches its commitment"
                    + (savedCommitment != null ? " (the one saved earlier)" : "")
                    + (published.beacon() != null
                            ? ", the beacon round " + published.beacon().round() + " is mixed in"
                                    + (beaconUrl != null ? " (as the beacon publishes it)" : "")
                            : "")
                    + " and every ticket and place matches the draw");
            return VerifyDrawCommand.VERIFIED;
        }
        out.println("DIFFERENT: " + differences.getFirst());
        if (differences.size() > 1) {
            out.printf(Locale.ROOT, "  and %,d more:%n", differences.size() - 1);
            differences.stream().skip(1).limit(20).forEach(difference -> out.println("  " + difference));
        }
        return VerifyDrawCommand.DIFFERENT;
    }

    /**
     * The list's lines as entrants (a line names nobody: its member is its pseudonym), checking its documented form:
     * the header, three tab-separated fields, ascending pseudonyms, a line feed after every line.
     */
    static List<DrawCheck.Entrant> entrants(List<String> lines, List<String> differences) {
        if (lines.isEmpty() || !lines.getFirst().equals("pseudonym\tticket\tplace")) {
            differences.add("the list does not start with the header pseudonym\\tticket\\tplace");
        }
        if (lines.size() < 2 || !lines.getLast().isEmpty()) {
            differences.add("the list's last line does not end with a line feed");
        }
        List<DrawCheck.Entrant> entrants = new ArrayList<>();
        String previous = null;
        for (String line : lines.subList(Math.min(1, lines.size()), Math.max(1, lines.size() - 1))) {
            String[] fields = line.split("\t", -1);
            if (fields.length != 3 || line.contains("\r")) {
                differences.add("a line of the list is not pseudonym\\tticket\\tplace: " + line);
                continue;
            }
            if (previous != null && previous.compareTo(fields[0]) >= 0) {
                differences.add("the list is not in ascending order of the pseudonyms at " + fields[0]);
            }
            previous = fields[0];
            int place = fields[2].equals("-") ? 0 : Integer.parseInt(fields[2]);
            entrants.add(new DrawCheck.Entrant(fields[0], fields[1], place, null, null, fields[0]));
        }
        return entrants;
    }

    private static HttpRequest get(String url) {
        return HttpRequest.newBuilder(URI.create(url)).timeout(TIMEOUT).GET().build();
    }

    private static String text(JsonNode node, String field) {
        JsonNode value = node.path(field);
        return value.isMissingNode() || value.isNull() ? null : value.asString();
    }
}
