package com.flashcoupon.worker.notify;

import com.flashcoupon.contract.IssueResult;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Tells the member's devices about one result, each at most once per result event: claim the (event, device) row,
 * send, finish the row. A push the provider kept refusing with retryable answers gives its claim back and fails the
 * record, so Kafka's back-off redelivers it later; a push another notifier is sending right now fails it too (the
 * other one finishes or its claim times out).
 */
class Notifier {

    private static final Logger log = LoggerFactory.getLogger(Notifier.class);

    private final DeviceDirectory devices;
    private final DeliveryLog deliveries;
    private final PushSender sender;
    private final NotifyProperties properties;
    private final MeterRegistry meters;
    private final LongSupplier nanoTime;

    Notifier(
            DeviceDirectory devices,
            DeliveryLog deliveries,
            PushSender sender,
            NotifyProperties properties,
            MeterRegistry meters) {
        this(devices, deliveries, sender, properties, meters, System::nanoTime);
    }

    /** The same, with the clock the push budget is measured on ({@link System#nanoTime()}, or a test's). */
    Notifier(
            DeviceDirectory devices,
            DeliveryLog deliveries,
            PushSender sender,
            NotifyProperties properties,
            MeterRegistry meters,
            LongSupplier nanoTime) {
        this.devices = devices;
        this.deliveries = deliveries;
        this.sender = sender;
        this.properties = properties;
        this.meters = meters;
        this.nanoTime = nanoTime;
    }

    /**
     * Pushes to each of the member's newest devices (at most {@link NotifyProperties#maxDevices()}); past
     * {@link NotifyProperties#pushBudget()} on one record no further push is started (the record is handed back, its
     * finished pushes are skipped at the redelivery), so a record takes at most {@link NotifyConfig#recordWorstCase} and
     * the poll interval can be sized from it. A push that could not be finished (the provider kept failing, another
     * notifier is sending it) does not keep the member's other devices waiting: they are pushed first, then the record
     * is handed back for the unfinished ones.
     */
    void notify(IssueResult result) throws InterruptedException {
        long started = nanoTime.getAsLong();
        PushPendingException unfinished = null;
        for (Device device : devices.devicesOf(result.memberId(), properties.maxDevices())) {
            if (nanoTime.getAsLong() - started >= properties.pushBudget().toNanos()) {
                throw new PushPendingException("result " + result.eventId()
                        + " took its whole push budget; its other devices at the redelivery");
            }
            try {
                deliver(new Push(result, device));
            } catch (PushPendingException e) {
                unfinished = unfinished == null ? e : unfinished;
            }
        }
        if (unfinished != null) {
            throw unfinished;
        }
    }

    private void deliver(Push push) throws InterruptedException {
        String eventId = push.result().eventId();
        String token = push.device().token();
        String claimToken = DeliveryLog.newClaimToken();
        DeliveryLog.Claim claim =
                deliveries.claim(eventId, token, push.result().couponId(), properties.claimTimeout(), claimToken);
        switch (claim) {
            case FINISHED -> count("duplicate");
            case BUSY -> throw new PushPendingException("push of " + eventId + " is being sent by another notifier");
            case NEW, TAKEN_OVER -> send(push, claimToken);
        }
    }

    private void send(Push push, String claimToken) throws InterruptedException {
        String eventId = push.result().eventId();
        String token = push.device().token();
        Delivery delivery;
        try {
            delivery = sender.send(push);
        } catch (RuntimeException | InterruptedException e) {
            deliveries.release(eventId, token, claimToken);
            throw e;
        }
        switch (delivery.kind()) {
            case DELIVERED -> {
                deliveries.sent(eventId, token, push.result().couponId(), claimToken);
                count("delivered");
            }
            case UNREGISTERED -> {
                deliveries.dropped(eventId, token, push.result().memberId(), claimToken);
                count("unregistered");
                log.info("dropped a push token of member {}: {}", push.result().memberId(), delivery.detail());
            }
            case REJECTED -> {
                deliveries.rejected(eventId, token, claimToken);
                count("rejected");
                log.warn("push of {} rejected for good: {}", eventId, delivery.detail());
            }
            case RETRY -> {
                deliveries.release(eventId, token, claimToken);
                count("retry_later");
                throw new PushPendingException("push of " + eventId + " not accepted yet: " + delivery.detail());
            }
        }
    }

    private void count(String outcome) {
        meters.counter("coupon.notify.pushes", "outcome", outcome).increment();
    }
}
