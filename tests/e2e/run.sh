#!/usr/bin/env bash
# tests/e2e/run.sh [PATTERN...]
#
# Runs the end-to-end tests (every test_* function of tests/e2e/test_*.sh, in
# file order then in the order written) against the store described by
# S3C_TEST_ENDPOINT, S3C_TEST_ACCESS_KEY, S3C_TEST_SECRET_KEY,
# S3C_TEST_REGION and S3C_TEST_STORE (see lib.sh). PATTERNs (extended regular
# expressions) pick the tests whose names match any of them.
#
# A running store and its env, by hand:
#   scripts/ceph-rgw-start.sh /tmp/ceph 18080 && . /tmp/ceph/s3.env
#   tests/e2e/run.sh ls_          # only the tests with ls_ in their name
#   scripts/server-stop.sh /tmp/ceph
#
# Closes with the line "e2e(STORE): N passed, N failed" (plus the skipped count
# on a line of its own when some were skipped). If E2E_RESULT_FILE is set, writes
# "PASSED FAILED SKIPPED" to it. Exit 0 only when nothing failed.
#
# E2E_SHARD=I/N runs every Nth test of the chosen ones, starting with the Ith
# (0 <= I < N): N runs with I = 0..N-1, each against a store of its own (the
# tests change s3emu's model and read its counters), run the suite once. A
# test keeps the number it has in the whole list, so names stay unique.
set -uo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
E2E_ROOT=$(cd "$HERE/../.." && pwd)
# shellcheck source=lib.sh
. "$HERE/lib.sh"

for v in S3C_TEST_ENDPOINT S3C_TEST_ACCESS_KEY S3C_TEST_SECRET_KEY; do
    [ -n "${!v:-}" ] || { echo "e2e: $v is not set (see tests/e2e/lib.sh)" >&2; exit 2; }
done
for t in curl jq openssl "$AWS_CLI"; do
    command -v "$t" >/dev/null || { echo "e2e: '$t' not found: run scripts/deps.sh" >&2; exit 2; }
done

E2E_TMP=$(mktemp -d "${TMPDIR:-/tmp}/s3c-e2e.XXXXXX")
trap '[ "$E2E_KEEP" = 1 ] || rm -rf "$E2E_TMP"' EXIT
trap 'exit 130' INT
trap 'exit 143' TERM HUP
mkdir -p "$E2E_TMP/.awsx"
printf '[default]\ncli_pager =\n' > "$E2E_TMP/.awsx/config"
: > "$E2E_TMP/.awsx/credentials"
# shellcheck disable=SC2034  # used by lib.sh
E2E_RUN_ID=$(head -c 4 /dev/urandom | od -An -tx1 | tr -d ' \n')
E2E_PASSED=0 E2E_FAILED=0 E2E_SKIPPED=0
E2E_FAILED_NAMES=()

# Discover the tests, in order.
tests=()
for f in "$HERE"/test_*.sh; do
    [ -e "$f" ] || continue
    # shellcheck disable=SC1090
    . "$f"
    while read -r name; do
        if [ $# -eq 0 ]; then
            tests+=("$name")
        else
            for pat in "$@"; do
                if [[ $name =~ $pat ]]; then tests+=("$name"); break; fi
            done
        fi
    done < <(sed -nE 's/^(test_[A-Za-z0-9_]+)[[:space:]]*\(\).*/\1/p' "$f")
done

shard_i=0 shard_n=1
if [ -n "${E2E_SHARD:-}" ]; then
    if ! [[ $E2E_SHARD =~ ^([0-9]+)/([1-9][0-9]*)$ ]] || [ "${BASH_REMATCH[1]}" -ge "${BASH_REMATCH[2]}" ]; then
        echo "e2e: E2E_SHARD='$E2E_SHARD' is not I/N with 0 <= I < N" >&2
        exit 2
    fi
    shard_i=${BASH_REMATCH[1]} shard_n=${BASH_REMATCH[2]}
fi
shard_label=${E2E_SHARD:-}
unset E2E_SHARD     # this run's alone: a test that runs the suite itself runs all of its own
ntests=0
for ((k = shard_i; k < ${#tests[@]}; k += shard_n)); do ntests=$((ntests + 1)); done

echo "e2e($S3C_TEST_STORE): $ntests tests${shard_label:+ (shard $shard_label of ${#tests[@]})}, s3c=${S3C#"$E2E_ROOT"/}, endpoint $S3C_TEST_ENDPOINT"
[ -x "$S3C" ] || echo "  warning: $S3C is not an executable file: every test will fail"

if ! curl -s -o /dev/null --max-time 10 "$S3C_TEST_ENDPOINT/"; then
    echo "  the store does not answer at $S3C_TEST_ENDPOINT: no test run"
    E2E_FAILED=$ntests
else
    T0=$SECONDS
    for ((i = 1 + shard_i; i <= ${#tests[@]}; i += shard_n)); do
        name=${tests[i - 1]}
        if [ $((SECONDS - T0)) -ge "$E2E_SUITE_TIMEOUT" ]; then
            printf '  %-5s %-44s (suite time limit of %s s reached)\n' FAIL "$name" "$E2E_SUITE_TIMEOUT"
            E2E_FAILED=$((E2E_FAILED + 1))
            E2E_FAILED_NAMES+=("$name")
            continue
        fi
        t_run "$i" "$name"
    done
    echo "  ($((SECONDS - T0)) s)"
fi

[ ${#E2E_FAILED_NAMES[@]} -eq 0 ] || echo "  failed: ${E2E_FAILED_NAMES[*]}"
[ "$E2E_SKIPPED" -eq 0 ] || echo "  skipped: $E2E_SKIPPED"
[ -z "${E2E_RESULT_FILE:-}" ] || echo "$E2E_PASSED $E2E_FAILED $E2E_SKIPPED" > "$E2E_RESULT_FILE"
echo "e2e($S3C_TEST_STORE): $E2E_PASSED passed, $E2E_FAILED failed"
[ "$E2E_FAILED" -eq 0 ]
