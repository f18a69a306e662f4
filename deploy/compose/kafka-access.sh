#!/bin/sh
# What compose's apps need from its Kafka (deploy/compose/kafka-start.sh), as its administrator: the pipeline's topics
# (they may not create them), the SCRAM-SHA-512 users coupon-api and coupon-worker with the passwords of
# COUPON_KAFKA_API_PASSWORD and COUPON_KAFKA_WORKER_PASSWORD, and each user's ACLs. The ACL lines below are the
# contract's com.flashcoupon.contract.KafkaAccess, line for line (DeploymentFilesTest compares them), as
# bin/lib/KafkaUsers.java grants them for bin/up --cluster. Run by the one-shot kafka-access service at every
# `docker compose up`; running it again changes nothing but the passwords.
set -eu
: "${COUPON_KAFKA_ADMIN_PASSWORD:?COUPON_KAFKA_ADMIN_PASSWORD is required}"
: "${COUPON_KAFKA_API_PASSWORD:?COUPON_KAFKA_API_PASSWORD is required}"
: "${COUPON_KAFKA_WORKER_PASSWORD:?COUPON_KAFKA_WORKER_PASSWORD is required}"
bin=${KAFKA_HOME:-/opt/kafka}/bin
admin=/tmp/admin.properties
umask 077
cat >"$admin" <<PROPERTIES
security.protocol=SASL_PLAINTEXT
sasl.mechanism=SCRAM-SHA-512
sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required username="coupon-admin" password="$COUPON_KAFKA_ADMIN_PASSWORD";
PROPERTIES
server=kafka:9092

topic() { # NAME: created with the apps' own settings when missing (Topics.configs, one replica here)
  "$bin/kafka-topics.sh" --bootstrap-server "$server" --command-config "$admin" --create --if-not-exists \
    --topic "$1" --partitions "${COUPON_KAFKA_PARTITIONS:-3}" --replication-factor 1 --config min.insync.replicas=1
}
user() { # NAME PASSWORD
  "$bin/kafka-configs.sh" --bootstrap-server "$server" --command-config "$admin" --alter \
    --entity-type users --entity-name "$1" --add-config "SCRAM-SHA-512=[password=$2]"
}
acl() { # USER OPERATION topic|group NAME
  "$bin/kafka-acls.sh" --bootstrap-server "$server" --command-config "$admin" --add \
    --allow-principal "User:$1" --allow-host '*' --operation "$2" "--$3" "$4"
}

topic coupon.issue.requested
topic coupon.issue.result
topic coupon.issue.requested.dlt
topic coupon.wallet.changed
topic coupon.issue.result.notify-retry
topic coupon.issue.result.notify-dlt

user coupon-api "$COUPON_KAFKA_API_PASSWORD"
user coupon-worker "$COUPON_KAFKA_WORKER_PASSWORD"

acl coupon-api Write topic coupon.issue.requested
acl coupon-api Write topic coupon.wallet.changed
acl coupon-api Read topic coupon.issue.result
acl coupon-worker Read topic coupon.issue.requested
acl coupon-worker Read group coupon-issuer
acl coupon-worker Write topic coupon.issue.result
acl coupon-worker Write topic coupon.issue.requested.dlt
acl coupon-worker Read topic coupon.issue.result
acl coupon-worker Read group coupon-notifier
acl coupon-worker Write topic coupon.issue.result.notify-retry
acl coupon-worker Read topic coupon.issue.result.notify-retry
acl coupon-worker Write topic coupon.issue.result.notify-dlt
echo "the apps' Kafka topics, users and ACLs hold"
