# tests/e2e/test_restore.sh — issue 26 item 5: archived objects. `s3c restore`
# starts restores (RestoreObject, one an object, many in flight) and may be run
# again at no harm; ls -s and head show the storage class and the restore
# status.
# shellcheck shell=bash
#
# The tests that make restores take time use an s3emu of their own (its
# restore_ms setting: a restore runs that long, HEAD says ongoing-request="true"
# meanwhile, a second RestoreObject is 409 RestoreAlreadyInProgress, as S3).
# restore_ms is read when asked: a test holds restores with a large value and
# ends them with 0, whatever the machine's load.
# test_restore_on_the_suite_store runs on the suite's store (s3emu, Ceph, moto)
# and skips, saying why, where the store keeps no archived class.

# _rs_emu_stat FIELD: one of s3emu's top-level counters.
_rs_emu_stat() {
    curl -sS "$S3C_TEST_ENDPOINT/_s3emu/stats" | jq -r ".$1"
}

# _rs_put BUCKET KEY CLASS: a small object of that storage class.
_rs_put() {
    printf cold > "$T_DIR/.cold"
    assert_ok s3c cp --only-show-errors --storage-class "$3" "$T_DIR/.cold" "s3://$1/$2"
}

# A prefix with archived objects and one that is not: the restores start (202),
# the other object is skipped with a warning (exit 2); while they run, HEAD and
# ls -s say so, and a second run is a success of every archived object (409
# RestoreAlreadyInProgress); once done, ls -s says restored, the copy is read,
# and a third run sets its expiry anew (200). --days reaches the store.
test_restore_prefix_again_and_again() {
    local b now exp
    t_own_emu
    t_new_bucket b
    _rs_put "$b" a/g1 GLACIER
    _rs_put "$b" a/d1 DEEP_ARCHIVE
    _rs_put "$b" a/s1 STANDARD
    t_emu_set "restore_ms=3600000" # held until the checks below are done

    assert_exit 2 s3c restore --recursive "s3://$b/a/" --days 3 --tier bulk
    assert_eq "$(printf 'restore: s3://%s/a/d1\nrestore: s3://%s/a/g1' "$b" "$b")" "$(sort <<<"$T_OUT")" "stdout"
    assert_eq "warning: Skipping file s3://$b/a/s1. Object is of storage class STANDARD, not archived: nothing to restore" \
        "$T_ERR" "stderr"
    assert_eq 2 "$(t_emu_ops RestoreObject)" "RestoreObject requests (none for the STANDARD object)"

    assert_ok s3c head "s3://$b/a/g1"
    assert_eq 'ongoing-request="true"' "$(jq -r .Restore <<<"$T_OUT")" "head's Restore while it runs"
    assert_eq GLACIER "$(jq -r .StorageClass <<<"$T_OUT")" "head's StorageClass"
    assert_ok s3c ls -s "s3://$b/a/"
    assert_match "$T_OUT" "GLACIER:restoring +4 g1"
    assert_match "$T_OUT" "DEEP_ARCHIVE:restoring +4 d1"
    assert_match "$T_OUT" "STANDARD +4 s1"
    assert_ok s3c --json ls "s3://$b/a/"
    assert_eq "true true null" "$(jq -rs 'map(.restore_in_progress) | "\(.[0]) \(.[1]) \(.[2])"' <<<"$T_OUT")" \
        "ls --json restore_in_progress of d1 g1 s1"

    # Again while they run: in progress is a success; the skip is said again.
    assert_exit 2 s3c --json restore --recursive "s3://$b/a/"
    assert_json_lines "$T_OUT"
    assert_eq "$(printf 'd1 true in_progress\ng1 true in_progress\ns1 false skipped')" \
        "$(jq -r '"\(.source | sub(".*/"; "")) \(.success) \(.status // (if .skipped then "skipped" else "?" end))"' \
            <<<"$T_OUT" | sort)" "records of the second run"
    assert_exit 2 s3c cp "s3://$b/a/g1" early
    [ ! -e early ] || t_fail "an object still being restored was downloaded"

    t_emu_set "restore_ms=0" # the restores end now

    assert_ok s3c head "s3://$b/a/g1"
    assert_contains "$T_OUT" 'ongoing-request=\"false\"'
    # --days 3 reached the store: the copy expires three days from now (give or take a minute).
    exp=$(date -u -d "$(jq -r .Restore <<<"$T_OUT" | sed -E 's/.*expiry-date="([^"]+)".*/\1/')" +%s)
    now=$(date -u +%s)
    (( exp > now + 3 * 86400 - 60 && exp < now + 3 * 86400 + 60 )) ||
        t_fail "the restored copy expires at $exp, not 3 days after $now"
    assert_ok s3c ls -s "s3://$b/a/"
    assert_match "$T_OUT" "GLACIER:restored +4 g1"
    assert_ok s3c --json ls "s3://$b/a/g1"
    assert_eq "false" "$(jq -r .restore_in_progress <<<"$T_OUT")" "ls --json once restored"
    [ -n "$(jq -r '.restore_expiry // empty' <<<"$T_OUT")" ] || t_fail "ls --json gives no restore_expiry: $T_OUT"

    assert_ok s3c restore "s3://$b/a/g1"
    assert_eq "restore: s3://$b/a/g1 (already restored; its expiry set anew)" "$T_OUT"
    assert_ok s3c cp --only-show-errors "s3://$b/a/g1" restored
    assert_eq cold "$(cat restored)" "the restored copy's bytes"
}

# One key: a store's 403 InvalidObjectState (not archived) is a skip, exit 2;
# a missing key a failure naming RestoreObject, exit 1; a wildcard restores
# what it matches; --dryrun sends nothing; bad --days and --tier exit 252.
test_restore_keys_wildcards_dryrun_and_usage() {
    local b
    t_own_emu
    t_new_bucket b
    _rs_put "$b" x/g1 GLACIER
    _rs_put "$b" x/g2 GLACIER
    _rs_put "$b" x/h1 GLACIER
    _rs_put "$b" x/s1 STANDARD

    assert_exit 2 s3c restore "s3://$b/x/s1"
    assert_eq "" "$T_OUT" "stdout of a skip"
    assert_contains "$T_ERR" "warning: Skipping file s3://$b/x/s1. Object is not archived (the store refused to restore it, 403 InvalidObjectState)"
    assert_exit 1 s3c restore "s3://$b/x/none"
    assert_contains "$T_ERR" "restore failed: s3://$b/x/none An error occurred (NoSuchKey) when calling the RestoreObject operation"

    assert_ok s3c restore --dryrun "s3://$b/x/g*"
    assert_eq "$(printf '(dryrun) restore: s3://%s/x/g1\n(dryrun) restore: s3://%s/x/g2' "$b" "$b")" "$T_OUT"
    assert_eq 2 "$(t_emu_ops RestoreObject)" "RestoreObject requests after a dry run"
    assert_ok s3c --json restore "s3://$b/x/g*"
    assert_eq "$(printf 's3://%s/x/g1 started\ns3://%s/x/g2 started' "$b" "$b")" \
        "$(jq -r '"\(.source) \(.status)"' <<<"$T_OUT" | sort)"
    assert_ok s3c head "s3://$b/x/h1"
    assert_eq null "$(jq -r .Restore <<<"$T_OUT")" "an object the wildcard left alone"
    # A run file's restore line is a job on the run's engine, as rm's.
    printf 'restore s3://%s/x/h1 --days 2\n' "$b" > cmds
    assert_ok s3c run cmds
    assert_eq "restore: s3://$b/x/h1" "$T_OUT" "run's output"

    assert_exit 252 s3c restore "s3://$b/x/g1" --days 0
    assert_contains "$T_ERR" "--days must be a whole number of days, 1 or more"
    assert_exit 252 s3c restore "s3://$b/x/g1" --tier Fast
    assert_contains "$T_ERR" "--tier must be Standard, Bulk or Expedited"
    assert_exit 252 s3c restore local-file
    assert_exit 252 s3c restore "s3://$b"
    assert_contains "$T_ERR" "use --recursive to restore every object in it"
    assert_exit 252 s3c restore --all-versions "s3://$b/x/g1"
    assert_exit 252 s3c rm --days 2 "s3://$b/x/g1"
}

# Many objects: their restores are in flight together, not one after another
# (with 200 ms a request, 40 one at a time would take 8 s, on one connection).
test_restore_many_in_flight() {
    local b i conns start took
    t_own_emu
    t_new_bucket b
    mkdir many
    for ((i = 0; i < 40; i++)); do printf 'c%d' "$i" > "many/k$i"; done
    assert_ok s3c cp --only-show-errors --recursive --storage-class DEEP_ARCHIVE many "s3://$b/many/"
    t_emu_set "latency_ms=200"
    conns=$(_rs_emu_stat connections)
    start=$(date +%s%N)
    assert_ok s3c restore --recursive "s3://$b/many/" --no-progress
    took=$(( ($(date +%s%N) - start) / 1000000 ))
    assert_eq 40 "$(grep -c '^restore: ' <<<"$T_OUT")" "objects restored"
    assert_eq 40 "$(t_emu_ops RestoreObject)" "RestoreObject requests"
    (( $(_rs_emu_stat connections) - conns >= 4 )) ||
        t_fail "the restores used $(( $(_rs_emu_stat connections) - conns )) connection(s): not in flight together"
    (( took < 5000 )) || t_fail "40 restores took $took ms: one at a time?"
}

# On the suite's store (s3emu, Ceph, moto): an archived object is restored, or
# the test says why it cannot be (the store keeps no GLACIER class).
test_restore_on_the_suite_store() {
    local b
    t_new_bucket b
    printf cold > cold
    t_cmd s3c cp --only-show-errors --storage-class GLACIER cold "s3://$b/g"
    [ "$T_RC" = 0 ] || t_skip "this store refuses the GLACIER storage class: $T_ERR"
    assert_ok s3c head "s3://$b/g"
    [ "$(jq -r .StorageClass <<<"$T_OUT")" = GLACIER ] ||
        t_skip "this store keeps no GLACIER class (HEAD says $(jq -c .StorageClass <<<"$T_OUT"))"
    t_cmd s3c restore "s3://$b/g" --days 1
    if [ "$T_RC" != 0 ] && [[ $T_ERR == *NotImplemented* || $T_ERR == *"(501)"* || $T_ERR == *MethodNotAllowed* ]]; then
        t_skip "this store does not implement RestoreObject: $T_ERR"
    fi
    assert_eq 0 "$T_RC" "restore's exit code (stderr: $T_ERR)"
    assert_match "$T_OUT" "^restore: s3://$b/g( \\((already restored; its expiry set anew|already in progress)\\))?$"
    # Once more: a success whatever the store's restore is doing.
    assert_ok s3c restore "s3://$b/g" --days 1
    assert_ok s3c head "s3://$b/g"
    assert_contains "$T_OUT" '"Restore":'
}
