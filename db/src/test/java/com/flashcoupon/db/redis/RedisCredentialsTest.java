package com.flashcoupon.db.redis;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import org.junit.jupiter.api.Test;
import org.springframework.mock.env.MockEnvironment;

class RedisCredentialsTest {

    @Test
    void shouldWriteTheUserAndPasswordIntoTheUrlSoThatSpringBootReadsThemBack() {
        String url = RedisCredentials.withCredentials("rediss://redis.example:6380/2", "coupon-api", "p@ss:w/rd%1");

        URI uri = URI.create(url);
        assertThat(uri.getScheme()).isEqualTo("rediss");
        assertThat(uri.getHost()).isEqualTo("redis.example");
        assertThat(uri.getPort()).isEqualTo(6380);
        assertThat(uri.getPath()).isEqualTo("/2");
        // Boot splits the decoded user info at its first colon
        assertThat(uri.getUserInfo()).isEqualTo("coupon-api:p@ss:w/rd%1");
    }

    @Test
    void shouldReplaceCredentialsTheUrlCarriedAndLeaveAnUrlAloneWithoutAny() {
        var environment = new MockEnvironment()
                .withProperty("spring.data.redis.url", "redis://old:secret@127.0.0.1:6379")
                .withProperty(RedisCredentials.USER, "coupon-worker")
                .withProperty(RedisCredentials.PASSWORD, "new");
        new RedisCredentials().postProcessEnvironment(environment, null);
        assertThat(environment.getProperty("spring.data.redis.url"))
                .isEqualTo("redis://coupon-worker:new@127.0.0.1:6379");

        var untouched = new MockEnvironment().withProperty("spring.data.redis.url", "redis://127.0.0.1:6379");
        new RedisCredentials().postProcessEnvironment(untouched, null);
        assertThat(untouched.getProperty("spring.data.redis.url")).isEqualTo("redis://127.0.0.1:6379");
    }

    @Test
    void shouldAuthenticateAsTheDefaultUserWhenOnlyAPasswordIsGiven() {
        assertThat(RedisCredentials.withCredentials("redis://127.0.0.1:6379", "", "pw"))
                .isEqualTo("redis://default:pw@127.0.0.1:6379");
    }
}
