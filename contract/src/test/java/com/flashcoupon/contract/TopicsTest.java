package com.flashcoupon.contract;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class TopicsTest {

    @Test
    void shouldNeedOneInSyncReplicaLessThanTheReplicasAndAtLeastOne() {
        assertThat(Topics.configs(1)).containsExactly(java.util.Map.entry("min.insync.replicas", "1"));
        assertThat(Topics.configs(2)).containsEntry("min.insync.replicas", "1");
        assertThat(Topics.configs(3)).containsEntry("min.insync.replicas", "2");
        assertThat(Topics.configs(5)).containsEntry("min.insync.replicas", "4");
        assertThatThrownBy(() -> Topics.configs(0)).isInstanceOf(IllegalArgumentException.class);
    }
}
