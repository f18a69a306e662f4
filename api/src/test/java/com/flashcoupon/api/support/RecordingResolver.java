package com.flashcoupon.api.support;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.net.spi.InetAddressResolver;
import java.net.spi.InetAddressResolverProvider;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Stream;

/**
 * The test JVM's name resolver (the JDK's resolver SPI, registered in {@code META-INF/services}): every name looked up
 * is recorded, so a test can show that something never asked DNS. The hex-only names of {@link #HEX_NAMES}, which look
 * like address literals, resolve into {@code 10.0.0.0/8} (as a hostile resolver or hosts file could make them);
 * everything else goes to the JDK's own resolver.
 */
public final class RecordingResolver extends InetAddressResolverProvider {

    /** Names made of hex digits and dots, answered here, as if an attacker's DNS served them. */
    public static final Map<String, String> HEX_NAMES =
            Map.of("cafe.de", "10.1.2.3", "dead", "10.9.9.9", "a1b2.cafe", "10.7.7.7", "dead.beef", "10.8.8.8");

    private static final Set<String> LOOKED_UP = ConcurrentHashMap.newKeySet();

    /** The names looked up in this JVM so far. */
    public static Set<String> lookedUp() {
        return Set.copyOf(LOOKED_UP);
    }

    @Override
    public InetAddressResolver get(Configuration configuration) {
        InetAddressResolver builtin = configuration.builtinResolver();
        return new InetAddressResolver() {
            @Override
            public Stream<InetAddress> lookupByName(String host, LookupPolicy policy) throws UnknownHostException {
                LOOKED_UP.add(host);
                String answer = HEX_NAMES.get(host);
                if (answer != null) {
                    return Stream.of(InetAddress.getByAddress(host, literal(answer)));
                }
                return builtin.lookupByName(host, policy);
            }

            @Override
            public String lookupByAddress(byte[] address) throws UnknownHostException {
                return builtin.lookupByAddress(address);
            }
        };
    }

    private static byte[] literal(String dotted) {
        List<String> parts = List.of(dotted.split("\\."));
        byte[] bytes = new byte[4];
        for (int i = 0; i < 4; i++) {
            bytes[i] = (byte) Integer.parseInt(parts.get(i));
        }
        return bytes;
    }

    @Override
    public String name() {
        return "flash-coupon-test-recording-resolver";
    }
}
