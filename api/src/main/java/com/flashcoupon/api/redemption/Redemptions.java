package com.flashcoupon.api.redemption;

import com.flashcoupon.api.web.ApiException;
import com.flashcoupon.api.web.ErrorCode;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Supplier;
import org.springframework.stereotype.Service;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.TransactionDefinition;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * Reserve, confirm, release and cancel (docs/http-api.md, Internal endpoints), and the member's use, which is a reserve
 * and confirm in one. Every path locks the wallet coupon's row first, decides on what it holds, and moves it through
 * {@link WalletLedger}: of concurrent calls for one coupon, each sees the one before it finished. A reservation past
 * its deadline is timed out by whichever call meets it first (or the job), so its deadline holds to the millisecond.
 * Blocking: callers run it through {@code BlockingIo}.
 */
@Service
public class Redemptions {

    /** A redemption and the HTTP status it answers with: 201 for a new reservation, 200 otherwise. */
    record Outcome(int status, Redemption redemption) {}

    private final WalletLedger ledger;
    private final RedemptionRepository redemptions;
    private final Benefits benefits;
    private final Idempotency idempotency;
    private final RedemptionProperties properties;
    private final TransactionTemplate transaction;

    Redemptions(
            WalletLedger ledger,
            RedemptionRepository redemptions,
            Benefits benefits,
            Idempotency idempotency,
            RedemptionProperties properties,
            PlatformTransactionManager transactions) {
        this.ledger = ledger;
        this.redemptions = redemptions;
        this.benefits = benefits;
        this.idempotency = idempotency;
        this.properties = properties;
        this.transaction = new TransactionTemplate(transactions);
        // each statement sees what committed before it: a row read after its lock is the row as it is now
        this.transaction.setIsolationLevel(TransactionDefinition.ISOLATION_READ_COMMITTED);
    }

    Outcome reserve(String caller, String key, ReserveRequest request) {
        String actor = "redeemer:" + caller;
        return idempotent(caller, key, "reserve " + request, () -> {
            WalletLedger.WalletRow wallet = ledger.lockWallet(request.walletCouponId())
                    .filter(row -> row.memberId().equals(request.memberId()))
                    .orElseThrow(() -> ApiException.of(
                            ErrorCode.WALLET_COUPON_NOT_FOUND,
                            "Member " + request.memberId() + " has no wallet coupon " + request.walletCouponId()
                                    + "."));
            wallet = timeOutIfLapsed(wallet);
            switch (wallet.seen()) {
                case RESERVED, USED -> {
                    RedemptionRepository.Holder holder = holder(wallet);
                    if (request.orderId().equals(holder.orderId())) {
                        sameOrder(wallet, holder, caller, request);
                        if (caller.equals(holder.caller())) {
                            return new Outcome(200, find(wallet.redemptionId()));
                        }
                        // another caller's order of the same id: to this caller, it is another order
                    }
                    throw wallet.seen() == WalletState.USED
                            ? ApiException.alreadyUsed(wallet.id())
                            : ApiException.of(
                                    ErrorCode.RESERVED_BY_ANOTHER_ORDER,
                                    "Wallet coupon " + wallet.id() + " is reserved by another order.");
                }
                case EXPIRED -> throw ApiException.expired(wallet.id(), wallet.expiresAt());
                case AVAILABLE -> {
                    // the wallet row exists, so its coupon does, with its benefit committed in the same transaction
                    Optional<Benefit> benefit = benefits.findNow(wallet.couponId());
                    long minimum = benefit.map(Benefit::minOrderAmount).orElse(0L);
                    if (request.orderAmount() < minimum) {
                        throw ApiException.of(
                                ErrorCode.ORDER_BELOW_MINIMUM,
                                "Wallet coupon " + wallet.id() + " needs an order of at least " + minimum + ".");
                    }
                    long discount =
                            benefit.map(b -> b.discount(request.orderAmount())).orElse(0L);
                    long id = redemptions.insert(
                            wallet,
                            request.orderId(),
                            request.orderAmount(),
                            discount,
                            RedemptionState.RESERVED,
                            properties.reservationTtl(),
                            actor,
                            caller);
                    ledger.apply(
                            change(wallet, WalletState.RESERVED, "RESERVE", id, request.orderId(), discount, actor));
                    return new Outcome(201, find(id));
                }
            }
            throw new IllegalStateException("unreachable");
        });
    }

    Outcome confirm(String caller, String key, long id) {
        return idempotent(caller, key, "confirm " + id, () -> {
            Locked locked = lock(id, caller);
            Redemption redemption = locked.redemption();
            if (redemption.state() == RedemptionState.USED) {
                return new Outcome(200, redemption);
            }
            if (redemption.state() == RedemptionState.RESERVED && timeOutIfLapsed(locked.wallet()) != locked.wallet()) {
                throw conflict(find(id), "confirm");
            }
            if (redemption.state() != RedemptionState.RESERVED) {
                throw conflict(redemption, "confirm");
            }
            redemptions.move(id, RedemptionState.RESERVED, RedemptionState.USED);
            ledger.apply(change(
                    locked.wallet(),
                    WalletState.USED,
                    "CONFIRM",
                    id,
                    redemption.orderId(),
                    redemption.discount(),
                    "redeemer:" + caller));
            return new Outcome(200, find(id));
        });
    }

    Outcome release(String caller, String key, long id) {
        return idempotent(caller, key, "release " + id, () -> {
            Locked locked = lock(id, caller);
            Redemption redemption = locked.redemption();
            switch (redemption.state()) {
                case RELEASED, TIMED_OUT -> {
                    return new Outcome(200, redemption);
                }
                case RESERVED -> {
                    if (timeOutIfLapsed(locked.wallet()) == locked.wallet()) {
                        end(locked.wallet(), redemption, RedemptionState.RELEASED, "RELEASE", "redeemer:" + caller);
                    }
                    return new Outcome(200, find(id));
                }
                default -> throw conflict(redemption, "release");
            }
        });
    }

    Outcome cancel(String caller, String key, long id) {
        return idempotent(caller, key, "cancel " + id, () -> {
            Locked locked = lock(id, caller);
            Redemption redemption = locked.redemption();
            switch (redemption.state()) {
                case CANCELLED -> {
                    return new Outcome(200, redemption);
                }
                case USED -> {
                    end(locked.wallet(), redemption, RedemptionState.CANCELLED, "CANCEL", "redeemer:" + caller);
                    return new Outcome(200, find(id));
                }
                default -> throw conflict(redemption, "cancel");
            }
        });
    }

    /** The caller's redemption; another caller's answers as one that does not exist. */
    Redemption get(String caller, long id) {
        return redemptions.findOwned(id, caller).orElseThrow(() -> notFound(id));
    }

    /** The order's redemptions the caller made, and the member's own uses for that order id. */
    List<Redemption> byOrder(String caller, String orderId) {
        return redemptions.findByOrder(orderId, caller);
    }

    /**
     * The member's {@code use} (docs/http-api.md): reserve and confirm in one, for the order the app names. The same
     * order again changes nothing; a reservation of the same order is confirmed.
     *
     * @throws ApiException WALLET_COUPON_NOT_FOUND, ALREADY_USED (another order holds or used it) or EXPIRED
     */
    public void use(long walletCouponId, String memberId, String orderId) {
        String actor = "member:" + memberId;
        transaction.executeWithoutResult(status -> {
            WalletLedger.WalletRow wallet = ledger.lockWallet(walletCouponId)
                    .filter(row -> row.memberId().equals(memberId))
                    .orElseThrow(() -> ApiException.walletCouponNotFound(walletCouponId));
            wallet = timeOutIfLapsed(wallet);
            switch (wallet.seen()) {
                case USED, RESERVED -> {
                    if (!orderId.equals(holder(wallet).orderId())) {
                        throw ApiException.alreadyUsed(walletCouponId);
                    }
                    if (wallet.seen() == WalletState.RESERVED) {
                        Redemption held = find(wallet.redemptionId());
                        redemptions.move(held.redemptionId(), RedemptionState.RESERVED, RedemptionState.USED);
                        ledger.apply(change(
                                wallet,
                                WalletState.USED,
                                "CONFIRM",
                                held.redemptionId(),
                                orderId,
                                held.discount(),
                                actor));
                    }
                }
                case EXPIRED -> throw ApiException.expired(walletCouponId, wallet.expiresAt());
                case AVAILABLE -> {
                    Long discount = benefits.findNow(wallet.couponId())
                            .map(Benefit::discountWithoutAmount)
                            .orElse(0L);
                    long id = redemptions.insert(
                            wallet, orderId, null, discount, RedemptionState.USED, null, actor, null);
                    ledger.apply(change(wallet, WalletState.USED, "USE", id, orderId, discount, actor));
                }
            }
        });
    }

    /** The job's part: a lapsed reservation goes back, unless a call got there first. */
    void timeOut(long id) {
        transaction.executeWithoutResult(
                status -> lockIfFound(id).ifPresent(locked -> timeOutIfLapsed(locked.wallet())));
    }

    /** The job's part: an available coupon past its expiry is recorded EXPIRED, unless something moved it first. */
    void expire(long walletCouponId) {
        transaction.executeWithoutResult(status -> ledger.lockWallet(walletCouponId)
                .filter(wallet -> wallet.stored() == WalletState.AVAILABLE && wallet.pastExpiry())
                .ifPresent(wallet -> ledger.apply(
                        change(wallet, WalletState.EXPIRED, "EXPIRE", null, null, null, "system:expiry"))));
    }

    private record Locked(WalletLedger.WalletRow wallet, Redemption redemption) {}

    /**
     * Locks the wallet coupon of the caller's redemption, then reads the redemption: it changes only under that lock.
     * Another caller's redemption answers 404 as one that does not exist: its owner is fixed when it is made.
     */
    private Locked lock(long id, String caller) {
        return redemptions
                .walletOf(id, caller)
                .flatMap(ledger::lockWallet)
                .map(wallet -> new Locked(wallet, find(id)))
                .orElseThrow(() -> notFound(id));
    }

    private Optional<Locked> lockIfFound(long id) {
        return redemptions.walletOf(id).flatMap(ledger::lockWallet).map(wallet -> new Locked(wallet, find(id)));
    }

    /**
     * When the wallet coupon is held by a reservation past its deadline, times it out (back to AVAILABLE, or EXPIRED)
     * and answers the row as it is now; otherwise answers the same row.
     */
    private WalletLedger.WalletRow timeOutIfLapsed(WalletLedger.WalletRow wallet) {
        if (wallet.stored() != WalletState.RESERVED || !redemptions.lapsed(wallet.redemptionId())) {
            return wallet;
        }
        end(wallet, find(wallet.redemptionId()), RedemptionState.TIMED_OUT, "TIME_OUT", "system:reservation-ttl");
        return ledger.lockWallet(wallet.id()).orElseThrow();
    }

    /** Ends a reservation or a use: the coupon goes back, AVAILABLE, or EXPIRED when past its expiry. */
    private void end(
            WalletLedger.WalletRow wallet, Redemption redemption, RedemptionState to, String reason, String actor) {
        if (!redemptions.move(redemption.redemptionId(), redemption.state(), to)) {
            throw new IllegalStateException("redemption " + redemption.redemptionId() + " moved under its lock");
        }
        WalletState back = wallet.pastExpiry() ? WalletState.EXPIRED : WalletState.AVAILABLE;
        ledger.apply(change(
                wallet, back, reason, redemption.redemptionId(), redemption.orderId(), redemption.discount(), actor));
    }

    /**
     * Who holds or used the coupon: its redemption's order, amount and caller, or the wallet's own order for a use from
     * before V9 (a member's use: no caller, no amount).
     */
    private RedemptionRepository.Holder holder(WalletLedger.WalletRow wallet) {
        return wallet.redemptionId() == null
                ? new RedemptionRepository.Holder(wallet.orderId(), null, null)
                : redemptions.holder(wallet.redemptionId());
    }

    /**
     * A reservation for the order that already holds or used the coupon. Refused when the member used it from the app
     * (the order service never had its amount checked against the minimum: 409 USED_BY_MEMBER), and when this caller
     * reserved it for another amount (the old discount would be answered for a new amount: 409 ORDER_AMOUNT_CHANGED;
     * release it and reserve again).
     */
    private static void sameOrder(
            WalletLedger.WalletRow wallet, RedemptionRepository.Holder holder, String caller, ReserveRequest request) {
        if (holder.caller() == null) {
            throw ApiException.of(
                    ErrorCode.USED_BY_MEMBER,
                    "Wallet coupon " + wallet.id() + " was marked used by its member for order " + request.orderId()
                            + " from the app; it cannot be reserved for an order.");
        }
        if (caller.equals(holder.caller()) && !Objects.equals(holder.orderAmount(), request.orderAmount())) {
            throw ApiException.of(
                    ErrorCode.ORDER_AMOUNT_CHANGED,
                    "Wallet coupon " + wallet.id() + " is held by order " + request.orderId() + " for an amount of "
                            + holder.orderAmount() + ", not " + request.orderAmount()
                            + "; release that redemption and reserve again.");
        }
    }

    private static WalletChange change(
            WalletLedger.WalletRow wallet,
            WalletState to,
            String reason,
            Long redemptionId,
            String orderId,
            Long discount,
            String actor) {
        return new WalletChange(
                wallet.id(),
                wallet.couponId(),
                wallet.memberId(),
                wallet.stored(),
                to,
                reason,
                redemptionId,
                orderId,
                discount,
                actor);
    }

    private Redemption find(long id) {
        return redemptions.find(id).orElseThrow(() -> notFound(id));
    }

    private static ApiException notFound(long id) {
        return ApiException.of(ErrorCode.REDEMPTION_NOT_FOUND, "Redemption " + id + " does not exist.");
    }

    private static ApiException conflict(Redemption redemption, String call) {
        return ApiException.of(
                ErrorCode.REDEMPTION_STATE_CONFLICT,
                "Redemption " + redemption.redemptionId() + " is " + redemption.state() + "; it cannot " + call + ".");
    }

    private Outcome idempotent(String caller, String key, String request, Supplier<Outcome> work) {
        return idempotency.once(transaction, caller, key, request, work);
    }
}
