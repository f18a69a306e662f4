package com.flashcoupon.api.plane;

import java.net.InetSocketAddress;
import java.util.List;
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
 * The private plane's listener: a second Reactor Netty server on {@code coupon.private-plane.port}, serving the same
 * application as the public one (the same filters, security and routes), configured as the public one is (Spring
 * Boot's {@code server.*} settings, the api's own {@link NettyServerCustomizer}s: time-outs, header sizes, graceful
 * shutdown, the same event loops) but for its port. {@link PlaneFilter} decides which paths each port answers.
 *
 * <p>Started after the public server and stopped with it, gracefully: in the phase of Spring Boot's own graceful
 * shutdown, so that both drain their requests at once before the application goes.
 */
public final class PrivatePlane implements SmartLifecycle, ApplicationListener<WebServerInitializedEvent> {

    private static final Logger log = LoggerFactory.getLogger(PrivatePlane.class);

    /** The server namespace of Spring Boot's management server. */
    private static final String MANAGEMENT = "management";

    private final int configuredPort;
    private final ObjectProvider<HttpHandler> handler;
    private final NettyReactiveWebServerFactory factory;
    private volatile @Nullable WebServer server;
    private volatile int port = -1;
    private volatile int managementPort = -1;

    @SuppressWarnings("unchecked")
    PrivatePlane(
            int configuredPort,
            ObjectProvider<HttpHandler> handler,
            ObjectProvider<ReactorResourceFactory> resources,
            ObjectProvider<NettyServerCustomizer> serverCustomizers,
            ObjectProvider<WebServerFactoryCustomizer<?>> factoryCustomizers) {
        this.configuredPort = configuredPort;
        this.handler = handler;
        NettyReactiveWebServerFactory netty = new NettyReactiveWebServerFactory();
        resources.ifAvailable(netty::setResourceFactory);
        netty.setServerCustomizers(serverCustomizers.orderedStream().toList());
        List<WebServerFactoryCustomizer<?>> customizers =
                factoryCustomizers.orderedStream().toList();
        LambdaSafe.callbacks(WebServerFactoryCustomizer.class, customizers, netty)
                .withLogger(PrivatePlane.class)
                .invoke(customizer -> customizer.customize(netty));
        // after the customizers: server.port is the public port's
        netty.setPort(configuredPort);
        this.factory = netty;
    }

    /** The port the private listener is bound to; -1 before it is started. */
    public int port() {
        return port;
    }

    /** Whether a request arrived on the private listener, by the local address of its connection. */
    boolean received(@Nullable InetSocketAddress local) {
        int bound = port;
        return local != null && bound > 0 && local.getPort() == bound;
    }

    /** Whether a request arrived on the actuator's own port (Spring Boot's management server). */
    boolean receivedOnManagement(@Nullable InetSocketAddress local) {
        int bound = managementPort;
        return local != null && bound > 0 && local.getPort() == bound;
    }

    /** The management server's port, once it is started (its context's events reach this one, its parent). */
    @Override
    public void onApplicationEvent(WebServerInitializedEvent event) {
        if (MANAGEMENT.equals(event.getApplicationContext().getServerNamespace())) {
            managementPort = event.getWebServer().getPort();
        }
    }

    @Override
    public void start() {
        WebServer started = factory.getWebServer(handler.getObject());
        started.start();
        server = started;
        port = started.getPort();
        log.info("the private plane (/admin, /internal) listens on port {}", port);
    }

    @Override
    public void stop() {
        WebServer running = server;
        if (running != null) {
            running.stop();
            server = null;
        }
    }

    @Override
    public void stop(Runnable callback) {
        WebServer running = server;
        if (running == null) {
            callback.run();
            return;
        }
        running.shutDownGracefully(result -> {
            try {
                stop();
            } finally {
                callback.run();
            }
        });
    }

    @Override
    public boolean isRunning() {
        return server != null;
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
