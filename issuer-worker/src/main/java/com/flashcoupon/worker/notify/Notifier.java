package com.flashcoupon.worker.notify;

import com.flashcoupon.contract.IssueResult;
import io.micrometer.core.instrument.MeterRegistry;
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

    Notifier(
            DeviceDirectory devices,
            DeliveryLog deliveries,
            PushSender sender,
            NotifyProperties properties,
            MeterRegistry meters) {
        this.devices = devices;
        this.deliveries = deliveries;
        this.sender = sender;
        this.properties = properties;
        this.meters = meters;
    }

    void notify(IssueResult result) throws InterruptedException {
        for (Device device : devices.devicesOf(result.memberId())) {
            deliver(new Push(result, device));
        }
    }

    private void deliver(Push push) throws InterruptedException {
        String eventId = push.result().eventId();
        String token = push.device().token();
        DeliveryLog.Claim claim = deliveries.claim(eventId, token, push.result().couponId(), properties.claimTimeout());
        switch (claim) {
            case FINISHED -> count("duplicate");
            case BUSY -> throw new PushPendingException("push of " + eventId + " is being sent by another notifier");
            case NEW, TAKEN_OVER -> send(push);
        }
    }

    private void send(Push push) throws InterruptedException {
        String eventId = push.result().eventId();
        String token = push.device().token();
        Delivery delivery;
        try {
            delivery = sender.send(push);
        } catch (RuntimeException | InterruptedException e) {
            deliveries.release(eventId, token);
            throw e;
        }
        switch (delivery.kind()) {
            case DELIVERED -> {
                deliveries.sent(eventId, token, push.result().couponId());
                count("delivered");
            }
            case UNREGISTERED -> {
                deliveries.dropped(eventId, token, push.result().memberId());
                count("unregistered");
                log.info("dropped a push token of member {}: {}", push.result().memberId(), delivery.detail());
            }
            case REJECTED -> {
                deliveries.rejected(eventId, token);
                count("rejected");
                log.warn("push of {} rejected for good: {}", eventId, delivery.detail());
            }
            case RETRY -> {
                deliveries.release(eventId, token);
                count("retry_later");
                throw new PushPendingException("push of " + eventId + " not accepted after "
                        + properties.retry().maxAttempts() + " attempts: " + delivery.detail());
            }
        }
    }

    private void count(String outcome) {
        meters.counter("coupon.notify.pushes", "outcome", outcome).increment();
    }
}
