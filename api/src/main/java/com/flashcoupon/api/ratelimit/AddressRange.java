package com.flashcoupon.api.ratelimit;

import io.netty.util.NetUtil;
import java.util.Arrays;

/**
 * An IPv4 or IPv6 address or CIDR range ({@code 10.0.0.0/8}, {@code ::1}). Written here because Spring Security's
 * {@code IpAddressMatcher} drags in the Servlet API, which a WebFlux app does not have.
 *
 * <p>Only literals are parsed, by Netty's {@link NetUtil}, which never looks a name up: {@code InetAddress.getByName}
 * would send {@code cafe.de} or {@code dead} (hex digits and dots, so they look like literals) to DNS, blocking the
 * event loop for the resolver's time-out, and a name resolving into a trusted range would make a client-written
 * {@code X-Forwarded-For} hop a trusted proxy.
 */
record AddressRange(byte[] network, int prefixBits) {

    private static final byte[] IPV4_MAPPED_PREFIX = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, (byte) 0xFF, (byte) 0xFF};

    /** Parses a configured address or range; a name or anything else that is not a literal is refused. */
    static AddressRange parse(String text) {
        int slash = text.indexOf('/');
        byte[] address = literal(slash < 0 ? text : text.substring(0, slash));
        if (address == null) {
            throw new IllegalArgumentException("not an IP address or CIDR range (names are not looked up): " + text);
        }
        int bits;
        try {
            bits = slash < 0 ? address.length * 8 : Integer.parseInt(text.substring(slash + 1));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("bad prefix length in " + text);
        }
        if (bits < 0 || bits > address.length * 8) {
            throw new IllegalArgumentException("bad prefix length in " + text);
        }
        return new AddressRange(address, bits);
    }

    /**
     * The bytes of an address literal (4 for IPv4, also for an IPv4-mapped IPv6 address; 16 for IPv6), or null when
     * the text is not one. Never a DNS look-up.
     */
    static byte[] literal(String text) {
        if (text == null || text.isEmpty()) {
            return null;
        }
        byte[] bytes = NetUtil.createByteArrayFromIpAddressString(text);
        if (bytes != null
                && bytes.length == 16
                && Arrays.equals(
                        bytes, 0, IPV4_MAPPED_PREFIX.length, IPV4_MAPPED_PREFIX, 0, IPV4_MAPPED_PREFIX.length)) {
            return Arrays.copyOfRange(bytes, 12, 16);
        }
        return bytes;
    }

    boolean contains(byte[] address) {
        if (address.length != network.length) {
            return false;
        }
        int full = prefixBits / 8;
        for (int i = 0; i < full; i++) {
            if (address[i] != network[i]) {
                return false;
            }
        }
        int rest = prefixBits % 8;
        if (rest == 0) {
            return true;
        }
        int mask = (0xFF << (8 - rest)) & 0xFF;
        return (address[full] & mask) == (network[full] & mask);
    }

    /** The address with every bit after the first {@code bits} cleared. */
    static byte[] prefix(byte[] address, int bits) {
        byte[] masked = address.clone();
        for (int i = 0; i < masked.length; i++) {
            int keep = Math.min(8, Math.max(0, bits - i * 8));
            masked[i] &= (byte) ((0xFF << (8 - keep)) & 0xFF);
        }
        return masked;
    }
}
