#!/usr/bin/env bash
# bench/sync/run.sh DIR: the one-off scale measurement of `s3c sync` (issue 5,
# item 9): 1,000,000 empty files up to s3emu, a no-op re-sync, an S3-to-S3 sync
# of the million into an empty prefix and its no-op re-sync, a no-op download
# sync, the same through the external sort, and a --delete of the million.
# Each step under /usr/bin/time -v, with s3emu's request counts. Not a test:
# about 25 minutes on 2 busy cores, 1 GB of emulator memory, 1,000,000 inodes.
#   make && bench/sync/run.sh /tmp/sync-scale
set -uo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
DIR=${1:?usage: bench/sync/run.sh WORKDIR}
PORT=${PORT:-19101}
S=$ROOT/build/s3c
EMU="http://127.0.0.1:$PORT"
mkdir -p "$DIR/empty" && cd "$DIR" || exit 1
cc -O2 -o mktree "$ROOT/bench/sync/mktree.c" || exit 1
[ -d tree ] || ./mktree tree 1000 || exit 1
"$ROOT/build/s3emu" --port "$PORT" > emu.log 2>&1 &
EMU_PID=$!
trap 'kill $EMU_PID' EXIT
sleep 1
export AWS_ACCESS_KEY_ID=s3emu-access AWS_SECRET_ACCESS_KEY=s3emu-secret AWS_REGION=us-east-1 AWS_ENDPOINT_URL=$EMU
step() {
    local name=$1; shift
    echo "== $name: $* (load $(cut -d' ' -f1-3 /proc/loadavg))"
    curl -s -X DELETE "$EMU/_s3emu/stats" >/dev/null
    /usr/bin/time -v "$@" > "$name.out" 2> "$name.err"
    echo "rc=$? lines=$(wc -l < "$name.out")"
    grep -E "Elapsed|Maximum resident|User time|System time" "$name.err"
    curl -s "$EMU/_s3emu/stats" | jq -c '{ops, requests}'
    ps -o rss= -p "$EMU_PID" | awk '{print "s3emu RSS KiB " $1}'
}
"$S" mb s3://scale
step up         "$S" sync --no-progress tree s3://scale/up
step up-noop    "$S" sync --no-progress tree s3://scale/up
step copy       "$S" sync --no-progress s3://scale/up s3://scale/copy
step copy-noop  "$S" sync --no-progress s3://scale/up s3://scale/copy
step down-noop  "$S" sync --no-progress s3://scale/up tree
step down-noop-xsort env S3C_SYNC_SORT_BUDGET=16777216 TMPDIR="$DIR" "$S" sync --no-progress s3://scale/up tree
step delete-all "$S" sync --no-progress --delete empty s3://scale/copy
