package com.flashcoupon.api.support;

import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.springframework.core.ParameterizedTypeReference;
import org.springframework.http.MediaType;
import org.springframework.http.codec.ServerSentEvent;
import org.springframework.web.reactive.function.client.WebClient;
import reactor.core.Disposable;

/** One member's live status stream, opened over a real connection and collected as it comes, comments included. */
public final class MemberStream {

    private static final ParameterizedTypeReference<ServerSentEvent<Map<String, Object>>> EVENT =
            new ParameterizedTypeReference<>() {};

    public final List<ServerSentEvent<Map<String, Object>>> events = new CopyOnWriteArrayList<>();
    public final List<Throwable> errors = new CopyOnWriteArrayList<>();
    public volatile boolean completed;
    private final Disposable subscription;

    private MemberStream(int port, String path, String memberId, String lastEventId) {
        this.subscription = WebClient.create("http://127.0.0.1:" + port)
                .get()
                .uri(path)
                .header("Authorization", "Bearer " + TestEnvironment.memberToken(memberId))
                .headers(headers -> {
                    if (lastEventId != null) {
                        headers.set("Last-Event-ID", lastEventId);
                    }
                })
                .accept(MediaType.TEXT_EVENT_STREAM)
                .retrieve()
                .bodyToFlux(EVENT)
                .subscribe(events::add, errors::add, () -> completed = true);
    }

    public static MemberStream open(int port, long couponId, String memberId) {
        return open(port, "/api/v1/coupons/" + couponId + "/issue-requests/me/events", memberId, null);
    }

    /** The stream at {@code path}, resumed from {@code lastEventId} when it is not null. */
    public static MemberStream open(int port, String path, String memberId, String lastEventId) {
        return new MemberStream(port, path, memberId, lastEventId);
    }

    public boolean started() {
        return !events.isEmpty();
    }

    /** The first event, heartbeats left out (see {@link #last}). */
    public ServerSentEvent<Map<String, Object>> first() {
        return events.stream()
                .filter(MemberStream::isEvent)
                .findFirst()
                .orElseThrow(() -> new AssertionError("no event yet, only " + events.size() + " heartbeats"));
    }

    private static boolean isEvent(ServerSentEvent<?> event) {
        return event.event() != null || event.data() != null || event.id() != null;
    }

    /**
     * The last event, heartbeats left out: a heartbeat is a comment sent to every stream on the hub's clock, so one may
     * follow any event (a run on a loaded machine saw one arrive after a stream's first statuses).
     */
    public ServerSentEvent<Map<String, Object>> last() {
        return events.reversed().stream()
                .filter(MemberStream::isEvent)
                .findFirst()
                .orElseThrow(() -> new AssertionError("no event yet, only " + events.size() + " heartbeats"));
    }

    /** The data of the {@code status} events so far. */
    public List<Map<String, Object>> statuses() {
        return events.stream()
                .filter(e -> "status".equals(e.event()))
                .map(ServerSentEvent::data)
                .toList();
    }

    public void close() {
        subscription.dispose();
    }
}
