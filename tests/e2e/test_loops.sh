# tests/e2e/test_loops.sh — issue 12 item 5: the engine on several event loops
# (--loops). Enough small objects that the helper loops start (more than the
# first loop takes at once), and the results checked as for one loop: every
# object once, every byte, every line whole, mv's deletes after its copies.
# shellcheck shell=bash

# _lp_tree DIR N: N small files of distinct contents (a few over 64 KiB, so not
# every download lands through the land workers), and one of 9 MiB (multipart).
_lp_tree() {
    local i
    mkdir -p "$1/a" "$1/b"
    for i in $(seq 1 "$2"); do printf 'file %s\n' "$i" > "$1/$([ $((i % 2)) = 0 ] && echo a || echo b)/f$i"; done
    for i in 1 2 3; do head -c $((100 * 1024 + i)) /dev/urandom > "$1/a/mid$i"; done
    head -c $((9 * 1024 * 1024)) /dev/urandom > "$1/big"
}

# _lp_keys_of DIR PREFIX: the keys a recursive upload of DIR to PREFIX makes, sorted.
_lp_keys_of() {
    (cd "$1" && find . -type f | sed "s|^\./|$2|" | LC_ALL=C sort)
}

_lp_keys() {
    t_list_keys "$1" | LC_ALL=C sort
}

test_loops_two_loops_round_trip() {
    local b n
    t_new_bucket b
    _lp_tree tree 800
    n=$(find tree -type f | wc -l)

    assert_ok s3c --debug cp -r --loops 2 tree "s3://$b/up/"
    assert_contains "$T_ERR" "xfer: 2 event loops"
    assert_eq "$(grep -c '^upload: ' <<<"$T_OUT")" "$n" "upload lines"
    assert_lines "$n" "$T_OUT" "stdout: one whole line per object"
    assert_eq "$(sort <<<"$T_OUT" | uniq -d)" "" "a line printed twice"
    assert_eq "$(_lp_keys_of tree up/)" "$(_lp_keys "$b")" "keys in the bucket"

    assert_ok s3c --debug cp -r --loops 2 "s3://$b/up/" dl
    assert_contains "$T_ERR" "xfer: 2 event loops"
    assert_eq "$(grep -c '^download: ' <<<"$T_OUT")" "$n" "download lines"
    assert_lines "$n" "$T_OUT" "stdout: one whole line per object"
    assert_eq "$(t_tree_sums tree)" "$(t_tree_sums dl)" "sha256 of every file, sent and received"

    # --stat adds up every loop's objects.
    assert_ok s3c cp -r --loops 2 --stat --only-show-errors "s3://$b/up/" "s3://$b/copy/"
    assert_match "$T_OUT" "copy +$n +0 +$n "
    assert_eq "$(_lp_keys_of tree copy/)" "$(_lp_keys "$b" | grep '^copy/')" "keys copied"
}

test_loops_mv_deletes_after_copies() {
    local b n
    t_new_bucket b
    _lp_tree tree 600
    n=$(find tree -type f | wc -l)
    cp -r tree keep

    # Local to S3: each file removed once its upload is verified.
    assert_ok s3c mv -r --loops 2 tree "s3://$b/m/"
    assert_eq "$(grep -c '^move: ' <<<"$T_OUT")" "$n" "move lines"
    assert_eq "$(find tree -type f | wc -l)" 0 "local files left"
    assert_eq "$(_lp_keys_of keep m/)" "$(_lp_keys "$b")" "keys in the bucket"

    # S3 to S3: the sources go (a conditional DeleteObject each, or DeleteObjects batches where the
    # store ignores If-Match), the copies stay.
    assert_ok s3c mv -r --loops 2 "s3://$b/m/" "s3://$b/n/"
    assert_eq "$(grep -c '^move: ' <<<"$T_OUT")" "$n" "move lines"
    assert_eq "$(_lp_keys_of keep n/)" "$(_lp_keys "$b")" "only the moved keys are left"
    assert_ok s3c cp -r --loops 2 "s3://$b/n/" back
    assert_eq "$(t_tree_sums keep)" "$(t_tree_sums back)" "sha256 of every file after two moves"
}

test_loops_sync_delete() {
    local b i
    t_new_bucket b
    _lp_tree tree 500
    assert_ok s3c sync --loops 2 tree "s3://$b/s/"
    for i in $(seq 2 2 400); do rm "tree/a/f$i"; done
    for i in $(seq 1 2 300); do printf 'changed %s!\n' "$i" > "tree/b/f$i"; done
    assert_ok s3c sync --loops 2 --delete tree "s3://$b/s/"
    assert_eq "$(grep -c '^delete: ' <<<"$T_OUT")" 200 "delete lines"
    assert_eq "$(grep -c '^upload: ' <<<"$T_OUT")" 150 "upload lines"
    assert_eq "$(_lp_keys_of tree s/)" "$(_lp_keys "$b")" "keys after sync --delete"
    assert_ok s3c sync --loops 2 "s3://$b/s/" dl
    assert_eq "$(t_tree_sums tree)" "$(t_tree_sums dl)" "sha256 of every file synced back"
}

# With no --loops, one loop per core s3c may use: the cores its affinity mask
# leaves (taskset here; Slurm's cpusets and containers' likewise), not the
# machine's. Two loops on one core only take turns.
test_loops_default_follows_affinity() {
    local b cpus
    # The first two cores this test may use (the harness may itself be pinned).
    cpus=$(python3 -c 'import os; print(",".join(map(str, sorted(os.sched_getaffinity(0))[:2])))')
    [[ $cpus == *,* ]] || t_skip "one core: nothing to pin away"
    t_new_bucket b
    _lp_tree tree 800

    assert_ok timeout -k 5 "$E2E_CMD_TIMEOUT" taskset -c "${cpus%,*}" "$S3C" --debug cp -r tree "s3://$b/one/"
    assert_not_contains "$T_ERR" "event loops" # one loop: no helpers start
    assert_ok timeout -k 5 "$E2E_CMD_TIMEOUT" taskset -c "$cpus" "$S3C" --debug cp -r tree "s3://$b/two/"
    assert_contains "$T_ERR" "xfer: 2 event loops"
    assert_eq "$(_lp_keys_of tree one/)" "$(_lp_keys "$b" | grep '^one/')" "keys in the bucket"
    assert_eq "$(_lp_keys_of tree two/)" "$(_lp_keys "$b" | grep '^two/')" "keys in the bucket"
}
