#!/bin/sh
# Compose's Kafka (apache/kafka image), one KRaft node that is broker and controller, where every client
# authenticates: SASL/SCRAM-SHA-512 on the clients' listener kafka:9092 (the apps as coupon-api and coupon-worker,
# made by deploy/compose/kafka-access.sh; the broker itself as coupon-admin), SASL/PLAIN as coupon-admin on the
# controller's listener (KRaft bootstraps no SCRAM there), StandardAuthorizer with nothing allowed without an ACL. The
# same settings as bin/up --cluster's brokers (bin/lib/kafka.sh), for one node.
#
# The image's own start script cannot add a SCRAM user when it formats the storage, which KRaft requires for the
# first one (the broker authenticates to itself with it), so this script replaces it: it writes server.properties
# from COUPON_KAFKA_ADMIN_PASSWORD and CLUSTER_ID, formats the storage once (the administrator's credential goes in then;
# later starts keep the storage and its users as they are: the administrator's password is fixed once the kafka-data
# volume exists, and changing it later takes kafka-configs.sh or a new volume), and starts the broker.
set -eu
: "${COUPON_KAFKA_ADMIN_PASSWORD:?COUPON_KAFKA_ADMIN_PASSWORD is required}"
: "${CLUSTER_ID:?CLUSTER_ID is required}"
bin=${KAFKA_HOME:-/opt/kafka}/bin
config=/tmp/flash-coupon/server.properties
mkdir -p /tmp/flash-coupon
umask 077
cat >"$config" <<PROPERTIES
process.roles=broker,controller
node.id=1
controller.quorum.voters=1@kafka:9093
listeners=SASL_PLAINTEXT://:9092,CONTROLLER://:9093
advertised.listeners=SASL_PLAINTEXT://kafka:9092
controller.listener.names=CONTROLLER
inter.broker.listener.name=SASL_PLAINTEXT
listener.security.protocol.map=SASL_PLAINTEXT:SASL_PLAINTEXT,CONTROLLER:SASL_PLAINTEXT
sasl.mechanism.inter.broker.protocol=SCRAM-SHA-512
sasl.mechanism.controller.protocol=PLAIN
listener.name.sasl_plaintext.sasl.enabled.mechanisms=SCRAM-SHA-512
listener.name.sasl_plaintext.scram-sha-512.sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required username="coupon-admin" password="$COUPON_KAFKA_ADMIN_PASSWORD";
listener.name.controller.sasl.enabled.mechanisms=PLAIN
listener.name.controller.plain.sasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule required username="coupon-admin" password="$COUPON_KAFKA_ADMIN_PASSWORD" user_coupon-admin="$COUPON_KAFKA_ADMIN_PASSWORD";
authorizer.class.name=org.apache.kafka.metadata.authorizer.StandardAuthorizer
super.users=User:coupon-admin
allow.everyone.if.no.acl.found=false
log.dirs=/var/lib/kafka/data
num.partitions=3
default.replication.factor=1
min.insync.replicas=1
offsets.topic.replication.factor=1
transaction.state.log.replication.factor=1
transaction.state.log.min.isr=1
share.coordinator.state.topic.replication.factor=1
share.coordinator.state.topic.min.isr=1
group.initial.rebalance.delay.ms=0
PROPERTIES
# what the health check and kafka-access.sh connect with, as the administrator
cat >/tmp/flash-coupon/admin.properties <<PROPERTIES
security.protocol=SASL_PLAINTEXT
sasl.mechanism=SCRAM-SHA-512
sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required username="coupon-admin" password="$COUPON_KAFKA_ADMIN_PASSWORD";
PROPERTIES
# Storage formatted without the administrator's credential (by the image's own script, before this one) would leave
# a broker nobody can log in to: say so rather than start one that is never healthy.
data=/var/lib/kafka/data
if [ -e "$data/meta.properties" ] && [ ! -e "$data/.flash-coupon-scram" ]; then
  echo "kafka-start.sh: $data was formatted without SCRAM users; remove the kafka-data volume" \
    "(docker compose down -v deletes every volume) and start again" >&2
  exit 1
fi
"$bin/kafka-storage.sh" format --ignore-formatted --cluster-id "$CLUSTER_ID" --config "$config" \
  --add-scram "SCRAM-SHA-512=[name=coupon-admin,password=$COUPON_KAFKA_ADMIN_PASSWORD]"
: >"$data/.flash-coupon-scram"
exec "$bin/kafka-server-start.sh" "$config"
