package com.flashcoupon.api.plane;

import java.util.Objects;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.actuate.autoconfigure.web.server.ManagementPortType;
import org.springframework.boot.reactor.netty.NettyServerCustomizer;
import org.springframework.boot.web.server.WebServerFactoryCustomizer;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Condition;
import org.springframework.context.annotation.ConditionContext;
import org.springframework.context.annotation.Conditional;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.Environment;
import org.springframework.core.type.AnnotatedTypeMetadata;
import org.springframework.http.client.ReactorResourceFactory;
import org.springframework.http.codec.ServerCodecConfigurer;
import org.springframework.http.server.reactive.HttpHandler;
import org.springframework.util.StringUtils;

/**
 * The private plane when {@code coupon.private-plane.port} ({@code COUPON_PRIVATE_PORT}) is set: its listener and the
 * filter that keeps each path on its plane. Unset (bin/up, the default), neither exists and one port answers all.
 */
@Configuration(proxyBeanMethods = false)
@Conditional(PrivatePlaneConfig.PortSet.class)
class PrivatePlaneConfig {

    static final String PORT = "coupon.private-plane.port";

    static final String ADMIN_PORT = "coupon.private-plane.admin-port";

    @Bean
    PrivatePlane privatePlane(
            PrivatePlaneProperties properties,
            Environment environment,
            ObjectProvider<HttpHandler> handler,
            ObjectProvider<ReactorResourceFactory> resources,
            ObjectProvider<NettyServerCustomizer> serverCustomizers,
            ObjectProvider<WebServerFactoryCustomizer<?>> factoryCustomizers) {
        int port = Objects.requireNonNull(properties.port(), PORT);
        check(port, environment);
        if (properties.adminPort() != null) {
            check(properties.adminPort(), environment);
            if (properties.adminPort() != 0 && properties.adminPort() == port) {
                throw new IllegalStateException(
                        "COUPON_ADMIN_PORT must differ from COUPON_PRIVATE_PORT (" + port + ")");
            }
        }
        return new PrivatePlane(
                port, properties.adminPort(), handler, resources, serverCustomizers, factoryCustomizers);
    }

    @Bean
    PlaneFilter planeFilter(PrivatePlane plane, ServerCodecConfigurer codecs) {
        return new PlaneFilter(plane, codecs);
    }

    /**
     * A private plane with the actuator still on the public port would leave metrics and health where members reach
     * them: the management port must be a port of its own, and the three ports must differ.
     */
    static void check(int privatePort, Environment environment) {
        if (ManagementPortType.get(environment) == ManagementPortType.SAME) {
            throw new IllegalStateException(
                    "COUPON_PRIVATE_PORT (" + PORT + ") needs the actuator on a port of its own:"
                            + " set COUPON_MANAGEMENT_PORT (management.server.port) to a port other than the api's");
        }
        Integer server = environment.getProperty("server.port", Integer.class, 8080);
        Integer management = environment.getProperty("management.server.port", Integer.class);
        if (privatePort != 0 && (privatePort == server || Objects.equals(privatePort, management))) {
            throw new IllegalStateException("A private plane's port (" + PORT + ") is " + privatePort
                    + ": it must differ from the api's port (" + server + ") and the management port (" + management
                    + ")");
        }
    }

    static final class PortSet implements Condition {

        @Override
        public boolean matches(ConditionContext context, AnnotatedTypeMetadata metadata) {
            if (StringUtils.hasText(context.getEnvironment().getProperty(ADMIN_PORT))
                    && !StringUtils.hasText(context.getEnvironment().getProperty(PORT))) {
                throw new IllegalStateException(
                        "COUPON_ADMIN_PORT (" + ADMIN_PORT + ") needs COUPON_PRIVATE_PORT (" + PORT + ")");
            }
            return StringUtils.hasText(context.getEnvironment().getProperty(PORT));
        }
    }
}
