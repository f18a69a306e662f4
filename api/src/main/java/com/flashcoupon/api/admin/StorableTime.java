package com.flashcoupon.api.admin;

import jakarta.validation.Constraint;
import jakarta.validation.ConstraintValidator;
import jakarta.validation.ConstraintValidatorContext;
import jakarta.validation.Payload;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import java.time.Instant;

/**
 * A coupon window's bound that MySQL's DATETIME can store and the Redis scripts read as a time: from 1970-01-01T00:00:01Z
 * (the scripts take 0 or less as "no close") to 9999-12-31T23:59:59Z (DATETIME's last second). Null is valid.
 */
@Target({ElementType.FIELD, ElementType.METHOD, ElementType.PARAMETER})
@Retention(RetentionPolicy.RUNTIME)
@Constraint(validatedBy = StorableTime.Validator.class)
@interface StorableTime {

    Instant FIRST = Instant.parse("1970-01-01T00:00:01Z");
    Instant LAST = Instant.parse("9999-12-31T23:59:59Z");

    String message() default "must be between 1970-01-01T00:00:01Z and 9999-12-31T23:59:59Z";

    Class<?>[] groups() default {};

    Class<? extends Payload>[] payload() default {};

    class Validator implements ConstraintValidator<StorableTime, Instant> {

        @Override
        public boolean isValid(Instant value, ConstraintValidatorContext context) {
            return value == null || (!value.isBefore(FIRST) && !value.isAfter(LAST));
        }
    }
}
