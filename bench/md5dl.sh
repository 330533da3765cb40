#!/usr/bin/env bash
# bench/md5dl.sh — large downloads where an MD5 ETag is the only check (issue 24, item 4).
#
# One s3emu pinned to its own core (taskset -c EMU_CORE, one worker thread),
# objects uploaded without flexible checksums (what s5cmd, the AWS CLI v1 and
# every tool before 2025 leave: no stored CRC, an MD5 ETag, "md5-of-md5s-N"
# when multipart), then downloaded to tmpfs by each binary given and by curl
# (raw parallel ranged GETs, nothing verified: the floor), the client pinned
# to CLIENT_CORE. Prints one line per run and the medians (client CPU-s/GB,
# user+sys, and wall) as a Markdown table.
#
#   bench/md5dl.sh [LABEL=S3C-BINARY ...]     default: s3c=build/s3c
#   MD5DL_REPS=3 MD5DL_DST=/dev/shm/md5dl MD5DL_EMU_CORE=1 MD5DL_CLIENT_CORE=0
#   MD5DL_ROWS="1x1024:8 1x1024:16 4x256:8 1x1024:0"   COUNTxMiB:PART-MiB (0: one PUT)
#   MD5DL_LATENCY_MS=0 MD5DL_BANDWIDTH_MBPS=0           s3emu's model (0: off)
#   MD5DL_CURL_CONNS=16                                  curl's parallel connections
#   MD5DL_PEERS="aws rclone s5cmd"                      the peers run beside (each if installed):
#       the AWS CLI at its defaults, rclone at its defaults (4 streams a file),
#       s5cmd at its defaults; none of them checks a multipart ETag
#
# Needs GNU time, curl (with --aws-sigv4), python3, taskset.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
REPS=${MD5DL_REPS:-3}
DST=${MD5DL_DST:-/dev/shm/md5dl}
EMU_CORE=${MD5DL_EMU_CORE:-1}
CLIENT_CORE=${MD5DL_CLIENT_CORE:-0}
ROWS=${MD5DL_ROWS:-"1x1024:8 1x1024:16 4x256:8 1x1024:0"}
CONNS=${MD5DL_CURL_CONNS:-16}
AK=s3emu-access
SK=s3emu-secret
[ $# -gt 0 ] || set -- "s3c=$ROOT/build/s3c"
PIN=(taskset -c "$CLIENT_CORE")

WORK=$(mktemp -d /tmp/md5dl-bench.XXXXXX)
EMU_PID=
cleanup() {
    local rc=$?
    [ -n "$EMU_PID" ] && kill "$EMU_PID" 2>/dev/null && wait "$EMU_PID" 2>/dev/null || true
    rm -rf "$WORK" "$DST"
    exit "$rc"
}
trap cleanup EXIT

taskset -c "$EMU_CORE" "$ROOT/build/s3emu" --port 0 --threads 1 --access-key $AK --secret-key $SK \
    --latency-ms "${MD5DL_LATENCY_MS:-0}" --bandwidth-mbps "${MD5DL_BANDWIDTH_MBPS:-0}" >"$WORK/emu.log" 2>&1 &
EMU_PID=$!
for _ in $(seq 50); do
    URL=$(grep -o 'http://[0-9.:]*' "$WORK/emu.log" | head -n 1 || true)
    [ -n "$URL" ] && break
    sleep 0.1
done
[ -n "$URL" ] || { echo "s3emu did not start" >&2; exit 1; }

export HOME=$WORK AWS_ACCESS_KEY_ID=$AK AWS_SECRET_ACCESS_KEY=$SK AWS_REGION=us-east-1
export AWS_ENDPOINT_URL=$URL AWS_CONFIG_FILE=$WORK/config AWS_SHARED_CREDENTIALS_FILE=$WORK/credentials
: >"$WORK/credentials"
sig=(--aws-sigv4 "aws:amz:us-east-1:s3" --user "$AK:$SK" -H "x-amz-content-sha256: UNSIGNED-PAYLOAD")

# The objects: random bytes, put with no x-amz-checksum-* (curl, signed): one
# PUT, or CreateMultipartUpload, UploadPart of PART MiB each, Complete.
curl -sSf "${sig[@]}" -X PUT "$URL/md5dl" -o /dev/null
put_object() { # KEY FILE PART-MIB
    local key=$1 file=$2 part=$(( $3 * 1048576 )) size id n=0 off=0 xml
    if [ "$3" = 0 ]; then
        curl -sSf "${sig[@]}" -X PUT -T "$file" "$URL/md5dl/$key" -o /dev/null
        return
    fi
    size=$(stat -c %s "$file")
    id=$(curl -sSf "${sig[@]}" -X POST "$URL/md5dl/$key?uploads=" | sed -n 's:.*<UploadId>\(.*\)</UploadId>.*:\1:p')
    xml="<CompleteMultipartUpload>"
    while [ "$off" -lt "$size" ]; do
        n=$((n + 1))
        dd if="$file" of="$WORK/part" bs=1M skip=$((off / 1048576)) count="$3" status=none
        etag=$(curl -sSf "${sig[@]}" -X PUT -T "$WORK/part" -D - -o /dev/null "$URL/md5dl/$key?partNumber=$n&uploadId=$id" |
            tr -d '\r' | sed -n 's/^[Ee][Tt][Aa][Gg]: //p')
        xml="$xml<Part><PartNumber>$n</PartNumber><ETag>$etag</ETag></Part>"
        off=$((off + part))
    done
    curl -sSf "${sig[@]}" -X POST --data-binary "$xml</CompleteMultipartUpload>" "$URL/md5dl/$key?uploadId=$id" -o /dev/null
}
key() { echo "r${1/:/p}"; } # a row's prefix: 1x1024:8 -> r1x1024p8
for row in $ROWS; do
    count=${row%%x*} rest=${row#*x}; mib=${rest%%:*} part=${rest#*:}
    head -c $((mib * 1048576)) /dev/urandom >"$WORK/src"
    for i in $(seq "$count"); do put_object "$(key "$row")/o$i" "$WORK/src" "$part"; done
    # what the download must be: the ETag (no stored checksum)
    h=$(curl -sSfI "${sig[@]}" -H "x-amz-checksum-mode: ENABLED" "$URL/md5dl/$(key "$row")/o1" | tr -d '\r')
    if grep -qi '^x-amz-checksum-' <<<"$h"; then echo "r$row stores a checksum: $h" >&2; exit 1; fi
    echo "# r$row: $(grep -i '^etag' <<<"$h")" >&2
    sha256sum <"$WORK/src" | cut -d' ' -f1 >"$WORK/sha-$row"
done
rm -f "$WORK/src" "$WORK/part"

# curl, the floor: CONNS parallel ranged GETs of 8 MiB (16 with 16 MiB parts), signed, nothing checked.
curl_cfg() { # ROW -> $WORK/curl.cfg
    local row=$1 count=${1%%x*} rest=${1#*x} mib part chunk off i
    mib=${rest%%:*} part=${rest#*:}
    chunk=$(( (part > 8 ? part : 8) * 1048576 ))
    : >"$WORK/curl.cfg"
    for i in $(seq "$count"); do
        for ((off = 0; off < mib * 1048576; off += chunk)); do
            printf 'url = "%s/md5dl/%s/o%s"\nrange = %d-%d\noutput = "%s/o%s.%d"\n' \
                "$URL" "$(key "$row")" "$i" "$off" $((off + chunk - 1)) "$DST" "$i" "$off" >>"$WORK/curl.cfg"
        done
    done
}

# The peers, pinned as s3c is: each given the emulator and the keys its own way.
PEERS=()
for p in ${MD5DL_PEERS-aws rclone s5cmd}; do
    command -v "$p" >/dev/null && PEERS+=("$p")
done
export RCLONE_CONFIG=/dev/null RCLONE_CONFIG_EMU_TYPE=s3 RCLONE_CONFIG_EMU_PROVIDER=Other
export RCLONE_CONFIG_EMU_ACCESS_KEY_ID=$AK RCLONE_CONFIG_EMU_SECRET_ACCESS_KEY=$SK
export RCLONE_CONFIG_EMU_ENDPOINT=$URL RCLONE_CONFIG_EMU_REGION=us-east-1 RCLONE_CONFIG_EMU_FORCE_PATH_STYLE=true
peer_cmd() { # PEER ROW -> the command line, in PEER_CMD (AWS_CA_BUNDLE breaks rclone's S3 client)
    case $1 in
    aws) PEER_CMD=(aws --endpoint-url "$URL" s3 cp --recursive --quiet "s3://md5dl/$(key "$2")/" "$DST/") ;;
    rclone) PEER_CMD=(env -u AWS_CA_BUNDLE rclone copy "EMU:md5dl/$(key "$2")" "$DST/") ;;
    s5cmd) PEER_CMD=(s5cmd --endpoint-url "$URL" cp "s3://md5dl/$(key "$2")/*" "$DST/") ;;
    esac
}

# run LABEL ROW CMD...: one timed run into an empty $DST; prints "LABEL ROW cpu_s_per_gb wall".
run() {
    local label=$1 row=$2 count=${2%%x*} rest=${2#*x} mib bytes t
    shift 2
    mib=${rest%%:*}
    bytes=$((count * mib * 1048576))
    rm -rf "$DST"
    mkdir -p "$DST"
    sync
    /usr/bin/time -f '%e %U %S' -o "$WORK/time" "$@" >"$WORK/out" 2>&1 || {
        echo "$label $row FAILED: $(tail -n 3 "$WORK/out")" >&2; return 1; }
    if [ "$label" != curl ]; then # (the peers' bytes too: what they wrote, unchecked by them)
        for f in "$DST"/*; do
            [ "$(sha256sum <"$f" | cut -d' ' -f1)" = "$(cat "$WORK/sha-$row")" ] ||
                { echo "$label $row: wrong bytes in $f" >&2; return 1; }
        done
    fi
    read -r wall user sys <"$WORK/time"
    t=$(python3 -c "print(f'{($user + $sys) / ($bytes / 1e9):.3f} {$wall:.2f}')")
    echo "$label $row $t" | tee -a "$WORK/results" >&2
}

for rep in $(seq "$REPS"); do
    for row in $ROWS; do
        for spec in "$@"; do
            label=${spec%%=*} bin=${spec#*=}
            run "$label" "$row" "${PIN[@]}" "$bin" cp --recursive --quiet "s3://md5dl/$(key "$row")/" "$DST/" || true
        done
        for p in "${PEERS[@]}"; do
            peer_cmd "$p" "$row"
            run "$p" "$row" "${PIN[@]}" "${PEER_CMD[@]}" || true
        done
        curl_cfg "$row"
        run curl "$row" "${PIN[@]}" curl -sSf "${sig[@]}" --parallel --parallel-immediate --parallel-max "$CONNS" \
            -K "$WORK/curl.cfg" || true
    done
done

echo
echo "| row (count x MiB : part MiB, 0 = one PUT) | tool | CPU-s/GB (median) | wall s (median) | runs |"
echo "|---|---|---|---|---|"
python3 - "$WORK/results" <<'EOF'
import sys, statistics, collections
d = collections.OrderedDict()
for line in open(sys.argv[1]):
    label, row, cpu, wall = line.split()
    d.setdefault((row, label), []).append((float(cpu), float(wall)))
for (row, label), v in d.items():
    print(f"| {row} | {label} | {statistics.median(c for c, _ in v):.2f} | {statistics.median(w for _, w in v):.2f} | "
          + ", ".join(f"{c:.2f}/{w:.2f}" for c, w in v) + " |")
EOF
