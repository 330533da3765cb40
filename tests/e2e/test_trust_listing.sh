# tests/e2e/test_trust_listing.sh — issue 22 items 1, 8 and 9: every verb
# acts only on the keys under the prefix it was asked for, whatever the store
# lists; a key no file or request can name is skipped alone; a listing that
# makes no progress ends with one clear error within seconds.
# shellcheck shell=bash
#
# Each test has a store of its own (s3emu or moto's server) behind
# tests/e2e/hostile_proxy.py (lib.sh: hp_start), which misbehaves as real
# stores and proxies do: prefix-ignored, start-after-ignored, token-repeat,
# token-cycle, with max-keys=2 so a handful of keys make several pages. s3c
# goes through the relay; the checks read the store directly (curl) and the
# local tree. The store's own behaviour matters (how moto pages, what it
# accepts as a key), so each case runs on both; they need no shared store
# and run once, in the s3emu pass.
#
# Exit codes: a key kept from the verbs is skipped with a warning, exit 2
# (the AWS CLI's "files skipped"); a listing that cannot go on is a failure,
# exit 1 for cp/mv/rm/sync, and 255 for ls/du (a client-side error, as the
# AWS CLI's PaginationError; 254 is kept for the store's own error replies).

TL_LIMIT=10         # seconds any one command may take: "within seconds"

_tl_once() {
    t_store_is s3emu || t_skip "a store of its own: runs once, in the s3emu pass"
}

# _tl_run ARGS...: s3c ARGS through the relay, killed past TL_LIMIT seconds
# (TERM, then KILL: a command that ignores TERM must not hang the suite).
_tl_run() {
    local t0=$SECONDS
    t_cmd timeout -k 2 "$TL_LIMIT" "$S3C" "$@"
    TL_SECS=$((SECONDS - t0))
    case $T_RC in
        124 | 137) t_fail "s3c $* did not end within ${TL_LIMIT}s (exit $T_RC)" ;;
    esac
}

# _tl_keys BUCKET: the store's keys (URL-encoded, sorted), read directly.
_tl_keys() {
    local b=$1 tok="" xml q
    while :; do
        q="encoding-type=url&list-type=2&max-keys=1000"
        [ -n "$tok" ] && q="continuation-token=$(jq -rn --arg t "$tok" '$t | @uri')&$q"
        xml=$(s3curl GET "/$b?$q") || t_fail "listing s3://$b directly failed"
        grep -o '<Key>[^<]*</Key>' <<<"$xml" | sed 's|</\?Key>||g'
        grep -q '<IsTruncated>true</IsTruncated>' <<<"$xml" || break
        tok=$(grep -o '<NextContinuationToken>[^<]*</NextContinuationToken>' <<<"$xml" |
              sed 's|</\?NextContinuationToken>||g')
        [ -n "$tok" ] || t_fail "truncated listing without a token"
    done | LC_ALL=C sort
}

# _tl_put BUCKET KEY...: each KEY (already URL-encoded) with body "body of KEY".
_tl_put() {
    local b=$1 k
    shift
    for k in "$@"; do
        printf 'body of %s' "$k" > "$T_DIR/.put"
        t_cmd s3curl PUT "/$b/$k" --path-as-is -T "$T_DIR/.put" || t_fail "could not put s3://$b/$k"
    done
}

# _tl_tree DIR: the files under DIR, relative, sorted, one a line.
_tl_tree() { (cd "$1" 2>/dev/null && find . -type f | sed 's|^\./||' | LC_ALL=C sort); }

# _tl_no_raw_controls: stderr holds no control byte (keys are shown escaped).
_tl_no_raw_controls() {
    [ "$(tr -d '\n' < "$T_DIR/.err" | tr -d '[:print:]' | wc -c)" = 0 ] ||
        t_fail "stderr holds control bytes: $(od -c "$T_DIR/.err" | head -n 5)"
}

# ---- item 1: a store that ignores `prefix` ----------------------------------------

# Outside s3://B/a/: before it ("0first"), beside it ("a0"), after it, and one
# with a line break and an escape in its name, which the warning must show escaped.
TL_INSIDE=(a/1 a/2 a/3)
TL_OUTSIDE=(0first a0 b/important zz%09%1B%5B31mred)

_tl_outside_warned() {
    local k n
    # (A delimiter listing rolls b/important up into the common prefix b/.)
    for k in 0first a0 'b/(important)?'; do
        assert_match "$T_ERR" "^warning: Skipping file s3://$b/$k\. the store listed it outside the prefix" \
            "the warning for $k"
    done
    assert_match "$T_ERR" "^warning: Skipping file s3://$b/zz\\\\t\\\\x1b\[31mred\. " "the escaped key"
    _tl_no_raw_controls
    n=$(grep -c . <<<"$T_ERR")
    [ "$n" -ge 4 ] || t_fail "expected a warning line per key outside the prefix, got $n lines"
    assert_not_contains "$T_ERR" "fatal error" "stderr"
}

_tl_store_untouched_outside() {
    local keys
    keys=$(_tl_keys "$b")
    for k in 0first a0 b/important zz%09%1B%5B31mred; do
        grep -qxF "$k" <<<"$keys" || t_fail "s3://$b/$k is gone from the store (keys: $(tr '\n' ' ' <<<"$keys"))"
    done
}

# _tl_prefix_ignored STORE VERB: VERB on s3://B/a/ through a relay that drops `prefix`.
_tl_prefix_ignored() {
    local store=$1 verb=$2 keys
    _tl_once
    hp_start "$store" prefix-ignored,max-keys=2
    t_new_bucket b
    _tl_put "$b" "${TL_INSIDE[@]}" "${TL_OUTSIDE[@]}"
    mkdir dl up
    case $verb in
        ls)
            # The store's delimiter listing of the whole bucket rolls a/'s keys up
            # into a common prefix "a/", which is no entry under a/: none is shown.
            _tl_run ls "s3://$b/a/"
            [ -z "$(awk '{ print $NF }' <<<"$T_OUT" | grep -vxE '1|2|3')" ] || t_fail "ls shows keys outside a/"
            ;;
        ls-r)
            _tl_run ls -r "s3://$b/a/"
            assert_eq "$(printf '%s\n' a/1 a/2 a/3)" "$(awk '{ print $NF }' <<<"$T_OUT")" "ls -r shows a/ only"
            ;;
        du)
            _tl_run du "s3://$b/a/"
            assert_match "$T_OUT" "^[0-9]+ bytes in 3 objects: s3://$b/a/\$" "du counts a/ only"
            ;;
        cp)
            _tl_run cp -r "s3://$b/a/" dl/
            assert_eq "$(printf '%s\n' 1 2 3)" "$(_tl_tree dl)" "the files cp -r wrote"
            assert_eq "body of a/1" "$(cat dl/1)" "dl/1"
            ;;
        mv)
            _tl_run mv -r "s3://$b/a/" dl/
            assert_eq "$(printf '%s\n' 1 2 3)" "$(_tl_tree dl)" "the files mv -r wrote"
            keys=$(_tl_keys "$b")
            assert_not_contains "$keys" "a/" "mv -r moved what was under a/"
            ;;
        rm)
            _tl_run rm -r "s3://$b/a/"
            keys=$(_tl_keys "$b")
            assert_not_contains "$keys" "a/" "rm -r deleted what was under a/"
            ;;
        sync)
            _tl_run sync "s3://$b/a/" dl/
            assert_eq "$(printf '%s\n' 1 2 3)" "$(_tl_tree dl)" "the files sync wrote"
            ;;
        sync-delete)
            # The destination's listing: what lies outside a/ is no file the source lacks.
            echo one > up/1
            _tl_run sync --delete up/ "s3://$b/a/"
            keys=$(_tl_keys "$b")
            assert_eq "a/1" "$(grep '^a/' <<<"$keys")" "sync --delete kept a/1 and deleted a/2, a/3"
            ;;
    esac
    _tl_store_untouched_outside
    [ "$T_RC" = 2 ] || t_fail "$verb: exit $T_RC, expected 2 (keys outside the prefix skipped)"
    _tl_outside_warned
    [ -z "$(_tl_tree up | grep -vx 1)" ] || t_fail "files appeared in up/"
}

test_trust_listing_ls_prefix_ignored_emu() { _tl_prefix_ignored emu ls; }
test_trust_listing_ls_prefix_ignored_moto() { _tl_prefix_ignored moto ls; }
test_trust_listing_ls_r_prefix_ignored_emu() { _tl_prefix_ignored emu ls-r; }
test_trust_listing_ls_r_prefix_ignored_moto() { _tl_prefix_ignored moto ls-r; }
test_trust_listing_du_prefix_ignored_emu() { _tl_prefix_ignored emu du; }
test_trust_listing_du_prefix_ignored_moto() { _tl_prefix_ignored moto du; }
test_trust_listing_cp_prefix_ignored_emu() { _tl_prefix_ignored emu cp; }
test_trust_listing_cp_prefix_ignored_moto() { _tl_prefix_ignored moto cp; }
test_trust_listing_mv_prefix_ignored_emu() { _tl_prefix_ignored emu mv; }
test_trust_listing_mv_prefix_ignored_moto() { _tl_prefix_ignored moto mv; }
test_trust_listing_rm_prefix_ignored_emu() { _tl_prefix_ignored emu rm; }
test_trust_listing_rm_prefix_ignored_moto() { _tl_prefix_ignored moto rm; }
test_trust_listing_sync_prefix_ignored_emu() { _tl_prefix_ignored emu sync; }
test_trust_listing_sync_prefix_ignored_moto() { _tl_prefix_ignored moto sync; }
test_trust_listing_sync_delete_prefix_ignored_emu() { _tl_prefix_ignored emu sync-delete; }
test_trust_listing_sync_delete_prefix_ignored_moto() { _tl_prefix_ignored moto sync-delete; }

# ---- item 8: keys no file (or request) can name -------------------------------

# _tl_badnames STORE VERB: beside ok1 and ok2, keys holding a NUL (%00), an
# empty segment, a leading '/', '..' and '.' segments. Each is skipped alone
# with one warning line (the NUL one by every verb: no request carries it; the
# others by the downloads: the AWS CLI skips a key that leaves the directory,
# and s3c refuses to clean any); the rest lands, exit 2. Today the NUL key
# fails the whole listing: nothing is transferred, exit 1.
_tl_badnames() {
    local store=$1 verb=$2 keys
    _tl_once
    hp_start "$store" max-keys=2
    t_new_bucket b
    _tl_put "$b" ok1 nul%00x dbl//slash /lead a/../../esc dot/./x ok2
    mkdir -p dl/in
    case $verb in
        cp) _tl_run cp -r "s3://$b/" dl/in/ ;;
        sync) _tl_run sync "s3://$b/" dl/in/ ;;
        mv) _tl_run mv -r "s3://$b/" dl/in/ ;;
        ls) _tl_run ls -r "s3://$b/" ;;
        rm) _tl_run rm -r "s3://$b/" ;;
    esac
    [ "$T_RC" = 2 ] || t_fail "$verb: exit $T_RC, expected 2 (keys skipped, the rest done)"
    assert_match "$T_ERR" "^warning: Skipping file s3://$b/nul%00x\. the key holds a NUL byte" "the NUL key's warning"
    assert_not_contains "$T_ERR" "fatal error" "stderr"
    _tl_no_raw_controls
    case $verb in
        cp | sync | mv)
            assert_eq "$(printf '%s\n' ok1 ok2)" "$(_tl_tree dl/in)" "the files written"
            assert_eq "body of ok1" "$(cat dl/in/ok1)" "dl/in/ok1"
            assert_eq "" "$(find dl -mindepth 1 -maxdepth 1 ! -name in)" "nothing outside dl/in"
            assert_lines 5 "$T_ERR" "one warning per skipped key"
            ;;
        ls)
            assert_eq "$(printf '%s\n' /lead a/../../esc dbl//slash dot/./x ok1 ok2)" \
                "$(awk '{ print $NF }' <<<"$T_OUT")" "ls -r shows every other key"
            assert_lines 1 "$T_ERR" "one warning"
            ;;
        rm)
            keys=$(_tl_keys "$b")
            assert_eq "nul%00x" "$keys" "rm -r deleted every key but the one it cannot name"
            assert_lines 1 "$T_ERR" "one warning"
            ;;
    esac
    if [ "$verb" = mv ]; then
        keys=$(_tl_keys "$b")
        assert_eq "$(printf '%s\n' /lead a/../../esc dbl//slash dot/./x nul%00x)" "$keys" "mv -r moved ok1 and ok2 only"
    fi
}

test_trust_listing_cp_unnamable_keys_emu() { _tl_badnames emu cp; }
test_trust_listing_cp_unnamable_keys_moto() { _tl_badnames moto cp; }
test_trust_listing_sync_unnamable_keys_emu() { _tl_badnames emu sync; }
test_trust_listing_sync_unnamable_keys_moto() { _tl_badnames moto sync; }
test_trust_listing_mv_unnamable_keys_emu() { _tl_badnames emu mv; }
test_trust_listing_mv_unnamable_keys_moto() { _tl_badnames moto mv; }
test_trust_listing_ls_unnamable_keys_emu() { _tl_badnames emu ls; }
test_trust_listing_ls_unnamable_keys_moto() { _tl_badnames moto ls; }
test_trust_listing_rm_unnamable_keys_emu() { _tl_badnames emu rm; }
test_trust_listing_rm_unnamable_keys_moto() { _tl_badnames moto rm; }

# ---- item 9: listings that make no progress --------------------------------------

# _tl_stuck STORE MODE VERB: VERB over 9 keys under a/ (5 pages of 2) through a
# relay in MODE: one error line naming the listing, exit 1 (255 for ls/du),
# within TL_LIMIT seconds, and nothing outside a/ touched.
_tl_stuck() {
    local store=$1 mode=$2 verb=$3 want=1 n gets
    _tl_once
    hp_start "$store" "$mode,max-keys=2"
    t_new_bucket b
    _tl_put "$b" a/1 a/2 a/3 a/4 a/5 a/6 a/7 a/8 a/9 b/important
    mkdir dl up
    case $verb in
        ls) _tl_run ls "s3://$b/a/"; want=255 ;;
        ls-r) _tl_run ls -r "s3://$b/a/"; want=255 ;;
        du) _tl_run du "s3://$b/a/"; want=255 ;;
        cp) _tl_run cp -r "s3://$b/a/" dl/ ;;
        mv) _tl_run mv -r "s3://$b/a/" dl/ ;;
        rm) _tl_run rm -r "s3://$b/a/" ;;
        sync) _tl_run sync "s3://$b/a/" dl/ ;;
        sync-delete) echo one > up/1; _tl_run sync --delete up/ "s3://$b/a/" ;;
    esac
    [ "$T_RC" = "$want" ] || t_fail "$verb through $mode: exit $T_RC, expected $want"
    assert_lines 1 "$T_ERR" "stderr: one error line"
    assert_match "$T_ERR" '^(s3c: ERROR "[^"]*": |fatal error: )ListObjectsV2: ' "the error names the listing"
    assert_match "$T_ERR" '(a second time|went back to|ignores start-after|out of order)' "the error says why"
    # No key was acted on twice: each GET of an object at most once (no looping download).
    gets=$(jq -r 'select(.method == "GET" and (.target | test("/a/"))) | .target' "$HP_LOG" | sort | uniq -d | wc -l)
    [ "$gets" = 0 ] || t_fail "objects downloaded more than once: $(jq -c . "$HP_LOG" | grep -c GET) GETs"
    n=$(_tl_tree dl | wc -l)
    [ "$n" -le 9 ] || t_fail "$n files written"
    grep -qxF b/important <<<"$(_tl_keys "$b")" || t_fail "s3://$b/b/important is gone"
    t_note "$verb through $mode on $store: exit $T_RC in ${TL_SECS}s: $T_ERR"
}

test_trust_listing_ls_token_repeat_emu() { _tl_stuck emu token-repeat ls; }
test_trust_listing_ls_token_repeat_moto() { _tl_stuck moto token-repeat ls; }
test_trust_listing_ls_r_token_repeat_emu() { _tl_stuck emu token-repeat ls-r; }
test_trust_listing_ls_r_token_repeat_moto() { _tl_stuck moto token-repeat ls-r; }
test_trust_listing_du_token_repeat_emu() { _tl_stuck emu token-repeat du; }
test_trust_listing_du_token_repeat_moto() { _tl_stuck moto token-repeat du; }
test_trust_listing_cp_token_repeat_emu() { _tl_stuck emu token-repeat cp; }
test_trust_listing_cp_token_repeat_moto() { _tl_stuck moto token-repeat cp; }
test_trust_listing_mv_token_repeat_emu() { _tl_stuck emu token-repeat mv; }
test_trust_listing_mv_token_repeat_moto() { _tl_stuck moto token-repeat mv; }
test_trust_listing_rm_token_repeat_emu() { _tl_stuck emu token-repeat rm; }
test_trust_listing_rm_token_repeat_moto() { _tl_stuck moto token-repeat rm; }
test_trust_listing_sync_token_repeat_emu() { _tl_stuck emu token-repeat sync; }
test_trust_listing_sync_token_repeat_moto() { _tl_stuck moto token-repeat sync; }
test_trust_listing_sync_delete_token_repeat_emu() { _tl_stuck emu token-repeat sync-delete; }
test_trust_listing_sync_delete_token_repeat_moto() { _tl_stuck moto token-repeat sync-delete; }
test_trust_listing_ls_token_cycle_emu() { _tl_stuck emu token-cycle ls; }
test_trust_listing_ls_token_cycle_moto() { _tl_stuck moto token-cycle ls; }
test_trust_listing_ls_r_token_cycle_emu() { _tl_stuck emu token-cycle ls-r; }
test_trust_listing_ls_r_token_cycle_moto() { _tl_stuck moto token-cycle ls-r; }
test_trust_listing_du_token_cycle_emu() { _tl_stuck emu token-cycle du; }
test_trust_listing_du_token_cycle_moto() { _tl_stuck moto token-cycle du; }
test_trust_listing_cp_token_cycle_emu() { _tl_stuck emu token-cycle cp; }
test_trust_listing_cp_token_cycle_moto() { _tl_stuck moto token-cycle cp; }
test_trust_listing_mv_token_cycle_emu() { _tl_stuck emu token-cycle mv; }
test_trust_listing_mv_token_cycle_moto() { _tl_stuck moto token-cycle mv; }
test_trust_listing_rm_token_cycle_emu() { _tl_stuck emu token-cycle rm; }
test_trust_listing_rm_token_cycle_moto() { _tl_stuck moto token-cycle rm; }
test_trust_listing_sync_token_cycle_emu() { _tl_stuck emu token-cycle sync; }
test_trust_listing_sync_token_cycle_moto() { _tl_stuck moto token-cycle sync; }
test_trust_listing_sync_delete_token_cycle_emu() { _tl_stuck emu token-cycle sync-delete; }
test_trust_listing_sync_delete_token_cycle_moto() { _tl_stuck moto token-cycle sync-delete; }
# ls and du list page after page with tokens, never with start-after: only the
# parallel lister of cp, mv, rm and sync relies on it.
test_trust_listing_cp_start_after_ignored_emu() { _tl_stuck emu start-after-ignored cp; }
test_trust_listing_cp_start_after_ignored_moto() { _tl_stuck moto start-after-ignored cp; }
test_trust_listing_mv_start_after_ignored_emu() { _tl_stuck emu start-after-ignored mv; }
test_trust_listing_mv_start_after_ignored_moto() { _tl_stuck moto start-after-ignored mv; }
test_trust_listing_rm_start_after_ignored_emu() { _tl_stuck emu start-after-ignored rm; }
test_trust_listing_rm_start_after_ignored_moto() { _tl_stuck moto start-after-ignored rm; }
test_trust_listing_sync_start_after_ignored_emu() { _tl_stuck emu start-after-ignored sync; }
test_trust_listing_sync_start_after_ignored_moto() { _tl_stuck moto start-after-ignored sync; }
test_trust_listing_sync_delete_start_after_ignored_emu() { _tl_stuck emu start-after-ignored sync-delete; }
test_trust_listing_sync_delete_start_after_ignored_moto() { _tl_stuck moto start-after-ignored sync-delete; }

# ListObjectVersions pages with key-marker and version-id-marker, not tokens:
# the same marker pair sent back (token-repeat) must end ls/du/rm --all-versions.
_tl_versions_stuck() {
    local store=$1 verb=$2 want=255
    _tl_once
    hp_start "$store" token-repeat,max-keys=2
    t_new_bucket b
    t_versioning "$b" Enabled
    _tl_put "$b" a/1 a/2 a/3 a/4 a/1 a/2 a/3 a/4 b/important
    case $verb in
        ls) _tl_run ls --all-versions "s3://$b/a/" ;;
        du) _tl_run du --all-versions "s3://$b/a/" ;;
        rm) _tl_run rm -r --all-versions "s3://$b/a/"; want=1 ;;
    esac
    [ "$T_RC" = "$want" ] || t_fail "$verb --all-versions through token-repeat: exit $T_RC, expected $want"
    assert_lines 1 "$T_ERR" "stderr: one error line"
    assert_match "$T_ERR" '^(s3c: ERROR "[^"]*": |fatal error: )ListObjectVersions: .*(a second time|went back to)' \
        "the error names the listing and says why"
    grep -qxF b/important <<<"$(_tl_keys "$b")" || t_fail "s3://$b/b/important is gone"
    t_note "$verb --all-versions on $store: exit $T_RC in ${TL_SECS}s: $T_ERR"
}

test_trust_listing_ls_versions_marker_repeat_emu() { _tl_versions_stuck emu ls; }
test_trust_listing_ls_versions_marker_repeat_moto() { _tl_versions_stuck moto ls; }
test_trust_listing_du_versions_marker_repeat_emu() { _tl_versions_stuck emu du; }
test_trust_listing_du_versions_marker_repeat_moto() { _tl_versions_stuck moto du; }
test_trust_listing_rm_versions_marker_repeat_emu() { _tl_versions_stuck emu rm; }
test_trust_listing_rm_versions_marker_repeat_moto() { _tl_versions_stuck moto rm; }
