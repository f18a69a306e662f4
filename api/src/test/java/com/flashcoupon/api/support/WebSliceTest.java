package com.flashcoupon.api.support;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.springframework.boot.webflux.test.autoconfigure.WebFluxTest;
import org.springframework.test.context.ContextConfiguration;

/**
 * The HTTP layer alone: WebFlux with the api's real security configuration (HMAC tokens signed by {@link Tokens}),
 * strict JSON, problem handling, body size limit and request ids, but no Redis, MySQL or Kafka. A test class imports
 * the controller it drives and declares the services behind it as {@code @MockitoBean}s.
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@WebFluxTest(properties = {"spring.config.name=api", "coupon.jwt.secret=" + Tokens.SECRET})
@ContextConfiguration(classes = WebSlice.class)
public @interface WebSliceTest {}
