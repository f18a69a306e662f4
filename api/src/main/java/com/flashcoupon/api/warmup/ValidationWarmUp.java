package com.flashcoupon.api.warmup;

import jakarta.validation.Validator;
import jakarta.validation.constraints.Positive;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.stereotype.Component;

/**
 * Reads the validator's message bundles at start-up: Hibernate Validator loads them from the class path on the first
 * constraint it reports, and a first bad path parameter (a coupon id of 0) then read files on an event loop (found by
 * BlockHound in the web tests, depending on which request came first).
 */
@Component
class ValidationWarmUp implements SmartInitializingSingleton {

    private final Validator validator;

    ValidationWarmUp(Validator validator) {
        this.validator = validator;
    }

    private record Sample(@Positive long id) {}

    @Override
    public void afterSingletonsInstantiated() {
        validator.validate(new Sample(0));
    }
}
