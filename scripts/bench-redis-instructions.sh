#!/bin/bash
# Instructions the Redis server spends per URL claimed and settled (issue 13), counted by valgrind's
# callgrind: unlike wall time on this machine (its speed drifts by a third within an hour), the count
# repeats to within about 2% run after run, so two codes of the frontier's scripts compare closely. It
# counts instructions, not cache misses: a change that saves instructions but touches more memory
# can still be slower (measure wall time side by side too: scripts/bench-frontier-ab.ts).
#
#   [PORT=6390] [CLAIM_BATCH=256] bash scripts/bench-redis-instructions.sh [URLS] [HOSTS]
#   (defaults 100000 1000: 100 URLs a host, as the 1M/10k benchmark)
#
# Starts its own redis-server under callgrind on 127.0.0.1:$PORT (instrumentation off), runs
# scripts/bench-distributed.ts against it, counts only its 1-client phase (claims of 256, each lease
# settled done with the next claim), stops the server, and prints the instructions per URL with the
# profile's path (callgrind_annotate <path> breaks them down by function). Needs valgrind and
# redis-server (Debian packages); says so and exits 2 without them.
set -euo pipefail
URLS=${1:-100000}
HOSTS=${2:-1000}
PORT=${PORT:-6390}
for tool in valgrind callgrind_control callgrind_annotate redis-server redis-cli; do
  command -v $tool >/dev/null || { echo "bench-redis-instructions: $tool is not installed (Debian: valgrind, redis-server)" >&2; exit 2; }
done
if redis-cli -p $PORT ping >/dev/null 2>&1; then echo "bench-redis-instructions: port $PORT is in use" >&2; exit 2; fi
D=$(mktemp -d /tmp/redis-instructions.XXXXXX)
root=$(cd "$(dirname "$0")/.." && pwd)
(cd "$D" && valgrind --tool=callgrind --instr-atstart=no --callgrind-out-file="$D/callgrind.out" \
  redis-server --port $PORT --bind 127.0.0.1 --save '' --appendonly no > "$D/redis.log" 2>&1 &)
trap 'redis-cli -p $PORT shutdown nosave >/dev/null 2>&1 || true' EXIT
until redis-cli -p $PORT ping >/dev/null 2>&1; do sleep 0.5; done
# (counting on and off by the benchmark itself, just before and after its 1-client phase: polling
# its output from here started the count up to seconds late when the machine was loaded)
# (this server's pid: callgrind_control without one switches every callgrind run on the machine)
pid=$(redis-cli -p $PORT info server | tr -d '\r' | grep '^process_id:' | cut -d: -f2)
(cd "$root" && BENCH_PHASE_START="callgrind_control -i on $pid" BENCH_PHASE_END="callgrind_control -i off $pid" \
  npx tsx scripts/bench-distributed.ts --urls "$URLS" --hosts "$HOSTS" ${CLAIM_BATCH:+--claim-batch "$CLAIM_BATCH"} \
  --redis redis://127.0.0.1:$PORT/0 > "$D/bench.json" 2> "$D/bench.err") &
bench=$!
until grep -q 'claims, 1 client' "$D/bench.err" 2>/dev/null; do
  kill -0 $bench 2>/dev/null || { cat "$D/bench.err" >&2; exit 1; }
  sleep 0.2
done
callgrind_control -d $pid > /dev/null
kill $bench 2>/dev/null || true
wait $bench 2>/dev/null || true
claimed=$(grep 'claims, 1 client' "$D/bench.err" | grep -o '"claimed":[0-9]*' | cut -d: -f2)
profile=$(ls "$D"/callgrind.out.* | head -1)
total=$(callgrind_annotate "$profile" 2>/dev/null | grep 'PROGRAM TOTALS' | tr -d ',' | awk '{print $1}')
[ -n "$claimed" ] && [ "$claimed" -gt 0 ] || { echo "bench-redis-instructions: the 1-client phase claimed nothing" >&2; exit 1; }
echo "{\"command\": \"bash scripts/bench-redis-instructions.sh $URLS $HOSTS\", \"claimed\": $claimed, \"instructions_per_url\": $((total / claimed)), \"profile\": \"$profile\"}"
