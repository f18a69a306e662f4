package com.flashcoupon.loadgen;

import com.flashcoupon.loadgen.crowd.CrowdCommand;
import com.flashcoupon.loadgen.draw.VerifyDrawCommand;
import com.flashcoupon.loadgen.jwt.MintTokenCommand;
import java.time.Clock;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.logging.Level;
import java.util.logging.Logger;
import reactor.util.Loggers;

/**
 * {@code java -jar loadgen.jar crowd [--flag value …]}: see {@code crowd --help}; {@code java -jar loadgen.jar mint-token
 * SUBJECT [ROLE…]}: one token; {@code java -jar loadgen.jar verify-draw COUPON_ID}: a fair start's draw checked.
 */
public final class Main {

    private Main() {}

    /** Held so that the level set on it stays: java.util.logging keeps only weak references to its loggers. */
    private static final Logger REACTOR_NETTY = Logger.getLogger("reactor.netty");

    public static void main(String[] args) {
        quietNetworkLogs();
        System.exit(run(Arrays.asList(args), System.getenv()));
    }

    /**
     * Reactor Netty logs every connection that times out or is reset, with a stack trace, at WARN: in a crowd that
     * buries the progress line. Those requests are counted as connection errors and the first one is described in the
     * summary, so its loggers are sent to java.util.logging and kept to SEVERE.
     */
    private static void quietNetworkLogs() {
        Loggers.useJdkLoggers();
        REACTOR_NETTY.setLevel(Level.SEVERE);
    }

    static int run(List<String> args, Map<String, String> env) {
        if (args.isEmpty() || args.get(0).equals("help") || args.get(0).equals("--help")) {
            System.out.print(usage());
            return args.isEmpty() ? 2 : 0;
        }
        try {
            switch (args.get(0)) {
                case "crowd" -> {
                    Flags flags = Flags.parse(args.subList(1, args.size()), CrowdCommand.options(), env);
                    if (flags.help()) {
                        System.out.print(CrowdCommand.usage());
                        return 0;
                    }
                    return new CrowdCommand(System.out, System.err).run(flags, env);
                }
                case "verify-draw" -> {
                    return new VerifyDrawCommand(System.out, System.err).run(args.subList(1, args.size()), env);
                }
                case "mint-token" -> {
                    System.out.println(MintTokenCommand.token(args.subList(1, args.size()), env, Clock.systemUTC()));
                    return 0;
                }
                default -> throw new UsageException("unknown command: " + args.get(0));
            }
        } catch (UsageException e) {
            System.err.println("loadgen: " + e.getMessage());
            System.err.print(usage());
            return 2;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return 130;
        }
    }

    private static String usage() {
        return "usage: loadgen <command> [flags]\n\n" + CrowdCommand.usage() + "\n" + MintTokenCommand.usage() + "\n"
                + VerifyDrawCommand.usage();
    }
}
