#!/bin/bash
# usage: fresh.sh NAME K  — a fresh stack, then the first event of K shards
cd /work/main
bin/down > /dev/null 2>&1; bin/up > /tmp/est/up-$1.log 2>&1
grep "warmed" .run/logs/api.log | tail -1 > /tmp/est/$1.txt
python3 /tmp/est/sample.py /tmp/est/$1.samples $(mysql -uroot coupon -Nse "select coalesce(max(id),0) from coupon") &
extra=""; [ "$2" != 1 ] && extra="--stock-shards $2"
bin/demo --members 2000 --coupons 2000 --rate 100 --progress off $extra --estimate-csv /tmp/est/$1.csv >> /tmp/est/$1.txt 2>&1
c=$(mysql -uroot coupon -Nse "select max(coupon_id) from coupon_wallet")
mysql -uroot coupon -Nse "select floor(unix_timestamp(issued_at)) - (select floor(unix_timestamp(min(issued_at))) from coupon_wallet where coupon_id=$c) s, count(*) from coupon_wallet where coupon_id=$c group by s order by s" | tr '\n\t' ' :' >> /tmp/est/$1.txt
echo >> /tmp/est/$1.txt
grep "effective issue rate" .run/logs/api.log >> /tmp/est/$1.txt
