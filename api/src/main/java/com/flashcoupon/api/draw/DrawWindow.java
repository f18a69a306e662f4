package com.flashcoupon.api.draw;

import com.flashcoupon.contract.LuaScripts;

/**
 * {@code scripts/draw.lua}: the functions that close a RANDOMIZED_START event's window once it is over
 * ({@code draw_window}) and tell the draw's odds ({@code draw_odds}), put in front of every script that may be the first
 * to run after the window: the admission, the status read, the live ticker, the drainer's claim and the draw job.
 */
public final class DrawWindow {

    private static final String FUNCTIONS = LuaScripts.text("scripts/draw.lua");

    private DrawWindow() {}

    /** The script's text with the window's functions in front of it. */
    public static String withWindow(String scriptText) {
        return FUNCTIONS + scriptText;
    }
}
