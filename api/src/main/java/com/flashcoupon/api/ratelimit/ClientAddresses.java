package com.flashcoupon.api.ratelimit;

import java.net.InetSocketAddress;
import java.util.List;
import org.springframework.http.server.reactive.ServerHttpRequest;

/**
 * The address a request really comes from: the connection's peer, or, when the peer is a trusted proxy, the nearest
 * address in {@code X-Forwarded-For} that is not itself a trusted proxy (walking from the right, since a client can
 * write anything on the left).
 */
final class ClientAddresses {

    static final String FORWARDED_FOR = "X-Forwarded-For";

    private final List<AddressRange> trusted;

    ClientAddresses(List<String> trustedProxies) {
        this.trusted = trustedProxies.stream()
                .map(String::strip)
                .filter(entry -> !entry.isEmpty())
                .map(AddressRange::parse)
                .toList();
    }

    String of(ServerHttpRequest request) {
        InetSocketAddress remote = request.getRemoteAddress();
        String peer = remote == null || remote.getAddress() == null
                ? "unknown"
                : remote.getAddress().getHostAddress();
        return resolve(peer, request.getHeaders().getValuesAsList(FORWARDED_FOR));
    }

    String resolve(String peer, List<String> forwardedFor) {
        if (!isTrusted(peer)) {
            return peer;
        }
        String[] hops = String.join(",", forwardedFor).split(",");
        for (int i = hops.length - 1; i >= 0; i--) {
            String hop = hops[i].strip();
            if (hop.isEmpty()) {
                continue;
            }
            if (!isTrusted(hop)) {
                return hop;
            }
        }
        return peer;
    }

    private boolean isTrusted(String address) {
        byte[] bytes = AddressRange.literal(address);
        return bytes != null && trusted.stream().anyMatch(range -> range.contains(bytes));
    }
}
