#!/usr/bin/env bash
# scripts/demo.sh — the README's first command: build s3c and run its main job
# on the built-in default store, the emulator.
#
# Installs what is missing (as root), builds, starts build/s3emu on a free
# loopback port with S3's latency model (20 ms to first byte, 90 MB/s per
# connection), generates a tree of files, and has s3c copy it up and down
# again: it prints what it did, how fast, and checks every byte came back.
# The emulator is stopped by PID on the way out.
#
#   DEMO_SMALL=2000 DEMO_LARGE=4 bash scripts/demo.sh    # the tree's shape
set -uo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT" || exit 1
exec </dev/null

[ "${S3C_SKIP_DEPS:-0}" = 1 ] || scripts/deps.sh --build-only || exit 1
make -j"$(nproc)" build/s3c build/s3emu >/dev/null || { echo "demo: make failed" >&2; exit 1; }

WORK=$(mktemp -d "${TMPDIR:-/tmp}/s3c-demo.XXXXXX")
EMU_PID=""
cleanup() {
    [ -n "$EMU_PID" ] && kill "$EMU_PID" 2>/dev/null && wait "$EMU_PID" 2>/dev/null
    rm -rf "$WORK"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM HUP

# The emulator: its own keys, nothing read from the user's ~/.aws.
export HOME=$WORK/home AWS_ACCESS_KEY_ID=demo-access AWS_SECRET_ACCESS_KEY=demo-secret AWS_REGION=us-east-1
mkdir -p "$HOME"
build/s3emu --port 0 --access-key "$AWS_ACCESS_KEY_ID" --secret-key "$AWS_SECRET_ACCESS_KEY" \
    --latency-ms 20 --bandwidth-mbps 90 > "$WORK/emu.out" 2> "$WORK/emu.err" &
EMU_PID=$!
for ((i = 0; i < 100; i++)); do
    EP=$(sed -nE 's/^ready (http:[^ ]+).*/\1/p' "$WORK/emu.out")
    [ -n "$EP" ] && break
    sleep 0.1
done
[ -n "$EP" ] || { echo "demo: s3emu did not start" >&2; cat "$WORK/emu.err" >&2; exit 1; }
export AWS_ENDPOINT_URL=$EP

SMALL=${DEMO_SMALL:-2000}
LARGE=${DEMO_LARGE:-4}
echo "== s3emu at $EP (20 ms first-byte latency, 90 MB/s per connection)"
echo "== generating $SMALL files of 8 KB and $LARGE files of 32 MB"
mkdir -p "$WORK/tree/small" "$WORK/tree/large"
head -c $((SMALL * 8192)) /dev/urandom | split -a 5 -d -b 8192 - "$WORK/tree/small/f"
for ((i = 0; i < LARGE; i++)); do head -c $((32 << 20)) /dev/urandom > "$WORK/tree/large/big$i.bin"; done
bytes=$(du -sb "$WORK/tree" | cut -f1)

S3C=build/s3c
B=s3c-demo
now() { date +%s.%N; }
rate() { awk -v b="$bytes" -v t="$1" -v n="$2" 'BEGIN { printf "%d files, %.1f MB in %.2f s: %.0f files/s, %.1f MB/s", n, b / 1e6, t, n / t, b / 1e6 / t }'; }
n=$((SMALL + LARGE))
rc=0

$S3C mb "s3://$B" || exit 1
t0=$(now)
$S3C cp --recursive --quiet "$WORK/tree" "s3://$B/tree/" || rc=1
t1=$(now)
echo "upload:   $(rate "$(awk -v a="$t0" -v b="$t1" 'BEGIN{print b-a}')" $n)"
$S3C ls --recursive --summarize --human-readable "s3://$B/tree/" | tail -n 2
t0=$(now)
$S3C cp --recursive --quiet "s3://$B/tree/" "$WORK/back" || rc=1
t1=$(now)
echo "download: $(rate "$(awk -v a="$t0" -v b="$t1" 'BEGIN{print b-a}')" $n)"
if diff -r "$WORK/tree" "$WORK/back" >/dev/null; then
    echo "verified: every file came back byte for byte"
else
    echo "demo: the tree that came back differs" >&2
    rc=1
fi
$S3C rb --force --quiet "s3://$B" || rc=1
echo "emulator: $(curl -s "$EP/_s3emu/stats" | sed -nE 's/.*"requests":([0-9]+).*/\1/p') requests served"
exit $rc
