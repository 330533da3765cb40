#!/usr/bin/env bash
# bench/run.sh: the users' matrix (issue 12 item 7). s3c against its peers
# (the AWS CLI at its defaults, tuned as users tune it, and with its CRT
# client; rclone with 64 transfers) and against raw curl (a reference, not a ceiling: N
# parallel unsigned curl requests moving the same bytes), on one s3emu:
# uploads, downloads, S3->S3 copies in one region and across two regions, for
# every workload and latency profile. Every run is timed with GNU time (wall,
# user, sys, peak RSS), checked (object counts and bytes; sha256 of a sample
# after a download), counted by the emulator (requests, connections, CPU), and
# repeated. Writes a markdown report, the raw CSV and one PNG per profile.
#
#   bench/run.sh                   full: 10,000 x 8 KB, 1,000 x 1 MiB, 64 x 32 MiB,
#                                  4 x 200 MB, 2 x 1 GiB; 20 ms / 90 MB/s and 0 ms;
#                                  3 repetitions (hours on 2 busy cores: pick a subset)
#   BENCH_QUICK=1 bench/run.sh     the whole matrix on small workloads, 1 repetition (< 5 min)
#
# Environment (all optional):
#   BENCH_REPS=N             repetitions of every cell (default 3; quick: 1)
#   BENCH_WORKLOADS="..."    COUNTxBYTES list (default above)
#   BENCH_PROFILES="..."     LATENCY_MS:BANDWIDTH_MBPS[:TAIL_PCT:TAIL_MULT] list; 0 turns
#                            either off (default "20:90 0:0": S3's figures, then loopback
#                            as it is). A tail makes TAIL_PCT percent of requests
#                            TAIL_MULT times slower: "20:90:1:50" is the tail rows
#                            (1% of requests take 1 s instead of 20 ms)
#   BENCH_TOOLS="..."        subset of: s3c aws aws-tuned aws-crt rclone rclone-64 curl
#                            s3c-8mib (default all but rclone at its defaults and
#                            s3c-8mib). curl is raw curl (unsigned, unverified); s3c-8mib is s3c with
#                            --part-size 8MiB, its part size before it sized parts
#                            from the latency and bandwidth it sees; s3c-nohedge is
#                            s3c with S3C_HEDGE_BUDGET=0 (no duplicate of an overdue
#                            request: what the budget buys, with a tail).
#   BENCH_DIRECTIONS="..."   subset of: up down s3s3 xregion
#   BENCH_SCHEMES="..."      http and/or https (default http). https: the emulator
#                            serves HTTPS (s3emu --tls-dir: a CA and a certificate made
#                            for the run); s3c and the AWS CLI trust the CA through
#                            AWS_CA_BUNDLE, rclone through --ca-cert, curl through
#                            cacert. Its profiles are labelled https-...; aws-crt is
#                            left out (its CRT client connects to 443 only).
#   BENCH_XREGION_MS=70      extra latency of a copy from the other region
#   BENCH_COPY_MBPS=64       the emulator's server-side copy rate per request (CopyObject,
#                            UploadPartCopy), MB/s: S3's published 56-83 (bench/README.md);
#                            0 = instant (the emulator shares the source's bytes)
#   BENCH_COPY_MS=0          the emulator's extra time per server-side copy request, ms
#   S3C_BASE=PATH            the binary of tool s3c-base (no default; needed with s3c-base):
#                            s3c at its defaults from another build, for A/B in one run
#   BENCH_PORT=N             the emulator's port (default 80 when root and free:
#                            the CRT client connects to 80 and 443 only; else any,
#                            and aws-crt is left out)
#   BENCH_CACHE=DIR          generated data sets, kept between runs
#                            (default ${XDG_CACHE_HOME:-~/.cache}/s3c-bench)
#   BENCH_OUT=DIR            results directory (default bench/results)
#   BENCH_TAG=NAME           results are DIR/DATE-NAME.md, .csv, -PROFILE.png
#                            (default matrix; quick: matrix-quick)
#   BENCH_TIMEOUT=S          limit of one run (default 900 s; a timeout is a failure)
#   BENCH_KEEP=1             keep the scratch directory (logs of every run)
#   BENCH_EMU_CORE=1         the emulator's core, BENCH_CLIENT_CORE=0 every tool's
#                            (taskset; set either empty not to pin): on 2 cores the
#                            client and the server then do not take each other's CPU
#   S3C, S3EMU, AWS, RCLONE  binaries (default: build/s3c and build/s3emu of
#                            this tree, /usr/bin/aws, rclone on PATH)
#
# Needs: GNU time (Debian "time"), curl, python3, the AWS CLI v2 (Debian
# "awscli"), rclone, gnuplot (Debian "gnuplot-nox", for the plots). Loopback only.
set -euo pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(dirname "$HERE")

QUICK=${BENCH_QUICK:-0}
if [ "$QUICK" = 1 ]; then
    REPS=${BENCH_REPS:-1}
    WORKLOADS=${BENCH_WORKLOADS:-"100x8192 20x1048576 4x33554432 1x200000000"}
    TAG=${BENCH_TAG:-matrix-quick}
else
    REPS=${BENCH_REPS:-3}
    WORKLOADS=${BENCH_WORKLOADS:-"10000x8192 1000x1048576 64x33554432 4x200000000 2x1073741824"}
    TAG=${BENCH_TAG:-matrix}
fi
PROFILES=${BENCH_PROFILES:-"20:90 0:0"}
TOOLS=${BENCH_TOOLS:-"s3c aws aws-tuned aws-crt rclone-64 curl"}
DIRECTIONS=${BENCH_DIRECTIONS:-"up down s3s3 xregion"}
SCHEMES=${BENCH_SCHEMES:-http}
XREGION_MS=${BENCH_XREGION_MS:-70}
COPY_MBPS=${BENCH_COPY_MBPS:-64}
COPY_MS=${BENCH_COPY_MS:-0}
S3C_BASE=${S3C_BASE:-}
CACHE=${BENCH_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/s3c-bench}
OUT=${BENCH_OUT:-$HERE/results}
TIMEOUT=${BENCH_TIMEOUT:-900}
S3C=${S3C:-$ROOT/build/s3c}
S3EMU=${S3EMU:-$ROOT/build/s3emu}
AWS=${AWS:-/usr/bin/aws}
RCLONE=${RCLONE:-$(command -v rclone || echo /usr/bin/rclone)}
GNU_TIME=/usr/bin/time
EMU_CORE=${BENCH_EMU_CORE-1}
CLIENT_CORE=${BENCH_CLIENT_CORE-0}
EMU_PIN=() CLIENT_PIN=()
[ -z "$EMU_CORE" ] || EMU_PIN=(taskset -c "$EMU_CORE")
[ -z "$CLIENT_CORE" ] || CLIENT_PIN=(taskset -c "$CLIENT_CORE")
PY=/usr/bin/python3
[ -x "$PY" ] || PY=$(command -v python3)
BUCKET=bench             # us-east-1: the sources, uploads, same-region copies
BUCKET_EU=bench-eu       # eu-west-1: cross-region copies
PUB=bench-pub            # public-read-write twins, for raw curl (unsigned)
PUB_EU=bench-pub-eu
EU=eu-west-1
CURL_MAX=300             # curl's --parallel-max ceiling

die() { echo "bench: $*" >&2; exit 2; }
note() { echo "bench: $*" >&2; }

[ -x "$GNU_TIME" ] || die "GNU time missing: apt-get install time"
"$GNU_TIME" -f %e true 2>/dev/null || die "$GNU_TIME is not GNU time"
[ -x "$S3C" ] || die "no s3c at $S3C (run make)"
[ -x "$S3EMU" ] || die "no s3emu at $S3EMU (build it, or set S3EMU)"

port_busy() { ss -Hltn "sport = :$1" 2>/dev/null | grep -q .; }
PORT=${BENCH_PORT:-}
if [ -z "$PORT" ]; then
    if [ "$(id -u)" = 0 ] && ! port_busy 80; then PORT=80; else PORT=0; fi
fi
if [ "$PORT" != 80 ] && [ "$PORT" != 443 ] && [[ " $TOOLS " == *" aws-crt "* ]]; then
    note "the emulator is not on port 80: leaving out aws-crt (its CRT client connects to 80 and 443 only)"
    TOOLS=$(tr ' ' '\n' <<<"$TOOLS" | grep -vx aws-crt | tr '\n' ' ')
fi
for t in $TOOLS; do
    case $t in
        s3c|s3c-8mib|s3c-nohedge|curl) ;;
        s3c-base) [ -x "$S3C_BASE" ] || die "no s3c at $S3C_BASE (S3C_BASE)" ;;
        aws|aws-tuned|aws-crt) [ -x "$AWS" ] || die "no AWS CLI at $AWS" ;;
        rclone|rclone-64) [ -x "$RCLONE" ] || die "no rclone at $RCLONE" ;;
        *) die "unknown tool '$t'" ;;
    esac
done

WORK=$(mktemp -d "${TMPDIR:-/tmp}/s3c-bench.XXXXXX")
EMU_PID=
CA=""
CURL_CA=()
AWS_ENV=()
RCLONE_ENV=()
cleanup() {
    if [ -n "$EMU_PID" ]; then
        kill "$EMU_PID" 2>/dev/null || true
        wait "$EMU_PID" 2>/dev/null || true
    fi
    if [ "${BENCH_KEEP:-0}" = 1 ]; then note "scratch kept: $WORK"; else rm -rf "$WORK"; fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# ---- the emulator ------------------------------------------------------------

# emu_start SCHEME: one s3emu serving http or https (a CA made for the run in
# $WORK/tls); sets URL, CA (the CA file, "" over http) and CURL_CA (curl's flags).
emu_start() {
    local tls=()
    CA=""
    CURL_CA=()
    if [ "$1" = https ]; then
        rm -rf "$WORK/tls"
        tls=(--tls-dir "$WORK/tls")
    fi
    : >"$WORK/emu.out"
    "${EMU_PIN[@]}" "$S3EMU" --host 127.0.0.1 --port "$PORT" --xregion-ms "$XREGION_MS" --copy-mbps "$COPY_MBPS" --copy-ms "$COPY_MS" \
        "${tls[@]}" >"$WORK/emu.out" 2>"$WORK/emu.err" &
    EMU_PID=$!
    for _ in $(seq 1 200); do
        grep -q '^ready ' "$WORK/emu.out" 2>/dev/null && break
        kill -0 "$EMU_PID" 2>/dev/null || break
        sleep 0.05
    done
    URL=$(sed -n 's/^ready //p' "$WORK/emu.out")
    [ -n "$URL" ] || die "s3emu did not start: $(cat "$WORK/emu.err")"
    case $URL in http://127.0.0.1:*|https://127.0.0.1:*) ;; *) die "not loopback: $URL" ;; esac
    if [ "$1" = https ]; then
        CA=$WORK/tls/ca.pem
        CURL_CA=(--cacert "$CA")
    fi
    rclone_env
}

emu_stop() {
    if [ -n "$EMU_PID" ]; then
        kill "$EMU_PID" 2>/dev/null || true
        wait "$EMU_PID" 2>/dev/null || true
        EMU_PID=
    fi
}

HZ=$(getconf CLK_TCK)
emu_stats() { curl -sf "${CURL_CA[@]}" "$URL/_s3emu/stats"; }
emu_cpu_ticks() { awk '{ print $14 + $15 }' "/proc/$EMU_PID/stat"; }
emu_field() { # JSON FIELD -> number (top-level numeric field)
    sed -n "s/.*\"$2\":\([0-9]*\).*/\1/p" <<<"$1"
}
emu_op() { # JSON OP -> how many requests of that S3 operation
    local v
    v=$(sed -n "s/.*\"ops\":{[^}]*\"$2\":\([0-9]*\).*/\1/p" <<<"$1")
    echo "${v:-0}"
}
emu_model() { # LATENCY_MS BANDWIDTH_MBPS [TAIL_PCT TAIL_MULT]
    curl -sf "${CURL_CA[@]}" -X POST --data "latency_ms=$1&bandwidth_mbps=$2&tail_pct=${3:-0}&tail_mult=${4:-10}" \
        "$URL/_s3emu/config" >/dev/null || die "cannot set the emulator's model"
}

# ---- isolated homes: credentials and config for each tool ---------------------

for h in home-default home-tuned home-crt; do
    mkdir -p "$WORK/$h/.aws"
    printf '[default]\naws_access_key_id = s3emu-access\naws_secret_access_key = s3emu-secret\n' \
        >"$WORK/$h/.aws/credentials"
done
printf '[default]\nregion = us-east-1\n' >"$WORK/home-default/.aws/config"
cat >"$WORK/home-tuned/.aws/config" <<'CFG'
[default]
region = us-east-1
s3 =
  max_concurrent_requests = 64
  multipart_threshold = 1GB
  multipart_chunksize = 256MB
CFG
cat >"$WORK/home-crt/.aws/config" <<'CFG'
[default]
region = us-east-1
s3 =
  preferred_transfer_client = crt
CFG

# Every tool runs under env -i: nothing leaks from the caller's environment
# (AWS_CA_BUNDLE breaks rclone; AWS_PROFILE or AWS_CONFIG_FILE would change
# the AWS CLI's settings).
BASE_ENV=(PATH=/usr/bin:/bin LANG=C.UTF-8)
rclone_env() { # RCLONE_ENV: the remotes at $URL
    local r n
    RCLONE_ENV=()
    for r in EMU:us-east-1 EMUEU:$EU; do
        n=${r%%:*}
        RCLONE_ENV+=("RCLONE_CONFIG_${n}_TYPE=s3" "RCLONE_CONFIG_${n}_PROVIDER=Other"
            "RCLONE_CONFIG_${n}_ENDPOINT=$URL" "RCLONE_CONFIG_${n}_FORCE_PATH_STYLE=true"
            "RCLONE_CONFIG_${n}_ACCESS_KEY_ID=s3emu-access" "RCLONE_CONFIG_${n}_SECRET_ACCESS_KEY=s3emu-secret"
            "RCLONE_CONFIG_${n}_REGION=${r#*:}")
    done
}
# AWS_ENV: the CA for s3c and the AWS CLI over https (rclone takes --ca-cert:
# AWS_CA_BUNDLE breaks it).
aws_env() { AWS_ENV=(); [ -z "$CA" ] || AWS_ENV=(AWS_CA_BUNDLE="$CA"); }

# tool_cmd TOOL DIRECTION SRC_DIR DST_DIR -> sets CMD (argv, starting with env -i)
tool_cmd() {
    local tool=$1 dir=$2 src=$3 dst=$4 from to extra=()
    local p="s3://$BUCKET/p/" q="s3://$BUCKET/q/" qeu="s3://$BUCKET_EU/q/"
    case $tool in
        s3c*|aws*)
            case $dir in
                up) from=$src; to=$p ;;
                down) from=$p; to=$dst ;;
                s3s3) from=$p; to=$q ;;
                xregion) from=$p; to=$qeu ;;
            esac
            # The AWS CLI reads the source's tags for a multipart copy (GetObjectTagging,
            # which s3emu does not have): copy the metadata only, as s3c does.
            case $tool:$dir in aws*:s3s3|aws*:xregion) extra=(--copy-props metadata-directive) ;; esac ;;
        rclone*)
            case $dir in
                up) from=$src; to="EMU:$BUCKET/p" ;;
                down) from="EMU:$BUCKET/p"; to=$dst ;;
                s3s3) from="EMU:$BUCKET/p"; to="EMU:$BUCKET/q" ;;
                xregion) from="EMU:$BUCKET/p"; to="EMUEU:$BUCKET_EU/q"; extra=(--server-side-across-configs) ;;
            esac
            [ "$tool" = rclone-64 ] && extra+=(--transfers 64 --checkers 64)
            [ -z "$CA" ] || extra+=(--ca-cert "$CA") ;;
    esac
    aws_env
    case $tool in
        s3c) CMD=(env -i "${BASE_ENV[@]}" "${AWS_ENV[@]}" HOME="$WORK/home-default"
                  "$S3C" --endpoint-url "$URL" cp --recursive "$from" "$to") ;;
        s3c-8mib) CMD=(env -i "${BASE_ENV[@]}" "${AWS_ENV[@]}" HOME="$WORK/home-default"
                  "$S3C" --endpoint-url "$URL" cp --recursive --part-size 8MiB "$from" "$to") ;;
        s3c-base) CMD=(env -i "${BASE_ENV[@]}" "${AWS_ENV[@]}" HOME="$WORK/home-default"
                  "$S3C_BASE" --endpoint-url "$URL" cp --recursive "$from" "$to") ;;
        s3c-nohedge) CMD=(env -i "${BASE_ENV[@]}" "${AWS_ENV[@]}" HOME="$WORK/home-default" S3C_HEDGE_BUDGET=0
                  "$S3C" --endpoint-url "$URL" cp --recursive "$from" "$to") ;;
        aws) CMD=(env -i "${BASE_ENV[@]}" "${AWS_ENV[@]}" HOME="$WORK/home-default"
                  "$AWS" --endpoint-url "$URL" s3 cp --recursive --no-progress "${extra[@]}" "$from" "$to") ;;
        aws-tuned) CMD=(env -i "${BASE_ENV[@]}" "${AWS_ENV[@]}" HOME="$WORK/home-tuned"
                  "$AWS" --endpoint-url "$URL" s3 cp --recursive --no-progress "${extra[@]}" "$from" "$to") ;;
        aws-crt) CMD=(env -i "${BASE_ENV[@]}" "${AWS_ENV[@]}" HOME="$WORK/home-crt"
                  "$AWS" --endpoint-url "$URL" s3 cp --recursive --no-progress "${extra[@]}" "$from" "$to") ;;
        rclone*) CMD=(env -i "${BASE_ENV[@]}" HOME="$WORK/home-default" "${RCLONE_ENV[@]}"
                  "$RCLONE" copy "${extra[@]}" "$from" "$to") ;;
    esac
}

# Whether TOOL has a row for DIRECTION.
tool_runs() {
    case $1:$2 in
        aws-crt:s3s3|aws-crt:xregion) return 1 ;;  # the CRT client copies with the classic one
    esac
    return 0
}

# The same commands with this machine's paths replaced, for the report.
tool_cmd_text() {
    local tool=$1 dir=$2
    tool_cmd "$tool" "$dir" SRC_DIR DST_DIR
    local a out="" skip=1
    for a in "${CMD[@]}"; do
        if [ $skip = 1 ]; then
            case $a in env|-i|*=*) continue ;; esac
            skip=0
            a=$(basename "$a")
        fi
        a=${a//$URL/\$URL}
        out+="$a "
    done
    echo "${out% }"
}

s3c_admin() { # s3c as the harness's own helper (untimed)
    aws_env
    env -i "${BASE_ENV[@]}" "${AWS_ENV[@]}" HOME="$WORK/home-default" "$S3C" --endpoint-url "$URL" "$@"
}

signed_curl() { # REGION CURL-ARGS...: a request signed by curl itself (no payload hash)
    local region=$1
    shift
    curl -sS --fail "${CURL_CA[@]}" --aws-sigv4 "aws:amz:$region:s3" --user s3emu-access:s3emu-secret \
        -H "x-amz-content-sha256: UNSIGNED-PAYLOAD" "$@"
}

make_bucket() { # NAME REGION ACL
    local body=()
    [ "$2" = us-east-1 ] || body=(--data "<CreateBucketConfiguration><LocationConstraint>$2</LocationConstraint></CreateBucketConfiguration>")
    signed_curl "$2" -X PUT -H "x-amz-acl: $3" "${body[@]}" "$URL/$1" -o /dev/null ||
        die "cannot create bucket $1"
}

store_reset() { # an empty store with the four buckets
    curl -sf "${CURL_CA[@]}" -X POST "$URL/_s3emu/reset" >/dev/null
    make_bucket "$BUCKET" us-east-1 private
    make_bucket "$BUCKET_EU" "$EU" private
    make_bucket "$PUB" us-east-1 public-read-write
    make_bucket "$PUB_EU" "$EU" public-read-write
}

# ---- data sets ----------------------------------------------------------------

# dataset COUNT BYTES -> sets DATA (the tree), MANIFEST (sha256sum -c file of a
# sample) and LIST (relative paths, sorted); generated once into the cache.
# Files are d%03d/f%06d, 1000 a directory, from /dev/urandom.
dataset() {
    local count=$1 bytes=$2 d="$CACHE/${1}x${2}"
    DATA=$d/tree
    MANIFEST=$d/sample.sha256
    LIST=$d/files
    if [ -f "$d/complete" ] && [ -f "$LIST" ]; then return 0; fi
    if [ ! -f "$d/complete" ]; then
        note "generating $count x $bytes bytes into the cache"
        rm -rf "$d"
        mkdir -p "$DATA"
        "$PY" - "$DATA" "$count" "$bytes" <<'PY'
import os, sys
root, count, size = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
chunk = 1 << 20
for i in range(count):
    d = os.path.join(root, "d%03d" % (i // 1000))
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, "f%06d" % i), "wb") as f:
        left = size
        while left:
            n = min(left, chunk)
            f.write(os.urandom(n))
            left -= n
PY
        # sample: every file up to 8, else 8 spread evenly (first and last included)
        (cd "$DATA" && find . -type f | LC_ALL=C sort | awk -v n="$count" '
            n <= 8 || (NR - 1) % int((n - 1) / 7) == 0 || NR == n' | head -n 9 |
            xargs sha256sum) >"$MANIFEST"
        touch "$d/complete"
    fi
    (cd "$DATA" && find . -type f | sed 's|^\./||' | LC_ALL=C sort) >"$LIST"
}

# parts_dir PART_BYTES -> the data set cut in parts of PART_BYTES (cached), for
# raw curl's uploads: one PUT a part, as s3c sends one UploadPart.
parts_dir() {
    local p=$1 d="$CACHE/${COUNT}x${BYTES}/parts-$1" f
    if [ ! -f "$d/complete" ]; then
        rm -rf "$d"
        mkdir -p "$d"
        while read -r f; do
            mkdir -p "$d/$(dirname "$f")"
            split -b "$p" -d -a 5 "$DATA/$f" "$d/$f.part"
        done <"$LIST"
        touch "$d/complete"
    fi
    echo "$d"
}

tree_count_bytes() { # DIR -> "files bytes" (regular files only)
    find "$1" -type f -printf '%s\n' | awk '{ n++; b += $1 } END { printf "%d %.0f\n", n, b }'
}

# verify_s3 URL COUNT TOTAL -> "" if the prefix holds COUNT objects of TOTAL bytes
# (COUNT empty: any count)
verify_s3() {
    local out n b
    out=$(s3c_admin ls --recursive --summarize "$1" 2>&1) || { echo "listing failed"; return; }
    n=$(sed -n 's/^ *Total Objects: *//p' <<<"$out")
    b=$(sed -n 's/^ *Total Size: *//p' <<<"$out")
    if { [ -n "$2" ] && [ "$n" != "$2" ]; } || [ "$b" != "$3" ]; then
        echo "$1 holds $n objects, $b bytes; want ${2:-any number}, $3"
    fi
}

# verify_down DIR COUNT TOTAL [RAW] -> "" if DIR holds exactly the data set
# (RAW: raw curl's files, parts included: bytes only)
verify_down() {
    local dir=$1 want_n=$2 want_b=$3 got
    got=$(tree_count_bytes "$dir")
    if [ -n "${4:-}" ]; then
        [ "${got#* }" = "$want_b" ] || echo "local files hold ${got#* } bytes; want $want_b"
        return
    fi
    if [ "$got" != "$want_n $want_b" ]; then
        echo "local tree has ${got% *} files, ${got#* } bytes; want $want_n, $want_b"
        return
    fi
    if ! (cd "$dir" && sha256sum --quiet -c "$MANIFEST" >/dev/null 2>&1); then
        echo "sha256 of a sample differs"
    fi
}

# ---- raw curl: N parallel unsigned curl requests -------------------------------------

# limit_cmd DIRECTION DST_DIR N K: the config of curl's run (in $WORK/limit.cfg)
# and CMD. Uploads PUT whole files or K parts of each (as s3c cut them) into the
# public bucket; downloads GET whole objects or K ranges of each into their own
# files; copies are one CopyObject each, signed by curl (an unsigned copy is
# refused, as by S3; a copy has no body to hash).
limit_cmd() {
    local dir=$1 dst=$2 n=$3 k=$4 cfg="$WORK/limit.cfg" p pd
    # Per-transfer options hold for one group of the config only: every group repeats them.
    local pre='silent\nshow-error\nfail\ncreate-dirs\n'
    [ -z "$CA" ] || pre+="cacert = \"$CA\"\n"
    case $dir in
        up)
            if [ "$k" -gt 1 ]; then
                p=$(( (BYTES + k - 1) / k ))
                p=$(( (p + 1048575) / 1048576 * 1048576 ))
                pd=$(parts_dir "$p")
                (cd "$pd" && find . -type f -name '*.part*' | sed 's|^\./||' | LC_ALL=C sort) |
                    awk -v u="$URL/$PUB/p/" -v d="$pd/" -v pre="$pre" \
                        'NR > 1 { print "next" } { printf "%surl = \"%s%s\"\nupload-file = \"%s%s\"\noutput = \"/dev/null\"\n", pre, u, $0, d, $0 }' >"$cfg"
            else
                awk -v u="$URL/$PUB/p/" -v d="$DATA/" -v pre="$pre" \
                    'NR > 1 { print "next" } { printf "%surl = \"%s%s\"\nupload-file = \"%s%s\"\noutput = \"/dev/null\"\n", pre, u, $0, d, $0 }' \
                    "$LIST" >"$cfg"
            fi ;;
        down)
            p=$(( (BYTES + k - 1) / k ))
            awk -v u="$URL/$PUB/p/" -v d="$dst/" -v k="$k" -v p="$p" -v size="$BYTES" -v pre="$pre" '
                { for (i = 0; i < k; i++) {
                    if (NR > 1 || i > 0) print "next"
                    printf "%surl = \"%s%s\"\n", pre, u, $0
                    if (k > 1) {
                        a = i * p; z = a + p - 1; if (z > size - 1) z = size - 1
                        printf "range = \"%.0f-%.0f\"\noutput = \"%s%s.part%05d\"\n", a, z, d, $0, i
                    } else printf "output = \"%s%s\"\n", d, $0
                } }' "$LIST" >"$cfg" ;;
        s3s3|xregion)
            local to=$PUB region=us-east-1
            [ "$dir" = xregion ] && to=$PUB_EU && region=$EU
            pre+="aws-sigv4 = \"aws:amz:$region:s3\"\nuser = \"s3emu-access:s3emu-secret\"\n"
            pre+='header = "x-amz-content-sha256: UNSIGNED-PAYLOAD"\nrequest = "PUT"\n'
            awk -v u="$URL/$to/q/" -v s="/$PUB/p/" -v pre="$pre" \
                'NR > 1 { print "next" } { printf "%surl = \"%s%s\"\nheader = \"x-amz-copy-source: %s%s\"\noutput = \"/dev/null\"\n", pre, u, $0, s, $0 }' \
                "$LIST" >"$cfg" ;;
    esac
    CMD=(env -i "${BASE_ENV[@]}" curl --parallel --parallel-immediate --parallel-max "$n" -K "$cfg")
}

# ---- one timed run --------------------------------------------------------------

CSV=$WORK/results.csv
echo "profile,workload,files,file_bytes,direction,tool,rep,status,wall_s,user_s,sys_s,cpu_s,peak_rss_kb,emu_requests,emu_connections,emu_cpu_s,load1,parallel,parts,note" >"$CSV"

S3C_CONNS=64   # s3c's connections in the cell's last run: curl's N
S3C_PARTS=1    # s3c's GETs or UploadParts an object in that run: curl's K

# run_cell DIRECTION TOOL REP
run_cell() {
    local dir=$1 tool=$2 rep=$3
    local total=$((COUNT * BYTES)) dst="$WORK/dl" log="$WORK/logs/$PLABEL-$WL-$dir-$tool-$rep.log"
    local tf="$WORK/time.out" rc status="ok" why="" s0 s1 c0 c1 load par="" parts=""
    mkdir -p "$WORK/logs"
    case $dir in
        up) store_reset ;;
        down) rm -rf "$dst"; mkdir -p "$dst" ;;
    esac
    if [ "$tool" = curl ]; then
        par=$S3C_CONNS
        [ "$par" -ge 1 ] || par=1
        [ "$par" -le $CURL_MAX ] || par=$CURL_MAX
        parts=1
        case $dir in up|down) parts=$S3C_PARTS ;; esac
        limit_cmd "$dir" "$dst" "$par" "$parts"
    else
        tool_cmd "$tool" "$dir" "$DATA" "$dst"
    fi
    sync
    load=$(cut -d' ' -f1 /proc/loadavg)
    s0=$(emu_stats); c0=$(emu_cpu_ticks)
    rm -f "$tf"
    set +e
    timeout -k 10 "$TIMEOUT" "$GNU_TIME" -f '%e %U %S %M' -o "$tf" "${CLIENT_PIN[@]}" "${CMD[@]}" >"$log" 2>&1
    rc=$?
    set -e
    s1=$(emu_stats); c1=$(emu_cpu_ticks)
    local wall="" user="" sys="" rss=""
    if [ -s "$tf" ]; then read -r wall user sys rss < <(tail -n 1 "$tf"); fi
    if [ $rc = 124 ] || [ $rc = 137 ]; then
        status=timeout; why="no result in ${TIMEOUT} s"
    elif [ $rc != 0 ]; then
        status=fail
        why="exit $rc: $(grep -v '^\(upload\|download\|copy\|Completed\)' "$log" | grep -m1 -i 'error\|fail\|exception\|curl' |
            cut -c1-160 | tr ',"\n' ';  ')"
    else
        case $tool:$dir in
            curl:up) why=$(verify_s3 "s3://$PUB/p/" "" "$total") ;;
            curl:down) why=$(verify_down "$dst" "$COUNT" "$total" raw) ;;
            curl:s3s3) why=$(verify_s3 "s3://$PUB/q/" "$COUNT" "$total") ;;
            curl:xregion) why=$(verify_s3 "s3://$PUB_EU/q/" "$COUNT" "$total") ;;
            *:up) why=$(verify_s3 "s3://$BUCKET/p/" "$COUNT" "$total") ;;
            *:down) why=$(verify_down "$dst" "$COUNT" "$total") ;;
            *:s3s3) why=$(verify_s3 "s3://$BUCKET/q/" "$COUNT" "$total") ;;
            *:xregion) why=$(verify_s3 "s3://$BUCKET_EU/q/" "$COUNT" "$total") ;;
        esac
        [ -z "$why" ] || status=wrong
    fi
    local req conns emu_cpu cpu
    req=$(( $(emu_field "$s1" requests) - $(emu_field "$s0" requests) ))
    conns=$(( $(emu_field "$s1" connections) - $(emu_field "$s0" connections) ))
    emu_cpu=$(awk -v a="$c0" -v b="$c1" -v hz="$HZ" 'BEGIN { printf "%.2f", (b - a) / hz }')
    cpu=$(awk -v u="${user:-0}" -v s="${sys:-0}" 'BEGIN { printf "%.2f", u + s }')
    if [ "$tool" = s3c ] && [ "$status" = ok ]; then
        # what curl's run of this cell copies: s3c's connections and cut
        local n=0
        S3C_CONNS=$conns
        case $dir in
            up) n=$(( $(emu_op "$s1" UploadPart) - $(emu_op "$s0" UploadPart) )) ;;
            down) n=$(( $(emu_op "$s1" GetObject) - $(emu_op "$s0" GetObject) )) ;;
        esac
        S3C_PARTS=$(( (n + COUNT / 2) / COUNT ))
        [ "$S3C_PARTS" -ge 1 ] || S3C_PARTS=1
        parts=$S3C_PARTS
    fi
    echo "$PLABEL,$WL,$COUNT,$BYTES,$dir,$tool,$rep,$status,$wall,$user,$sys,$cpu,$rss,$req,$conns,$emu_cpu,$load,$par,$parts,${why//,/;}" >>"$CSV"
    note "$(printf '%-9s %-14s %-7s %-9s rep %s: %-7s wall %6ss cpu %6ss rss %7s KB  req %6s conns %4s emu-cpu %5ss %s' \
        "$PLABEL" "$WL" "$dir" "$tool" "$rep" "$status" "$wall" "$cpu" "$rss" "$req" "$conns" "$emu_cpu" "$why")"
    case $dir in
        down) retire "$dst" ;;
        s3s3) s3c_admin rm --recursive --quiet "s3://$BUCKET/q/" >/dev/null 2>&1 || true
              s3c_admin rm --recursive --quiet "s3://$PUB/q/" >/dev/null 2>&1 || true ;;
        xregion) s3c_admin rm --recursive --quiet "s3://$BUCKET_EU/q/" >/dev/null 2>&1 || true
                 s3c_admin rm --recursive --quiet "s3://$PUB_EU/q/" >/dev/null 2>&1 || true ;;
    esac
}

# retire DIR: a finished download directory goes. One of many files is only
# renamed aside here, and deleted with the others after the workload: on ext4
# without a journal (these machines' disks) each file created within a minute
# of thousands being deleted costs ~250 us of kernel time (the inode allocator
# skips recently deleted inodes: recently_deleted()), so deleting run N's tree
# just before run N+1 would time that rm, not the tool. After a workload's
# trees go, the run waits a minute for the same reason (the next profile's
# downloads would pay for them: twice the CPU of 10,000 x 8 KB down).
retire() {
    if [ "$COUNT" -ge 1000 ]; then
        mkdir -p "$WORK/old"
        mv "$1" "$WORK/old/$(date +%s%N)"
    else
        rm -rf "$1"
    fi
}

# seed: the sources of downloads and copies, untimed and checked: the data set
# under s3://bench/p/ (uploaded by s3c; by the tuned AWS CLI if s3c cannot)
# and under the public bucket (unsigned PUTs, readable by all) for curl.
seed() {
    local total=$((COUNT * BYTES))
    store_reset
    tool_cmd s3c up "$DATA" ""
    if ! "${CMD[@]}" >"$WORK/seed.log" 2>&1 || [ -n "$(verify_s3 "s3://$BUCKET/p/" "$COUNT" "$total")" ]; then
        note "seeding with s3c failed; seeding with the AWS CLI"
        store_reset
        tool_cmd aws-tuned up "$DATA" ""
        "${CMD[@]}" >"$WORK/seed.log" 2>&1 || die "cannot seed $WL: $(tail -n 3 "$WORK/seed.log")"
    fi
    if [[ " $TOOLS " == *" curl "* ]]; then
        # (per-transfer options hold for one group of the config: the CA in each)
        awk -v u="$URL/$PUB/p/" -v d="$DATA/" -v ca="$CA" \
            'NR > 1 { print "next" } { if (ca != "") printf "cacert = \"%s\"\n", ca
              printf "silent\nshow-error\nfail\nurl = \"%s%s\"\nupload-file = \"%s%s\"\noutput = \"/dev/null\"\nheader = \"x-amz-acl: public-read\"\n", u, $0, d, $0 }' \
            "$LIST" >"$WORK/seed.cfg"
        curl --parallel --parallel-max 64 -K "$WORK/seed.cfg" >"$WORK/seed.log" 2>&1 ||
            die "cannot seed the public bucket: $(tail -n 3 "$WORK/seed.log")"
        [ -z "$(verify_s3 "s3://$PUB/p/" "$COUNT" "$total")" ] || die "public bucket seeded wrong"
    fi
}

human() { # bytes -> "8 KiB", "1 GiB", "200 MB"
    awk -v b="$1" 'BEGIN { split("B KiB MiB GiB TiB", u, " "); split("B KB MB GB TB", d, " ");
        x = b; i = 1; while (x >= 1024 && x % 1024 == 0 && i < 5) { x /= 1024; i++ }
        if (i > 1 || b < 1000) { printf "%d %s", x, u[i]; exit }
        x = b; i = 1; while (x >= 1000 && x % 1000 == 0 && i < 5) { x /= 1000; i++ }
        printf "%d %s", x, d[i] }'
}

# ---- the run --------------------------------------------------------------------

START_UTC=$(date -u '+%Y-%m-%d %H:%M:%S')
DAY=$(date -u +%F)
LOAD_START=$(cut -d' ' -f1-3 /proc/loadavg)
note "load average $LOAD_START; $REPS repetition(s); schemes: $SCHEMES; tools: $TOOLS"

for w in $WORKLOADS; do
    dataset "${w%x*}" "${w#*x}"
done

ALL_TOOLS=$TOOLS
for scheme in $SCHEMES; do
  emu_start "$scheme"
  note "emulator at $URL"
  TOOLS=$ALL_TOOLS
  if [ "$scheme" = https ] && [ "$PORT" != 443 ]; then
      TOOLS=$(tr ' ' '\n' <<<"$ALL_TOOLS" | grep -vx aws-crt | tr '\n' ' ')
  fi
  for prof in $PROFILES; do
    IFS=: read -r LAT BW TAIL_PCT TAIL_MULT <<<"$prof"
    PLABEL="${LAT}ms"
    if [ "$BW" != 0 ]; then PLABEL+="-${BW}MBps"; else PLABEL+="-uncapped"; fi
    if [ -n "$TAIL_PCT" ] && [ "$TAIL_PCT" != 0 ]; then PLABEL+="-tail${TAIL_PCT}pct-x${TAIL_MULT:-10}"; fi
    [ "$scheme" = http ] || PLABEL="$scheme-$PLABEL"
    emu_model "$LAT" "$BW" "${TAIL_PCT:-0}" "${TAIL_MULT:-10}"
    for w in $WORKLOADS; do
        COUNT=${w%x*}; BYTES=${w#*x}
        WL="${COUNT} x $(human "$BYTES")"
        WL=${WL// /_}
        dataset "$COUNT" "$BYTES"
        seeded=0
        for dir in $DIRECTIONS; do
            if [ "$dir" != up ] && [ $seeded = 0 ]; then seed; seeded=1; fi
            [ "$dir" != up ] || seeded=0
            S3C_CONNS=64; S3C_PARTS=1
            # Repetition-major, so a burst of load on the machine hits every tool;
            # and each repetition starts one tool later, so what the first run
            # after a change of workload meets (on a VM, memory its host took
            # back: a download's first touches of tmpfs pages cost 2-3 times
            # more) does not always fall on the same tool. Repetition 1 keeps
            # the given order: raw curl copies s3c's connections and cut.
            tl=($TOOLS)
            for rep in $(seq 1 "$REPS"); do
                for ((k = 0; k < ${#tl[@]}; k++)); do
                    tool=${tl[$(( (k + rep - 1) % ${#tl[@]} ))]}
                    tool_runs "$tool" "$dir" || continue
                    run_cell "$dir" "$tool" "$rep"
                done
            done
        done
        if [ -d "$WORK/old" ]; then
            # The retired downloads (see retire) go, and the inodes they freed
            # cool down before the next profile's downloads create files.
            rm -rf "$WORK/old"
            sleep 60
        fi
    done
  done
  emu_stop
done
TOOLS=$ALL_TOOLS

LOAD_END=$(cut -d' ' -f1-3 /proc/loadavg)
END_UTC=$(date -u '+%Y-%m-%d %H:%M:%S')

# ---- the report -------------------------------------------------------------------

mkdir -p "$OUT"
MD="$OUT/$DAY-$TAG.md"
cp "$CSV" "$OUT/$DAY-$TAG.csv"
PLOTS=""
if command -v gnuplot >/dev/null; then
    PLOTS=$("$PY" "$HERE/report.py" --plot "$OUT/$DAY-$TAG" "$CSV" "$TOOLS") || note "plotting failed"
else
    note "no gnuplot (apt-get install gnuplot-nox): no plots"
fi

{
    echo "# s3c benchmark: the users' matrix on s3emu"
    echo
    echo "Produced by \`bench/run.sh\`$( [ "$QUICK" = 1 ] && echo ' (BENCH_QUICK=1)'), $START_UTC to $END_UTC UTC."
    echo "Raw numbers: [\`$DAY-$TAG.csv\`]($DAY-$TAG.csv)."
    echo
    for p in $PLOTS; do echo "![$p]($p)"; echo; done
    echo "## Machine"
    echo
    echo "- CPU: $(nproc) cores ($(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n 1)), memory $(awk '/MemTotal/ { printf "%.0f GiB", $2 / 1048576 }' /proc/meminfo), Linux $(uname -r), $(. /etc/os-release && echo "$PRETTY_NAME")"
    echo "- Cores: the emulator on ${EMU_CORE:-any core}, each tool on ${CLIENT_CORE:-any core} (taskset; BENCH_EMU_CORE, BENCH_CLIENT_CORE)."
    echo "- Load average (1, 5, 15 min) at start: $LOAD_START; at end: $LOAD_END. The machine is shared:"
    echo "  other builds and tests ran during the benchmark; the \`load1\` column of the CSV has it for every run."
    echo "- s3c: $("$S3C" version 2>/dev/null | head -n 1), commit $(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo unknown)$(git -C "$ROOT" diff --quiet HEAD -- src 2>/dev/null || echo ' (+ local changes)')"
    echo "- s3emu: same tree, \`--xregion-ms $XREGION_MS --copy-mbps $COPY_MBPS --copy-ms $COPY_MS\`, profiles (first-byte ms : MB/s per connection, 0 = off): $PROFILES"
    echo "- AWS CLI: $("$AWS" --version 2>&1 | head -n 1)"
    echo "- rclone: $("$RCLONE" version 2>/dev/null | head -n 1)"
    echo "- curl: $(curl --version | head -n 1 | cut -d' ' -f1-2)"
    echo
    "$PY" "$HERE/report.py" "$CSV" "$TOOLS"
    echo
    echo "## Method"
    echo
    echo "- One emulator, \`s3emu --host 127.0.0.1 --port $PORT --xregion-ms $XREGION_MS --copy-mbps $COPY_MBPS --copy-ms $COPY_MS\` (in memory, SigV4 on), its"
    echo "  model set per profile (\`POST /_s3emu/config latency_ms=… bandwidth_mbps=…\`; the bandwidth cap is per"
    echo "  connection, each way, in 10^6 bytes/s). \`\$URL\` is its loopback address. Buckets: \`$BUCKET\` (us-east-1),"
    echo "  \`$BUCKET_EU\` (LocationConstraint $EU; a copy into it from \`$BUCKET\` pays ${XREGION_MS} ms more a"
    echo "  CopyObject or UploadPartCopy), and their public-read-write twins \`$PUB\`, \`$PUB_EU\` for curl."
    echo "- Schemes: $SCHEMES. Over https the emulator serves TLS itself (\`--tls-dir\`: an ECDSA P-256 CA and a server"
    echo "  certificate made for the run; TLS 1.3); s3c and the AWS CLI trust the CA with \`AWS_CA_BUNDLE\`, rclone with"
    echo "  \`--ca-cert\`, curl with \`cacert\`. Profiles labelled \`https-…\` are those runs; the CRT client is left out"
    echo "  there (it connects to port 443 only). CPU-s/GB: the tool's user+sys CPU over the GB (10^9 bytes) it moved."
    echo "- Directions: up (local tree -> \`s3://$BUCKET/p/\`), down (\`s3://$BUCKET/p/\` -> an empty directory),"
    echo "  s3s3 (\`s3://$BUCKET/p/\` -> \`s3://$BUCKET/q/\`), xregion (\`s3://$BUCKET/p/\` -> \`s3://$BUCKET_EU/q/\`)."
    echo "  Sources of down and copies are uploaded by s3c, untimed, and checked."
    echo "- Data: files of random bytes in a tree \`d000/f000000 …\` (1,000 a directory), generated once."
    echo "- Checks: uploads and copies by listing (object count, total bytes); downloads by file count, bytes and the"
    echo "  sha256 of up to 9 files spread over the tree. \`sync\` runs before every timed run. A failed, wrong or"
    echo "  timed-out run (limit ${TIMEOUT} s) is reported as such, never as a time."
    echo "- Raw curl (\`curl\`, a reference, not a ceiling): \`curl --parallel --parallel-immediate --parallel-max N -K FILE\` with N = the"
    echo "  connections s3c opened in the same cell (at most $CURL_MAX), moving the same bytes in as many requests as"
    echo "  s3c's parts or ranges: unsigned PUTs of whole files or of the parts s3c cut (no multipart upload around"
    echo "  them), unsigned GETs of whole objects or of ranges into files of their own; no signature, no hash."
    echo "  Copies: one CopyObject an object, signed by curl with UNSIGNED-PAYLOAD (S3 refuses unsigned copies)."
    echo "- $REPS repetition(s) of each cell, repetition-major; wall: min / median; ratio: the tool's median over s3c's"
    echo "  (above 1: s3c is faster); CPU: median user+sys; RSS: the largest peak."
    echo "- Every tool runs under \`env -i\` with its own HOME, keys in \`~/.aws/credentials\`, \`region = us-east-1\`."
    echo "  The tuned AWS CLI's config adds \`max_concurrent_requests = 64\`, \`multipart_threshold = 1GB\`,"
    echo "  \`multipart_chunksize = 256MB\`; the CRT one \`preferred_transfer_client = crt\` (it copies S3 to S3 with"
    echo "  the classic client: no copy rows). The AWS CLI copies with \`--copy-props metadata-directive\` (by default"
    echo "  it reads the source's tags, GetObjectTagging, which s3emu does not have); across regions it finds the"
    echo "  bucket's region from the redirect (\`--source-region\` would drop \`--endpoint-url\` for the source)."
    echo "  rclone's remotes \`EMU\` (us-east-1) and \`EMUEU\` ($EU) are set by environment; across regions it copies"
    echo "  server-side with \`--server-side-across-configs\`."
    echo
    echo "Commands (SRC_DIR: the data set; DST_DIR: an empty directory):"
    echo
    echo '```'
    for tool in $TOOLS; do
        [ "$tool" = curl ] && continue
        for dir in $DIRECTIONS; do
            tool_runs "$tool" "$dir" || continue
            printf '%-9s %-7s %s\n' "$tool" "$dir" "$(tool_cmd_text "$tool" "$dir")"
        done
    done
    echo '```'
} >"$MD"

note "wrote $MD and $OUT/$DAY-$TAG.csv"
cat "$MD"
