package com.flashcoupon.api.ratelimit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.flashcoupon.api.support.RecordingResolver;
import java.util.List;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Which address a request is counted by: the peer or a trusted proxy's {@code X-Forwarded-For}, literals only (never a
 * DNS look-up: {@link RecordingResolver} sees every name this JVM resolves), IPv6 grouped by network.
 */
class ClientAddressesTest {

    private final ClientAddresses behindProxy = new ClientAddresses(List.of("10.0.0.0/8", " ::1 "), 64);

    @Nested
    class Resolve {

        @Test
        void shouldUseThePeerWhenThePeerIsNotATrustedProxy() {
            assertThat(behindProxy.resolve("203.0.113.9", List.of("198.51.100.1")))
                    .isEqualTo("203.0.113.9");
        }

        @Test
        void shouldUseTheForwardedAddressWhenThePeerIsATrustedProxy() {
            assertThat(behindProxy.resolve("10.1.2.3", List.of("198.51.100.7"))).isEqualTo("198.51.100.7");
        }

        @Test
        void shouldIgnoreWhatTheClientWroteOnTheLeftWhenProxiesAppended() {
            assertThat(behindProxy.resolve("10.1.2.3", List.of("1.2.3.4, 198.51.100.7, 10.9.9.9")))
                    .isEqualTo("198.51.100.7");
        }

        @Test
        void shouldKeepThePeerWhenTheHeaderIsMissingOrAllTrusted() {
            assertThat(behindProxy.resolve("10.1.2.3", List.of())).isEqualTo("10.1.2.3");
            assertThat(behindProxy.resolve("::1", List.of("10.0.0.5"))).isEqualTo("::1");
        }

        @Test
        void shouldNeverTrustAnyoneWhenNoProxyIsConfigured() {
            var direct = new ClientAddresses(List.of(), 64);
            assertThat(direct.resolve("10.1.2.3", List.of("198.51.100.7"))).isEqualTo("10.1.2.3");
        }
    }

    @Nested
    class Ranges {

        @Test
        void shouldMatchInsideAndNotOutsideTheRange() {
            var range = AddressRange.parse("192.168.4.0/22");
            assertThat(range.contains(AddressRange.literal("192.168.7.255"))).isTrue();
            assertThat(range.contains(AddressRange.literal("192.168.8.0"))).isFalse();
            assertThat(range.contains(AddressRange.literal("::1"))).isFalse();
        }

        @Test
        void shouldRefuseNamesAndBadPrefixes() {
            assertThat(AddressRange.literal("proxy.example.com")).isNull();
            assertThatThrownBy(() -> AddressRange.parse("10.0.0.0/33")).isInstanceOf(IllegalArgumentException.class);
            assertThatThrownBy(() -> AddressRange.parse("10.0.0.0/x")).isInstanceOf(IllegalArgumentException.class);
            assertThatThrownBy(() -> AddressRange.parse("localhost")).isInstanceOf(IllegalArgumentException.class);
        }

        @Test
        void shouldReadIpv4MappedIpv6AsTheIpv4Address() {
            assertThat(AddressRange.parse("10.0.0.0/8").contains(AddressRange.literal("::ffff:10.1.2.3")))
                    .isTrue();
        }
    }

    /** Finding: hex-only names passed the literal check and went to DNS, on the event loop. */
    @Nested
    class HexNamesAreNeverLookedUp {

        @ParameterizedTest
        @ValueSource(strings = {"cafe.de", "dead", "a1b2.cafe", "dead.beef"})
        void shouldNotTakeAHexOnlyNameForAnAddress(String name) {
            assertThat(AddressRange.literal(name)).isNull();
            assertThat(RecordingResolver.lookedUp()).doesNotContain(name);
        }

        @ParameterizedTest
        @ValueSource(strings = {"cafe.de", "dead", "10.0.0.0/8,a1b2.cafe", "dead.beef/24"})
        void shouldRefuseToStartWhenATrustedProxyIsAName(String setting) {
            assertThatThrownBy(() -> new ClientAddresses(List.of(setting.split(",")), 64))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("names are not looked up");
            assertThat(RecordingResolver.lookedUp()).doesNotContainAnyElementsOf(RecordingResolver.HEX_NAMES.keySet());
        }

        @ParameterizedTest
        @ValueSource(strings = {"cafe.de", "dead", "a1b2.cafe", "dead.beef"})
        void shouldTreatAHopThatIsANameAsClientWrittenText(String name) {
            // the name would resolve into 10.0.0.0/8 (RecordingResolver.HEX_NAMES): taken for a trusted proxy, it
            // would make the client-written hop on its left the address the limits count
            assertThat(behindProxy.resolve("10.1.2.3", List.of("198.51.100.7, " + name)))
                    .isEqualTo(name);
            assertThat(RecordingResolver.lookedUp()).doesNotContain(name);
        }
    }

    /** Finding: one IPv6 host rotates through its /64 and every address got an allowance of its own. */
    @Nested
    class Ipv6ClientsAreCountedByNetwork {

        @Test
        void shouldGiveEveryAddressOfOneSlash64TheSameKey() {
            assertThat(behindProxy.group("2001:db8:1:2::1")).isEqualTo("2001:db8:1:2::/64");
            assertThat(behindProxy.group("2001:db8:1:2:ffff:ffff:ffff:fffe")).isEqualTo("2001:db8:1:2::/64");
            assertThat(behindProxy.group("2001:0db8:0001:0002:0000:0000:0000:0009"))
                    .isEqualTo("2001:db8:1:2::/64");
            assertThat(behindProxy.group("2001:db8:1:3::1")).isEqualTo("2001:db8:1:3::/64");
        }

        @Test
        void shouldFollowTheConfiguredPrefixLength() {
            assertThat(new ClientAddresses(List.of(), 56).group("2001:db8:1:2ff::1"))
                    .isEqualTo("2001:db8:1:200::/56");
            assertThat(new ClientAddresses(List.of(), 128).group("2001:db8:0:0:0:0:0:1"))
                    .isEqualTo("2001:db8::1");
            assertThatThrownBy(() -> new ClientAddresses(List.of(), 0)).isInstanceOf(IllegalArgumentException.class);
        }

        @Test
        void shouldKeepIpv4PerAddressInItsCanonicalForm() {
            assertThat(behindProxy.group("198.51.100.7")).isEqualTo("198.51.100.7");
            assertThat(behindProxy.group("::ffff:198.51.100.7")).isEqualTo("198.51.100.7");
            assertThat(behindProxy.group("198.51.100.8")).isEqualTo("198.51.100.8");
        }

        @Test
        void shouldKeepTextThatIsNoAddressAsWritten() {
            assertThat(behindProxy.group("unknown")).isEqualTo("unknown");
        }
    }
}
