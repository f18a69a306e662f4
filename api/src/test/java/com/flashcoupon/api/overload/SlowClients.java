package com.flashcoupon.api.overload;

import com.flashcoupon.api.support.TestEnvironment;
import java.io.IOException;
import java.io.InputStream;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Raw connections that behave like hostile or broken clients: headers announcing a body that never comes, or comes a
 * byte at a time. For {@link SlowClientsTest} and {@link InFlightLimitTest}; every connection is closed by {@link #close}.
 */
final class SlowClients implements AutoCloseable {

    private static final Pattern STATUS_LINE = Pattern.compile("HTTP/1\\.1 (\\d{3}) ");

    private final int port;
    private final List<Socket> sockets = new ArrayList<>();

    SlowClients(int port) {
        this.port = port;
    }

    /**
     * Sends the request's head, announcing {@code Content-Length: 16000}, and the first byte of the body: the rest never
     * comes. {@code address} is the client address the api sees ({@code X-Forwarded-For}, the test trusts 127.0.0.1).
     */
    Socket holdBody(String method, String path, String member, String address) throws IOException {
        Socket socket = new Socket("127.0.0.1", port);
        sockets.add(socket);
        socket.getOutputStream()
                .write(head(method, path, member, address, 16_000).getBytes(StandardCharsets.US_ASCII));
        socket.getOutputStream().write('{');
        socket.getOutputStream().flush();
        return socket;
    }

    /** A connection that sends nothing at all. */
    Socket silent() throws IOException {
        Socket socket = new Socket("127.0.0.1", port);
        sockets.add(socket);
        return socket;
    }

    static String head(String method, String path, String member, String address, int contentLength) {
        String token = path.startsWith("/admin/") ? TestEnvironment.adminToken() : TestEnvironment.memberToken(member);
        return method + " " + path + " HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer " + token
                + "\r\nX-Forwarded-For: " + address + "\r\nContent-Type: application/json\r\nAccept: */*"
                + "\r\nContent-Length: " + contentLength + "\r\n\r\n";
    }

    /** What each connection received so far, as read by {@link #closedByServer}. */
    private static final java.util.Map<Socket, StringBuilder> RECEIVED = new java.util.concurrent.ConcurrentHashMap<>();

    /**
     * Whether the server closed the connection: everything it sent is read (an answer, if any) up to the end of the
     * stream, and kept ({@link #statusesReceived}). A connection still open is one that makes the read wait.
     */
    static boolean closedByServer(Socket socket) {
        StringBuilder received = RECEIVED.computeIfAbsent(socket, s -> new StringBuilder());
        try {
            socket.setSoTimeout(50);
            InputStream in = socket.getInputStream();
            byte[] buffer = new byte[4096];
            while (true) {
                int read = in.read(buffer);
                if (read < 0) {
                    return true;
                }
                received.append(new String(buffer, 0, read, StandardCharsets.US_ASCII));
            }
        } catch (SocketTimeoutException open) {
            return false;
        } catch (IOException reset) {
            return true;
        }
    }

    /** The status codes of the answers {@link #closedByServer} read on the connection. */
    static List<String> statusesReceived(Socket socket) {
        List<String> statuses = new ArrayList<>();
        Matcher m = STATUS_LINE.matcher(RECEIVED.getOrDefault(socket, new StringBuilder()));
        while (m.find()) {
            statuses.add(m.group(1));
        }
        return statuses;
    }

    /** The status codes of the answers that arrived on the connection within a second (for a refusal sent at once). */
    static List<String> statuses(Socket socket) throws IOException {
        socket.setSoTimeout(1_000);
        StringBuilder seen = new StringBuilder();
        byte[] buffer = new byte[4096];
        try {
            InputStream in = socket.getInputStream();
            int read;
            while ((read = in.read(buffer)) > 0) {
                seen.append(new String(buffer, 0, read, StandardCharsets.US_ASCII));
                if (seen.indexOf("\r\n\r\n") > 0 && seen.indexOf("}") > 0) {
                    break;
                }
            }
        } catch (SocketTimeoutException | java.net.SocketException e) {
            // what came is all there is
        }
        List<String> statuses = new ArrayList<>();
        Matcher m = STATUS_LINE.matcher(seen);
        while (m.find()) {
            statuses.add(m.group(1));
        }
        return statuses;
    }

    List<Socket> sockets() {
        return List.copyOf(sockets);
    }

    @Override
    public void close() {
        for (Socket socket : sockets) {
            try {
                socket.close();
            } catch (IOException e) {
                // closing anyway
            }
        }
        sockets.forEach(RECEIVED::remove);
        sockets.clear();
    }
}
