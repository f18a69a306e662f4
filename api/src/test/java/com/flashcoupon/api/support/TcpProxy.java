package com.flashcoupon.api.support;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A TCP forwarder in front of a real server, which a test can cut (every connection dropped, new ones refused) and
 * restore: a network outage of the real MySQL, without stopping the machine's server.
 */
public final class TcpProxy implements AutoCloseable {

    private final String targetHost;
    private final int targetPort;
    private final int port;
    private final Set<Socket> sockets = ConcurrentHashMap.newKeySet();
    private volatile ServerSocket server;
    private volatile boolean holdingReplies;

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

    public synchronized void restore() throws IOException {
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

    /** Forwards the replies held back, and every later one, again. */
    public void releaseReplies() {
        holdingReplies = false;
    }

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
                Socket upstream = new Socket(targetHost, targetPort);
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
        }
    }

    @Override
    public void close() throws IOException {
        cut();
    }
}
