package com.flashcoupon.api.plane;

import java.net.InetSocketAddress;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.reactor.netty.NettyReactiveWebServerFactory;
import org.springframework.boot.reactor.netty.NettyServerCustomizer;
import org.springframework.boot.util.LambdaSafe;
import org.springframework.boot.web.server.WebServer;
import org.springframework.boot.web.server.WebServerFactoryCustomizer;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.boot.web.server.context.WebServerInitializedEvent;
import org.springframework.context.ApplicationListener;
import org.springframework.context.SmartLifecycle;
import org.springframework.http.client.ReactorResourceFactory;
import org.springframework.http.server.reactive.HttpHandler;

/**
 * The private plane's listeners: a second Reactor Netty server on {@code coupon.private-plane.port} (and a third on
 * {@code coupon.private-plane.admin-port} when it is set), serving the same application as the public one (the same
 * filters, security and routes), configured as the public one is (Spring Boot's {@code server.*} settings, the api's
 * own {@link NettyServerCustomizer}s: time-outs, header sizes, graceful shutdown, the same event loops) but for its
 * port. {@link PlaneFilter} decides which paths each port answers, by the port a request arrived on.
 *
 * <p>Started after the public server and stopped with it, gracefully: in the phase of Spring Boot's own graceful
 * shutdown, so that all drain their requests at once before the application goes.
 */
public final class PrivatePlane implements SmartLifecycle, ApplicationListener<WebServerInitializedEvent> {

    private static final Logger log = LoggerFactory.getLogger(PrivatePlane.class);

    /** The server namespace of Spring Boot's management server. */
    private static final String MANAGEMENT = "management";

    /** Where a request arrived. */
    enum Port {
        PUBLIC,
        /** {@code /internal/**}, and {@code /admin/**} without an admin port. */
        PRIVATE,
        /** {@code /admin/**} when it has a port of its own. */
        ADMIN,
        /** Spring Boot's management server: the actuator alone. */
        MANAGEMENT
    }

    private final int configuredPort;
    private final @Nullable Integer configuredAdminPort;
    private final ObjectProvider<HttpHandler> handler;
    private final NettyReactiveWebServerFactory factory;
    private volatile List<WebServer> servers = List.of();
    private volatile int port = -1;
    private volatile int adminPort = -1;
    private volatile int managementPort = -1;

    @SuppressWarnings("unchecked")
    PrivatePlane(
            int configuredPort,
            @Nullable Integer configuredAdminPort,
            ObjectProvider<HttpHandler> handler,
            ObjectProvider<ReactorResourceFactory> resources,
            ObjectProvider<NettyServerCustomizer> serverCustomizers,
            ObjectProvider<WebServerFactoryCustomizer<?>> factoryCustomizers) {
        this.configuredPort = configuredPort;
        this.configuredAdminPort = configuredAdminPort;
        this.handler = handler;
        NettyReactiveWebServerFactory netty = new NettyReactiveWebServerFactory();
        resources.ifAvailable(netty::setResourceFactory);
        netty.setServerCustomizers(serverCustomizers.orderedStream().toList());
        List<WebServerFactoryCustomizer<?>> customizers =
                factoryCustomizers.orderedStream().toList();
        LambdaSafe.callbacks(WebServerFactoryCustomizer.class, customizers, netty)
                .withLogger(PrivatePlane.class)
                .invoke(customizer -> customizer.customize(netty));
        this.factory = netty;
    }

    /** The port the private listener is bound to; -1 before it is started. */
    public int port() {
        return port;
    }

    /** The port the operators' listener is bound to; -1 before it is started or without one. */
    public int adminPort() {
        return adminPort;
    }

    /** Whether {@code /admin/**} has a listener of its own. */
    boolean adminApart() {
        return configuredAdminPort != null;
    }

    /** Where a request arrived, by the local address of its connection. */
    Port received(@Nullable InetSocketAddress local) {
        if (local == null) {
            return Port.PUBLIC;
        }
        int at = local.getPort();
        if (at == managementPort) {
            return Port.MANAGEMENT;
        }
        if (at == port) {
            return Port.PRIVATE;
        }
        return at == adminPort ? Port.ADMIN : Port.PUBLIC;
    }

    /** The management server's port, once it is started (its context's events reach this one, its parent). */
    @Override
    public void onApplicationEvent(WebServerInitializedEvent event) {
        if (MANAGEMENT.equals(event.getApplicationContext().getServerNamespace())) {
            managementPort = event.getWebServer().getPort();
        }
    }

    @Override
    public synchronized void start() {
        WebServer internal = listen(configuredPort);
        port = internal.getPort();
        servers = List.of(internal);
        log.info(
                "the private plane ({}) listens on port {}",
                configuredAdminPort == null ? "/admin, /internal" : "/internal",
                port);
        if (configuredAdminPort != null) {
            WebServer admin = listen(configuredAdminPort);
            adminPort = admin.getPort();
            servers = List.of(internal, admin);
            log.info("the operators' plane (/admin) listens on port {}", adminPort);
        }
    }

    private WebServer listen(int at) {
        synchronized (factory) {
            factory.setPort(at); // after the customizers: server.port is the public port's
            WebServer server = factory.getWebServer(handler.getObject());
            server.start();
            return server;
        }
    }

    @Override
    public synchronized void stop() {
        servers.forEach(WebServer::stop);
        servers = List.of();
    }

    @Override
    public void stop(Runnable callback) {
        List<WebServer> running = servers;
        if (running.isEmpty()) {
            callback.run();
            return;
        }
        AtomicInteger left = new AtomicInteger(running.size());
        for (WebServer server : running) {
            server.shutDownGracefully(result -> {
                if (left.decrementAndGet() == 0) {
                    try {
                        stop();
                    } finally {
                        callback.run();
                    }
                }
            });
        }
    }

    @Override
    public boolean isRunning() {
        return !servers.isEmpty();
    }

    /** With Spring Boot's graceful shutdown of the public server: started after it, drained with it. */
    @Override
    public int getPhase() {
        return WebServerApplicationContext.GRACEFUL_SHUTDOWN_PHASE;
    }

    @Override
    public String toString() {
        return "private plane on port " + (port > 0 ? port : configuredPort);
    }
}
