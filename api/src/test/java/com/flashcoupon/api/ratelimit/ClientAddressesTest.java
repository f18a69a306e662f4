package com.flashcoupon.api.ratelimit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

class ClientAddressesTest {

    private final ClientAddresses behindProxy = new ClientAddresses(List.of("10.0.0.0/8", " ::1 "));

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
            var direct = new ClientAddresses(List.of());
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
            assertThatThrownBy(() -> AddressRange.parse("localhost")).isInstanceOf(IllegalArgumentException.class);
        }
    }
}
