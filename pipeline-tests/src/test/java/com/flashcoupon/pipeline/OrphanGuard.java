package com.flashcoupon.pipeline;

import java.io.IOException;
import java.io.InputStream;
import java.lang.reflect.InvocationTargetException;
import java.util.Arrays;

/**
 * The main class of a {@link ChildJvm}: {@code OrphanGuard <parent pid> <main class> <arguments...>}. It runs the main
 * class in this process, and ends this process at once ({@link Runtime#halt}: no shutdown hooks, as {@code kill -9})
 * when the parent process exits or closes its end of this process's standard input, whichever it notices first: the
 * pipe closes the moment the parent dies, however it dies, and the parent's exit is watched as well in case the pipe
 * was handed on. Child JVMs of a killed test JVM were once seen still running, holding ports and Redis leases.
 */
final class OrphanGuard {

    private OrphanGuard() {}

    public static void main(String[] args) throws Throwable {
        long parent = Long.parseLong(args[0]);
        ProcessHandle.of(parent)
                .ifPresentOrElse(
                        handle -> handle.onExit().thenRun(() -> halt("its parent process " + parent + " exited")),
                        () -> halt("its parent process " + parent + " is gone"));
        Thread stdin = new Thread(OrphanGuard::haltAtEndOfInput, "orphan-guard");
        stdin.setDaemon(true);
        stdin.start();
        try {
            Class.forName(args[1]).getMethod("main", String[].class).invoke(null, (Object)
                    Arrays.copyOfRange(args, 2, args.length));
        } catch (InvocationTargetException e) {
            throw e.getCause(); // as the main class itself would have ended
        }
    }

    /** Reads standard input until its end: the parent's end of the pipe closed (the parent died). */
    private static void haltAtEndOfInput() {
        InputStream in = System.in;
        byte[] buffer = new byte[256];
        try {
            while (in.read(buffer) >= 0) {
                // nothing is sent on it; read and dropped
            }
            halt("its standard input closed");
        } catch (IOException e) {
            halt("its standard input failed: " + e);
        }
    }

    private static void halt(String why) {
        System.err.println("OrphanGuard: ending this process: " + why);
        System.err.flush();
        Runtime.getRuntime().halt(137);
    }
}
