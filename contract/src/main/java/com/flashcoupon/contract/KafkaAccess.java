package com.flashcoupon.contract;

import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.common.acl.AccessControlEntry;
import org.apache.kafka.common.acl.AclBinding;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.acl.AclPermissionType;
import org.apache.kafka.common.resource.PatternType;
import org.apache.kafka.common.resource.ResourcePattern;
import org.apache.kafka.common.resource.ResourceType;

/**
 * Who may do what on Kafka: the ACLs of the api's and the worker's SCRAM users, the one place they are defined. The api
 * writes issue requests and wallet changes and reads results (its live streams, assigned without a group); the worker
 * reads requests (group {@code coupon-issuer}) and writes results and dead letters; its notifier reads results (group
 * {@code coupon-notifier}) and writes and reads its retry topic and writes its dead letters. Neither creates topics:
 * where ACLs are on, the topics are the platform's ({@code COUPON_KAFKA_CREATE_TOPICS=false}). The Strimzi
 * {@code KafkaUser}s of deploy/kubernetes and {@code bin/up --cluster} grant exactly these.
 */
public final class KafkaAccess {

    /** The worker's consumer groups. */
    public static final String ISSUER_GROUP = "coupon-issuer";

    public static final String NOTIFIER_GROUP = "coupon-notifier";

    /** The default SCRAM user names (COUPON_KAFKA_USER of each app). */
    public static final String API_USER = "coupon-api";

    public static final String WORKER_USER = "coupon-worker";

    private KafkaAccess() {}

    /** The api's: write requests and wallet changes, read results. */
    public static List<AclBinding> api(String user) {
        List<AclBinding> acls = new ArrayList<>();
        topic(acls, user, Topics.ISSUE_REQUESTED, AclOperation.WRITE);
        topic(acls, user, Topics.WALLET_CHANGED, AclOperation.WRITE);
        topic(acls, user, Topics.ISSUE_RESULT, AclOperation.READ);
        return List.copyOf(acls);
    }

    /** The worker's: read requests, write results and dead letters; its notifier's retry topics. */
    public static List<AclBinding> worker(String user) {
        List<AclBinding> acls = new ArrayList<>();
        topic(acls, user, Topics.ISSUE_REQUESTED, AclOperation.READ);
        group(acls, user, ISSUER_GROUP);
        topic(acls, user, Topics.ISSUE_RESULT, AclOperation.WRITE);
        topic(acls, user, Topics.ISSUE_REQUESTED_DEAD_LETTER, AclOperation.WRITE);
        topic(acls, user, Topics.ISSUE_RESULT, AclOperation.READ);
        group(acls, user, NOTIFIER_GROUP);
        topic(acls, user, Topics.ISSUE_RESULT_NOTIFY_RETRY, AclOperation.WRITE);
        topic(acls, user, Topics.ISSUE_RESULT_NOTIFY_RETRY, AclOperation.READ);
        topic(acls, user, Topics.ISSUE_RESULT_NOTIFY_DEAD_LETTER, AclOperation.WRITE);
        return List.copyOf(acls);
    }

    /** WRITE and READ imply DESCRIBE of the topic, which producers and consumers need for its metadata. */
    private static void topic(List<AclBinding> acls, String user, String topic, AclOperation operation) {
        acls.add(allow(user, new ResourcePattern(ResourceType.TOPIC, topic, PatternType.LITERAL), operation));
    }

    private static void group(List<AclBinding> acls, String user, String group) {
        acls.add(allow(user, new ResourcePattern(ResourceType.GROUP, group, PatternType.LITERAL), AclOperation.READ));
    }

    private static AclBinding allow(String user, ResourcePattern pattern, AclOperation operation) {
        return new AclBinding(pattern, new AccessControlEntry("User:" + user, "*", operation, AclPermissionType.ALLOW));
    }
}
