package com.flashcoupon.worker;

import com.flashcoupon.db.CouponPersistence;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.context.properties.ConfigurationPropertiesScan;
import org.springframework.context.annotation.Import;

/** The issuer worker: consumes admitted requests from Kafka and writes coupon wallets into MySQL, throttled. */
@SpringBootApplication
@ConfigurationPropertiesScan
@Import(CouponPersistence.class)
public class IssuerWorkerApplication {

    public static void main(String[] args) {
        SpringApplication.run(IssuerWorkerApplication.class, args);
    }
}
