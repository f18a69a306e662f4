package com.flashcoupon.db;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A TCP forwarder in front of a real server, which a test can cut (every connection dropped, new ones refused: the port
 * closes, so a connect fails at once as with a server that is down) and restore on the same port: a network outage of
 * the real MySQL, without stopping the machine's server. Shared by the api's outage tests and the pipeline's fault
 * suite.
 */
public final class TcpProxy implements AutoCloseable {

    private volatile String targetHost;
    private volatile int targetPort;
    private final int port;
    private final Set<Socket> sockets = ConcurrentHashMap.newKeySet();
    private volatile ServerSocket server;
    private volatile boolean holdingReplies;
    private volatile long replyDelayMillis;

    public TcpProxy(String targetHost, int targetPort) throws IOException {
        this.targetHost = targetHost;
        this.targetPort = targetPort;
        try (var probe = new ServerSocket(0)) {
            this.port = probe.getLocalPort();
        }
        restore();
    }

    public int port() {
        return port;
    }

    /** Accepts connections again, on the same port (nothing when it already does). */
    public synchronized void restore() throws IOException {
        if (server != null && !server.isClosed()) {
            return;
        }
        var listening = new ServerSocket();
        listening.setReuseAddress(true);
        listening.bind(new InetSocketAddress("127.0.0.1", port));
        server = listening;
        Thread.ofVirtual().start(() -> accept(listening));
    }

    /**
     * Keeps forwarding what clients send but holds the server's replies back until {@link #releaseReplies()}: the
     * server does the work, the client times out waiting for the answer.
     */
    public void holdReplies() {
        holdingReplies = true;
    }

    /**
     * Delays every reply the server sends by this much from now on (zero: none): a slow database, each statement's
     * round trip that much longer, as with a saturated disk or a distant primary.
     */
    public void delayReplies(java.time.Duration delay) {
        replyDelayMillis = delay.toMillis();
    }

    /** Forwards the replies held back, and every later one, again. */
    public void releaseReplies() {
        holdingReplies = false;
    }

    /**
     * Sends new connections to another server from now on (a failover: clients reconnect to the same address and reach
     * the promoted replica); open connections are dropped.
     */
    public synchronized void retarget(String host, int port) throws IOException {
        targetHost = host;
        targetPort = port;
        for (Socket socket : sockets) {
            socket.close();
        }
        sockets.clear();
    }

    /** Drops every open connection and refuses new ones until {@link #restore()}. */
    public synchronized void cut() throws IOException {
        server.close();
        for (Socket socket : sockets) {
            socket.close();
        }
        sockets.clear();
    }

    private void accept(ServerSocket listening) {
        while (!listening.isClosed()) {
            try {
                Socket client = listening.accept();
                Socket upstream;
                try {
                    upstream = new Socket(targetHost, targetPort);
                } catch (IOException unreachable) {
                    client.close(); // this client fails as with a down server; the next one tries again
                    continue;
                }
                if (listening.isClosed()) { // cut() while this one was connecting
                    client.close();
                    upstream.close();
                    return;
                }
                sockets.add(client);
                sockets.add(upstream);
                Thread.ofVirtual().start(() -> pipe(client, upstream, false));
                Thread.ofVirtual().start(() -> pipe(upstream, client, true));
            } catch (IOException closed) {
                return;
            }
        }
    }

    private void pipe(Socket from, Socket to, boolean replies) {
        try (InputStream in = from.getInputStream();
                OutputStream out = to.getOutputStream()) {
            byte[] buffer = new byte[8192];
            for (int read = in.read(buffer); read >= 0; read = in.read(buffer)) {
                while (replies && holdingReplies) {
                    Thread.sleep(5);
                }
                long delay = replies ? replyDelayMillis : 0;
                if (delay > 0) {
                    Thread.sleep(delay);
                }
                out.write(buffer, 0, read);
                out.flush();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (IOException ignored) {
            // either side closed
        } finally {
            try {
                from.close();
                to.close();
            } catch (IOException ignored) {
                // already closed
            }
            sockets.remove(from);
            sockets.remove(to);
        }
    }

    @Override
    public void close() throws IOException {
        cut();
    }
}
