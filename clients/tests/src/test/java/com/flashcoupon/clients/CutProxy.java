package com.flashcoupon.clients;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A TCP proxy in front of the api that can cut every connection at once, as a lost mobile network would, and records
 * the head of each request that went through it (its request line and headers), to see what the client sent.
 */
final class CutProxy implements AutoCloseable {

    final List<String> requests = new CopyOnWriteArrayList<>();
    /** Bytes that went through, towards the api and back to the client (HTTP as sent: no TCP, IP or TLS). */
    final AtomicLong sent = new AtomicLong();

    final AtomicLong received = new AtomicLong();
    private final ServerSocket server;
    private final int target;
    private final Set<Socket> open = ConcurrentHashMap.newKeySet();

    CutProxy(int target) throws IOException {
        this.target = target;
        this.server = new ServerSocket(0, 200, InetAddress.getLoopbackAddress());
        Thread.ofPlatform().daemon().start(this::accept);
    }

    String url() {
        return "http://127.0.0.1:" + server.getLocalPort();
    }

    private void accept() {
        while (!server.isClosed()) {
            try {
                Socket client = server.accept();
                Socket upstream = new Socket();
                upstream.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), target));
                open.add(client);
                open.add(upstream);
                Thread.ofPlatform().daemon().start(() -> pipe(client, upstream, true));
                Thread.ofPlatform().daemon().start(() -> pipe(upstream, client, false));
            } catch (IOException e) {
                return;
            }
        }
    }

    private void pipe(Socket from, Socket to, boolean requestSide) {
        byte[] buffer = new byte[8192];
        try (InputStream in = from.getInputStream();
                OutputStream out = to.getOutputStream()) {
            int read;
            while ((read = in.read(buffer)) >= 0) {
                (requestSide ? sent : received).addAndGet(read);
                if (requestSide) {
                    String text = new String(buffer, 0, read, StandardCharsets.ISO_8859_1);
                    for (String head : text.split("\r\n\r\n")) {
                        if (head.matches("(?s)^(GET|POST|PUT|DELETE) .*")) {
                            requests.add(head);
                        }
                    }
                }
                out.write(buffer, 0, read);
                out.flush();
            }
        } catch (IOException e) {
            // cut, or closed by either side
        } finally {
            close(from);
            close(to);
        }
    }

    /** Cuts every open connection (both directions). */
    void cutAll() {
        open.forEach(CutProxy::close);
        open.clear();
    }

    /** The heads of the requests whose request line starts with {@code start} (such as {@code GET /api/v1/me/events}). */
    List<String> heads(String start) {
        return requests.stream().filter(head -> head.startsWith(start)).toList();
    }

    private static void close(Socket socket) {
        try {
            socket.close();
        } catch (IOException e) {
            // already closed
        }
    }

    @Override
    public void close() {
        cutAll();
        close(server);
    }

    private static void close(ServerSocket socket) {
        try {
            socket.close();
        } catch (IOException e) {
            // already closed
        }
    }
}
