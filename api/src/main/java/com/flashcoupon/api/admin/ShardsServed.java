package com.flashcoupon.api.admin;

import jakarta.validation.Constraint;
import jakarta.validation.ConstraintValidator;
import jakarta.validation.ConstraintValidatorContext;
import jakarta.validation.Payload;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.springframework.beans.factory.annotation.Value;

/**
 * How many stock shards a deployment lets an event have: {@code coupon.shards.max-served} ({@code
 * COUPON_STOCK_SHARDS_MAX_SERVED}, default 64, the contract's most). An event's {@code stockShards} may be 1 to 64 by
 * the contract; one above the setting is refused with a 400 and nothing is written (an operator may cap it lower,
 * docs/operations.md). Null is valid (one shard).
 *
 * <p>The validator is made by Spring's constraint validator factory, so it reads the setting of its own context.
 */
@Target({ElementType.FIELD, ElementType.METHOD, ElementType.PARAMETER})
@Retention(RetentionPolicy.RUNTIME)
@Constraint(validatedBy = ShardsServed.Validator.class)
@interface ShardsServed {

    String message() default
            "more stock shards than this deployment allows (coupon.shards.max-served, docs/operations.md); give"
                    + " fewer, or leave stockShards out for one";

    Class<?>[] groups() default {};

    Class<? extends Payload>[] payload() default {};

    class Validator implements ConstraintValidator<ShardsServed, Integer> {

        private final int most;

        public Validator(@Value("${coupon.shards.max-served:64}") int most) {
            this.most = most;
        }

        @Override
        public boolean isValid(Integer value, ConstraintValidatorContext context) {
            return value == null || value < 1 || value <= most;
        }
    }
}
