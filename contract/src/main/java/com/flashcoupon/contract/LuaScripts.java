package com.flashcoupon.contract;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;

/**
 * Reads a Lua script's text from the classpath once, at class initialisation. Spring Data's
 * {@code RedisScript.of(Resource)} re-checks the resource on every call (a file read on first use, a file stat after),
 * which is blocking I/O on the event loop of the api's hot path; {@code RedisScript.of(text)} is not.
 */
public final class LuaScripts {

    private LuaScripts() {}

    public static String text(String classpathLocation) {
        try (InputStream in = LuaScripts.class.getClassLoader().getResourceAsStream(classpathLocation)) {
            if (in == null) {
                throw new IllegalStateException("no script on the classpath at " + classpathLocation);
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + classpathLocation, e);
        }
    }
}
