package com.flashcoupon.api.plane;

import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;
import org.springframework.mock.env.MockEnvironment;

/** A private plane with the actuator on the public port, or two planes on one port, is a start-up error. */
class PrivatePlaneSettingsTest {

    @Test
    void refusesAPrivatePortWithoutAManagementPort() {
        MockEnvironment environment = new MockEnvironment().withProperty("server.port", "8080");
        assertThatThrownBy(() -> PrivatePlaneConfig.check(8081, environment))
                .hasMessageContaining("COUPON_MANAGEMENT_PORT");
        environment.setProperty("management.server.port", "8080");
        assertThatThrownBy(() -> PrivatePlaneConfig.check(8081, environment))
                .hasMessageContaining("COUPON_MANAGEMENT_PORT");
    }

    @Test
    void refusesAPrivatePortThatIsAnotherPort() {
        MockEnvironment environment = new MockEnvironment()
                .withProperty("server.port", "8080")
                .withProperty("management.server.port", "8082");
        assertThatThrownBy(() -> PrivatePlaneConfig.check(8080, environment)).hasMessageContaining("must differ");
        assertThatThrownBy(() -> PrivatePlaneConfig.check(8082, environment)).hasMessageContaining("must differ");
        assertThatCode(() -> PrivatePlaneConfig.check(8081, environment)).doesNotThrowAnyException();
    }
}
