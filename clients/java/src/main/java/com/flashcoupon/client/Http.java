package com.flashcoupon.client;

import java.io.IOException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import okhttp3.Call;
import okhttp3.Callback;
import okhttp3.HttpUrl;
import okhttp3.OkHttpClient;
import okhttp3.Request;
import okhttp3.Response;
import okhttp3.ResponseBody;

/** What every part of a client shares: the connection pool, the base URL, the token, the timer and the backoff. */
final class Http {

    final OkHttpClient client;
    final OkHttpClient streams;
    final HttpUrl base;
    final Backoff backoff;
    final ScheduledExecutorService timer;
    final ClaimStore store;
    final int maxAttempts;
    private final Supplier<String> tokens;
    private volatile String token;

    Http(
            OkHttpClient client,
            OkHttpClient streams,
            HttpUrl base,
            Supplier<String> tokens,
            Backoff backoff,
            ScheduledExecutorService timer,
            ClaimStore store,
            int maxAttempts) {
        this.client = client;
        this.streams = streams;
        this.base = base;
        this.tokens = tokens;
        this.backoff = backoff;
        this.timer = timer;
        this.store = store;
        this.maxAttempts = maxAttempts;
    }

    HttpUrl url(String path) {
        HttpUrl url = base.resolve(path.startsWith("/") ? path.substring(1) : path);
        if (url == null) {
            throw new IllegalArgumentException("not a path: " + path);
        }
        return url;
    }

    /** The token: asked of the app's supplier the first time, and again only after a 401 ({@link #refreshToken}). */
    String token() {
        String current = token;
        if (current == null) {
            current = tokens.get();
            token = current;
        }
        return current;
    }

    /** Asks the app's supplier for a new token, after a 401. */
    void refreshToken() {
        token = tokens.get();
    }

    Request.Builder request(HttpUrl url) {
        return new Request.Builder().url(url).header("Authorization", "Bearer " + token());
    }

    /** Sends the request; the answer read whole, or the network error (an {@link IOException}). */
    CompletableFuture<Answer> send(Request request) {
        CompletableFuture<Answer> answer = new CompletableFuture<>();
        Call call = client.newCall(request);
        call.enqueue(new Callback() {
            @Override
            public void onFailure(Call call, IOException e) {
                answer.completeExceptionally(e);
            }

            @Override
            public void onResponse(Call call, Response response) {
                try (response) {
                    ResponseBody body = response.body();
                    answer.complete(new Answer(response.code(), response.headers(), body.string()));
                } catch (IOException | RuntimeException e) {
                    answer.completeExceptionally(e);
                }
            }
        });
        answer.whenComplete((done, error) -> {
            if (answer.isCancelled()) {
                call.cancel();
            }
        });
        return answer;
    }

    /** Runs {@code task} after {@code millis} on the client's timer. */
    void later(long millis, Runnable task) {
        timer.schedule(task, Math.max(0, millis), TimeUnit.MILLISECONDS);
    }

    /** The wait before retry number {@code attempt} after an answer with {@code retryAfterMillis}. */
    long backoffMillis(int attempt, long retryAfterMillis) {
        return backoff.delayMillis(
                attempt, retryAfterMillis, bound -> ThreadLocalRandom.current().nextLong(bound));
    }

    static long random(long bound) {
        return bound <= 0 ? 0 : ThreadLocalRandom.current().nextLong(bound);
    }
}
