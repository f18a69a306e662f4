package com.flashcoupon.api.ratelimit;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.regex.Pattern;

/**
 * An IPv4 or IPv6 address or CIDR range ({@code 10.0.0.0/8}, {@code ::1}). Written here because Spring Security's
 * {@code IpAddressMatcher} drags in the Servlet API, which a WebFlux app does not have. Only literals are parsed: no
 * name is ever looked up.
 */
record AddressRange(byte[] network, int prefixBits) {

    private static final Pattern LITERAL = Pattern.compile("[0-9a-fA-F:.]+");

    static AddressRange parse(String text) {
        int slash = text.indexOf('/');
        byte[] address = literal(slash < 0 ? text : text.substring(0, slash));
        if (address == null) {
            throw new IllegalArgumentException("not an address or CIDR range: " + text);
        }
        int bits = slash < 0 ? address.length * 8 : Integer.parseInt(text.substring(slash + 1));
        if (bits < 0 || bits > address.length * 8) {
            throw new IllegalArgumentException("bad prefix length in " + text);
        }
        return new AddressRange(address, bits);
    }

    /** The bytes of an address literal, or null when the text is not one (never a DNS look-up). */
    static byte[] literal(String text) {
        if (text == null || text.isEmpty() || !LITERAL.matcher(text).matches()) {
            return null;
        }
        try {
            return InetAddress.getByName(text).getAddress();
        } catch (UnknownHostException e) {
            return null;
        }
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
}
