package com.flashcoupon.api.ratelimit;

import io.netty.util.NetUtil;
import java.net.InetSocketAddress;
import java.util.List;
import org.springframework.http.server.reactive.ServerHttpRequest;

/**
 * The address a request really comes from, as the key of its address rate limit: the connection's peer, or, when the
 * peer is a trusted proxy, the nearest address in {@code X-Forwarded-For} that is not itself a trusted proxy (walking
 * from the right, since a client can write anything on the left). A hop that is not an address literal is
 * client-written text: never looked up, never trusted, so the walk ends there.
 *
 * <p>An IPv6 client is counted by its network, the first {@code ipv6PrefixBits} bits (64 by default): one host is
 * usually given a whole /64 and can send from any of its 2^64 addresses, which would each get an allowance of their
 * own. IPv4 clients are counted per address.
 */
final class ClientAddresses {

    static final String FORWARDED_FOR = "X-Forwarded-For";

    private final List<AddressRange> trusted;
    private final int ipv6PrefixBits;

    ClientAddresses(List<String> trustedProxies, int ipv6PrefixBits) {
        if (ipv6PrefixBits < 1 || ipv6PrefixBits > 128) {
            throw new IllegalArgumentException("the IPv6 prefix length must be 1 to 128, was " + ipv6PrefixBits);
        }
        this.trusted = trustedProxies.stream()
                .map(String::strip)
                .filter(entry -> !entry.isEmpty())
                .map(AddressRange::parse)
                .toList();
        this.ipv6PrefixBits = ipv6PrefixBits;
    }

    /** The key of the request's client address: {@link #resolve} grouped by {@link #group}. */
    String of(ServerHttpRequest request) {
        return group(resolve(request));
    }

    /** The client's own address, canonical, when it is an address literal; null otherwise. */
    String address(ServerHttpRequest request) {
        byte[] bytes = AddressRange.literal(resolve(request));
        return bytes == null ? null : NetUtil.bytesToIpAddress(bytes);
    }

    private String resolve(ServerHttpRequest request) {
        InetSocketAddress remote = request.getRemoteAddress();
        String peer = remote == null || remote.getAddress() == null
                ? "unknown"
                : remote.getAddress().getHostAddress();
        return resolve(peer, request.getHeaders().getValuesAsList(FORWARDED_FOR));
    }

    /** The client's address as written by the peer or the nearest trusted proxy. */
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

    /**
     * The rate limit's key for a client address: an IPv4 address in its canonical form, an IPv6 address as its network
     * ({@code 2001:db8:1:2::/64}; the canonical address itself with a prefix of 128), anything else as written.
     */
    String group(String address) {
        byte[] bytes = AddressRange.literal(address);
        if (bytes == null) {
            return address;
        }
        if (bytes.length == 4 || ipv6PrefixBits == 128) {
            return NetUtil.bytesToIpAddress(bytes);
        }
        return NetUtil.bytesToIpAddress(AddressRange.prefix(bytes, ipv6PrefixBits)) + "/" + ipv6PrefixBits;
    }

    private boolean isTrusted(String address) {
        byte[] bytes = AddressRange.literal(address);
        return bytes != null && trusted.stream().anyMatch(range -> range.contains(bytes));
    }
}
