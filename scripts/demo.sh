#!/usr/bin/env bash
# scripts/demo.sh — the README's first command: build s3c and run it for real.
#
# Installs what is missing (as root), builds, starts a throw-away Ceph RADOS
# Gateway on a free loopback port, and drives s3c against it: make a bucket,
# fill it (with the AWS CLI as the peer), list it the way `aws s3 ls` does,
# show an object's metadata, remove the bucket. Stops Ceph by PID on the way
# out. (When the emulator lands, the default store becomes build/s3emu.)
set -uo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT" || exit 1
exec </dev/null

[ "${S3C_SKIP_DEPS:-0}" = 1 ] || scripts/deps.sh || exit 1
make -j"$(nproc)" >/dev/null || { echo "demo: make failed" >&2; exit 1; }

WORK=$(mktemp -d "${TMPDIR:-/tmp}/s3c-demo.XXXXXX")
trap 'scripts/server-stop.sh "$WORK/ceph"; rm -rf "$WORK"' EXIT
trap 'exit 130' INT
trap 'exit 143' TERM HUP

port=""
for ((i = 0; i < 100; i++)); do
    p=$((20000 + RANDOM % 12000))
    (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null && continue
    (exec 3<>"/dev/tcp/127.0.0.1/$((p + 1))") 2>/dev/null && continue
    port=$p; break
done
[ -n "$port" ] || { echo "demo: no free port" >&2; exit 1; }
scripts/ceph-rgw-start.sh "$WORK/ceph" "$port" >/dev/null || exit 1
# shellcheck disable=SC1091
. "$WORK/ceph/s3.env"

S3C=build/s3c
B=s3c-demo
show() { echo "\$ $*"; "$@"; local rc=$?; [ $rc -eq 0 ] || echo "(exit $rc)"; return $rc; }

mkdir -p "$WORK/data/photos/2024" "$WORK/data/docs"
for i in 1 2 3; do head -c $((i * 100000)) /dev/urandom > "$WORK/data/photos/2024/img$i.jpg"; done
echo "hello from s3c" > "$WORK/data/docs/readme.txt"

rc=0
show $S3C version || rc=1
show $S3C mb "s3://$B" || rc=1
/usr/bin/aws --endpoint-url "$AWS_ENDPOINT_URL" s3 cp --recursive --quiet "$WORK/data" "s3://$B/"
show $S3C ls || rc=1
show $S3C ls "s3://$B/" || rc=1
show $S3C ls --recursive --human-readable --summarize "s3://$B" || rc=1
show $S3C head "s3://$B/docs/readme.txt" || rc=1
show $S3C rb --force "s3://$B" || rc=1
exit $rc
