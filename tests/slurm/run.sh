#!/usr/bin/env bash
# tests/slurm/run.sh — a real batch system runs a sharded job (issue 16).
#
# Starts its own s3emu and a one-node Slurm cluster on loopback
# (scripts/slurm-start.sh), then has Slurm run examples/slurm/sync-array.sh as
# a 4-task job array, three times: a tree of files up into an empty prefix,
# the same again (nothing to do), then with files changed and deleted and
# --delete. Each time s3emu's counters must show every object done exactly
# once by the union of the tasks (PutObject count == objects to copy, each key
# present once), the tasks' result lines must name every object once, and
# the tasks' --stat --json lines, added up by examples/shard-stat.jq, must
# say the same. Also checks examples/kubernetes/indexed-job.yaml (see
# k8s_check below).
#
# Needs root and Debian's slurmctld, slurmd, slurm-client, munge (scripts/deps.sh).
# Bounded: each job array must finish within SLURM_JOB_TIMEOUT s (default 60).
# Closes with "slurm: N passed, N failed"; exit 0 only when nothing failed.
set -uo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
cd "$ROOT" || exit 2
JOB_TIMEOUT=${SLURM_JOB_TIMEOUT:-60}
S3C_BIN=${S3C:-$ROOT/build/s3c}
PASS=0
FAIL=0
ok() { echo "ok $*"; PASS=$((PASS + 1)); }
bad() { echo "FAIL $*"; FAIL=$((FAIL + 1)); }
check() { local what=$1; shift; if "$@"; then ok "$what"; else bad "$what"; fi; }
finish() { echo "slurm: $PASS passed, $FAIL failed"; [ "$FAIL" -eq 0 ]; exit $?; }

[ -x "$S3C_BIN" ] && [ -x build/s3emu ] || { echo "slurm: build first (make)" >&2; bad build; finish; }
WORK=$(mktemp -d "${TMPDIR:-/tmp}/s3c-slurm.XXXXXX")
chmod 755 "$WORK"
EMU_PID=""
cleanup() {
    scripts/server-stop.sh "$WORK/slurm" >/dev/null 2>&1
    [ -n "$EMU_PID" ] && kill "$EMU_PID" 2>/dev/null && wait "$EMU_PID" 2>/dev/null
    [ "${S3C_KEEP:-0}" = 1 ] || rm -rf "$WORK"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# ---- the Kubernetes example: structure (python3-yaml), and kubectl's client-side dry run
k8s_check() {
    python3 - examples/kubernetes/indexed-job.yaml <<'PY'
import sys, yaml
docs = [d for d in yaml.safe_load_all(open(sys.argv[1])) if d]
assert len(docs) == 1, "one document"
j = docs[0]
assert j["apiVersion"] == "batch/v1" and j["kind"] == "Job", "a batch/v1 Job"
s = j["spec"]
assert s["completionMode"] == "Indexed", "an Indexed Job"
n = s["completions"]
c = s["template"]["spec"]["containers"][0]
env = {e["name"]: e.get("value") for e in c.get("env", [])}
assert env.get("S3C_SHARD_COUNT") == str(n), "S3C_SHARD_COUNT == completions"
cmd = c["command"] + c.get("args", [])
assert cmd[0] == "s3c" and "--shard" in cmd and cmd[cmd.index("--shard") + 1] == "auto", "s3c ... --shard auto"
assert s["template"]["spec"]["restartPolicy"] in ("Never", "OnFailure")
PY
}
check "kubernetes: indexed-job.yaml is an Indexed Job running s3c --shard auto with S3C_SHARD_COUNT = completions" k8s_check
if command -v kubectl >/dev/null; then
    # kubectl's client-side dry run needs API discovery: a stub answers it
    # (batch/v1 jobs only); the manifest is then parsed, mapped and printed by kubectl.
    python3 "$HERE/kube_discovery.py" > "$WORK/kube.port" 2> "$WORK/kube.err" &
    KUBE_PID=$!
    for _ in $(seq 50); do [ -s "$WORK/kube.port" ] && break; sleep 0.1; done
    if timeout 60 kubectl --server "http://127.0.0.1:$(cat "$WORK/kube.port")" apply --dry-run=client \
        --validate=false -f examples/kubernetes/indexed-job.yaml -o json > "$WORK/kube.json" 2> "$WORK/kube.err2" &&
        [ "$(jq -r '.spec.completionMode + " " + (.spec.completions | tostring)' "$WORK/kube.json")" = "Indexed 16" ]; then
        ok "kubernetes: kubectl apply --dry-run=client accepts indexed-job.yaml"
    else
        bad "kubernetes: kubectl apply --dry-run=client: $(tail -n 3 "$WORK/kube.err2")"
    fi
    kill "$KUBE_PID" 2>/dev/null; wait "$KUBE_PID" 2>/dev/null
else
    echo "note: no kubectl: the manifest was checked with python3-yaml only"
fi

# ---- s3emu and Slurm
build/s3emu --port 0 --bucket slurm > "$WORK/emu.out" 2> "$WORK/emu.err" &
EMU_PID=$!
for _ in $(seq 50); do grep -q '^ready' "$WORK/emu.out" && break; sleep 0.1; done
EMU=$(sed -n 's/^ready //p' "$WORK/emu.out")
[ -n "$EMU" ] || { bad "s3emu did not start"; finish; }
if ! timeout 120 scripts/slurm-start.sh "$WORK/slurm" > "$WORK/slurm-start.log" 2>&1; then
    cat "$WORK/slurm-start.log"
    bad "slurm: the cluster did not start"
    finish
fi
ok "slurm: $(tail -n 1 "$WORK/slurm-start.log")"
# shellcheck disable=SC1091
. "$WORK/slurm/slurm.env"
export AWS_ACCESS_KEY_ID=s3emu-access AWS_SECRET_ACCESS_KEY=s3emu-secret AWS_REGION=us-east-1
export AWS_ENDPOINT_URL=$EMU S3C=$S3C_BIN HOME=$WORK
unset AWS_PROFILE AWS_CONFIG_FILE AWS_SHARED_CREDENTIALS_FILE

N=400
mkdir -p "$WORK/tree"
for i in $(seq 0 $((N - 1))); do
    d=$WORK/tree/d$((i % 7))/s$((i % 3))
    mkdir -p "$d"
    printf 'object %d\n' "$i" > "$d/f$i.txt"
done

# The bucket keeps versions: hedging at its default sends no PutObject twice
# there (a duplicate would be a second version), so the counts below are
# exact on a loaded machine too. (To a bucket never versioned an overdue
# PutObject may be hedged: invisible there; tests/e2e/test_hedge.sh.)
curl -sf --aws-sigv4 aws:amz:us-east-1:s3 --user s3emu-access:s3emu-secret -X PUT \
    -H "x-amz-content-sha256: UNSIGNED-PAYLOAD" -H "Content-Type: application/xml" \
    --data-binary '<VersioningConfiguration><Status>Enabled</Status></VersioningConfiguration>' \
    "$EMU/slurm?versioning=" > /dev/null || { bad "s3emu: versioning of the bucket"; finish; }

emu_reset() { curl -sf -X DELETE "$EMU/_s3emu/stats" > /dev/null; }
emu_op() { curl -sf "$EMU/_s3emu/stats" | jq ".ops.$1 // 0"; }
# keys: every key under data/, one a line, as the store lists them (not s3c); one page (< 1,000 here).
keys() {
    local page
    page=$(curl -sf --aws-sigv4 aws:amz:us-east-1:s3 --user s3emu-access:s3emu-secret \
        -H "x-amz-content-sha256: UNSIGNED-PAYLOAD" "$EMU/slurm?list-type=2&prefix=data%2F") || return 1
    grep -q '<IsTruncated>true' <<<"$page" && { echo "keys: more than one page" >&2; return 1; }
    grep -o '<Key>[^<]*</Key>' <<<"$page" | sed 's/<[^>]*>//g'
}

# run_array NAME SYNC-ARGS...: the example as a 4-task array, waited for.
run_array() {
    local name=$1
    shift
    mkdir -p "$WORK/$name"
    emu_reset
    if ! timeout "$JOB_TIMEOUT" sbatch --wait --array=0-3 --chdir="$WORK" --output="$WORK/$name/task-%a.out" \
        --time=5 examples/slurm/sync-array.sh "$@" > "$WORK/$name/sbatch.out" 2>&1; then
        cat "$WORK/$name/sbatch.out" "$WORK/$name"/task-*.out 2>/dev/null | tail -n 20
        bad "$name: the job array failed or took over ${JOB_TIMEOUT}s"
        return 1
    fi
    ok "$name: the 4-task array ran ($(head -n 1 "$WORK/$name/sbatch.out"))"
}

# lines NAME OP: the objects the tasks' result lines name for OP, one a line.
lines() { cat "$WORK/$1"/task-*.out | jq -r "select(.operation == \"$2\" and .success) | .source"; }
# stat_total NAME OP: the sum of the tasks' --stat lines for OP.
stat_total() { cat "$WORK/$1"/task-*.out | jq -s -f examples/shard-stat.jq | jq ".stat[] | select(.operation == \"$2\") | .success // 0" | head -n 1; }

# 1. Up: every file once.
if run_array up "$WORK/tree/" s3://slurm/data/; then
    check "up: s3emu saw $N PutObject (got $(emu_op PutObject))" [ "$(emu_op PutObject)" = "$N" ]
    keys > "$WORK/up.keys"
    check "up: $N keys, each once (got $(wc -l < "$WORK/up.keys"), $(sort "$WORK/up.keys" | uniq -d | wc -l) twice)" \
        [ "$(sort -u "$WORK/up.keys" | wc -l)" = "$N" ] && [ "$(wc -l < "$WORK/up.keys")" = "$N" ]
    lines up upload | sort > "$WORK/up.lines"
    check "up: the tasks' lines name $N files, none twice (got $(wc -l < "$WORK/up.lines"))" \
        [ "$(sort -u "$WORK/up.lines" | wc -l)" = "$N" ] && [ "$(wc -l < "$WORK/up.lines")" = "$N" ]
    shards=$(cat "$WORK/up"/task-*.out | jq -s -c '[.[] | select(has("stat")) | .shard] | sort')
    check "up: one --stat line per shard 0..3 (got $shards)" [ "$shards" = "[0,1,2,3]" ]
    check "up: the shard-stat.jq sum of uploads is $N (got $(stat_total up upload))" [ "$(stat_total up upload)" = "$N" ]
    per=$(for k in 0 1 2 3; do jq -r 'select(.operation == "upload")' "$WORK/up/task-$k.out" | jq -s length; done | tr '\n' ' ')
    check "up: every task did some of the work ($per)" [ "$(tr ' ' '\n' <<<"$per" | grep -c '^0$')" = 0 ]
fi

# 2. Again: nothing to do.
if run_array again "$WORK/tree/" s3://slurm/data/; then
    check "again: no PutObject (got $(emu_op PutObject))" [ "$(emu_op PutObject)" = 0 ]
    check "again: no result lines" [ "$(lines again upload | wc -l)" = 0 ]
fi

# 3. Changed and deleted files, with --delete: each change once, each delete once.
for i in $(seq 0 9); do printf 'changed %d, longer now\n' "$i" > "$WORK/tree/d$((i % 7))/s$((i % 3))/f$i.txt"; done
for i in $(seq 100 139); do rm "$WORK/tree/d$((i % 7))/s$((i % 3))/f$i.txt"; done
if run_array delete "$WORK/tree/" s3://slurm/data/ --delete; then
    check "delete: 10 PutObject (got $(emu_op PutObject))" [ "$(emu_op PutObject)" = 10 ]
    lines delete delete | sort > "$WORK/delete.lines"
    check "delete: 40 deletes, none twice (got $(wc -l < "$WORK/delete.lines"))" \
        [ "$(sort -u "$WORK/delete.lines" | wc -l)" = 40 ] && [ "$(wc -l < "$WORK/delete.lines")" = 40 ]
    keys > "$WORK/delete.keys"
    check "delete: $((N - 40)) keys left (got $(wc -l < "$WORK/delete.keys"))" [ "$(wc -l < "$WORK/delete.keys")" = $((N - 40)) ]
fi
finish
