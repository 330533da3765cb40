# tests/e2e/test_rm.sh — issue 5: `s3c rm` end to end.
# shellcheck shell=bash
#
# Every test checks what is left in the bucket afterwards (with the AWS CLI or
# curl, never with s3c), as well as the lines and the exit code. On s3emu the
# DeleteObjects requests are counted through /_s3emu/stats, and per-key
# failures come from its `deny` fault; on Ceph from a bucket policy.

# _rm_keys BUCKET: every key as a JSON string, one a line, sorted (listed with curl).
_rm_keys() {
    t_list_keys "$1" | jq -Rc 'gsub("&lt;"; "<") | gsub("&gt;"; ">") | gsub("&quot;"; "\"")
        | gsub("&apos;"; "'"'"'") | gsub("&amp;"; "&")' | LC_ALL=C sort
}

# _rm_put BUCKET KEY TEXT: upload TEXT as KEY with curl, every byte of the key
# but '/' percent-encoded (so curl neither globs nor signs what the store re-encodes).
_rm_put() {
    local path
    path=$(jq -rn --arg k "$2" '$k | split("/") | map(@uri | gsub("!"; "%21") | gsub("[*]"; "%2A")
        | gsub("'"'"'"; "%27") | gsub("[(]"; "%28") | gsub("[)]"; "%29")) | join("/")')
    printf '%s' "$3" > "$T_DIR/.put"
    t_cmd s3curl PUT "/$1/$path" -T "$T_DIR/.put" || t_fail "could not put s3://$1/$2"
}

# _rm_emu_deletes: DeleteObjects requests s3emu has answered so far.
_rm_emu_deletes() {
    curl -sS "$S3C_TEST_ENDPOINT/_s3emu/stats" | jq '.ops.DeleteObjects // 0'
}

# _rm_emu_faults SPEC: set s3emu's fault rules ("" clears them).
_rm_emu_faults() {
    curl -sS --fail-with-body -X POST --data-binary "faults=$1" \
        "$S3C_TEST_ENDPOINT/_s3emu/config" >/dev/null || t_fail "s3emu refused faults=$1"
}

test_rm_one_object() {
    local b
    t_new_bucket b
    t_put_text "$b" a "a"
    t_put_text "$b" b "b"
    t_cmd s3curl PUT "/$b/dir/" --data-binary "" || t_fail "could not put dir/"

    assert_ok s3c rm "s3://$b/a"
    assert_eq "delete: s3://$b/a" "$T_OUT"
    assert_eq "" "$T_ERR" "stderr"
    assert_eq "$(printf '"%s"\n' b dir/)" "$(_rm_keys "$b")" "keys left"

    # A missing key: S3 answers success, and so do s3c and the AWS CLI, with the same line.
    assert_same_output s3c rm "s3://$b/nothing-here" -- awsx s3 rm "s3://$b/nothing-here"
    # A "directory" marker is an object like any other.
    assert_ok s3c rm "s3://$b/dir/"
    assert_eq "delete: s3://$b/dir/" "$T_OUT"
    assert_eq '"b"' "$(_rm_keys "$b")" "keys left"

    # --quiet prints nothing; --json one object per line.
    assert_ok s3c --quiet rm "s3://$b/b"
    assert_eq "" "$T_OUT" "--quiet stdout"
    assert_ok s3c --json rm "s3://$b/b"
    assert_json_lines "$T_OUT"
    assert_eq "delete true s3://$b/b" "$(jq -r '"\(.operation) \(.success) \(.source)"' <<<"$T_OUT")"
    assert_eq "" "$(_rm_keys "$b")" "keys left"
}

test_rm_recursive_2500_keys_in_3_batches() {
    local b before i
    t_new_bucket b
    mkdir -p tree/pre/sub
    for i in $(seq 1 2500); do : > "tree/pre/sub/k$i"; done
    t_seed_tree "$b" tree
    t_put_text "$b" prefix-sibling x         # shares the text "pre", not the directory
    t_put_text "$b" other/x x
    t_store_is s3emu && before=$(_rm_emu_deletes)

    assert_ok s3c rm --recursive "s3://$b/pre"
    assert_lines 2500 "$T_OUT" "delete lines"
    assert_contains "$T_OUT" "delete: s3://$b/pre/sub/k1777"
    assert_eq "" "$T_ERR" "stderr"
    assert_ok awsx s3 ls --recursive "s3://$b/"
    assert_eq 2 "$(wc -l <<<"$T_OUT")" "objects left"
    assert_contains "$T_OUT" "prefix-sibling"
    assert_contains "$T_OUT" "other/x"
    if t_store_is s3emu; then
        # 2,500 keys: batches of 1,000, 1,000 and 500.
        assert_eq 3 "$(($(_rm_emu_deletes) - before))" "DeleteObjects requests"
    fi

    # The whole bucket.
    assert_ok s3c rm -r "s3://$b"
    assert_lines 2 "$T_OUT" "delete lines"
    assert_eq "" "$(_rm_keys "$b")" "keys left"
}

test_rm_wildcards() {
    local b k
    t_new_bucket b
    for k in logs/2024-01.gz logs/2024-02.gz logs/2024-02.txt logs/2023-12.gz logs/old/2024-03.gz \
             'lit*star' other.gz; do
        _rm_put "$b" "$k" x
    done

    # '*' crosses '/', and the match is anchored at both ends.
    assert_ok s3c rm "s3://$b/logs/2024-*.gz"
    assert_eq "$(printf 'delete: s3://%s/%s\n' "$b" logs/2024-01.gz "$b" logs/2024-02.gz)" "$T_OUT"
    assert_ok s3c rm "s3://$b/logs/*/202?-0?.gz"
    assert_eq "delete: s3://$b/logs/old/2024-03.gz" "$T_OUT"
    assert_eq "$(printf '"%s"\n' 'lit*star' logs/2023-12.gz logs/2024-02.txt other.gz)" "$(_rm_keys "$b")"
    # A pattern that matches nothing deletes nothing, and says so: exit 1 (as cp's).
    assert_exit 1 s3c rm "s3://$b/nomatch*"
    assert_eq "" "$T_OUT"
    assert_contains "$T_ERR" "no object matches s3://$b/nomatch*"
    # --raw: the '*' is part of the key.
    assert_ok s3c rm --raw "s3://$b/lit*star"
    assert_eq "$(printf '"%s"\n' logs/2023-12.gz logs/2024-02.txt other.gz)" "$(_rm_keys "$b")"
}

test_rm_exclude_include_as_the_aws_cli() {
    local b k
    t_new_bucket b
    for k in d/a.txt d/b.log d/c.txt d/sub/e.txt d/sub/f.log top.txt; do
        t_put_text "$b" "$k" x
    done
    # The same objects and the same lines as the AWS CLI's dry run, filter for filter.
    assert_same_output s3c rm -r "s3://$b/d/" --exclude '*' --include '*.txt' --exclude 'sub/*' --dryrun \
        -- awsx s3 rm --recursive "s3://$b/d/" --exclude '*' --include '*.txt' --exclude 'sub/*' --dryrun
    assert_lines 2 "$T_OUT" "dry-run lines"
    assert_same_output s3c rm -r "s3://$b/d/" --exclude '*.txt' --dryrun \
        -- awsx s3 rm --recursive "s3://$b/d/" --exclude '*.txt' --dryrun
    assert_lines 2 "$T_OUT" "dry-run lines"

    assert_ok s3c rm -r "s3://$b/d/" --exclude '*' --include '*.txt' --exclude 'sub/*'
    assert_eq "$(printf 'delete: s3://%s/%s\n' "$b" d/a.txt "$b" d/c.txt)" "$T_OUT"
    # A single object is filtered by its name too.
    assert_ok s3c rm "s3://$b/top.txt" --exclude '*.txt'
    assert_eq "" "$T_OUT"
    assert_eq "$(printf '"%s"\n' d/b.log d/sub/e.txt d/sub/f.log top.txt)" "$(_rm_keys "$b")"
    # Wildcards and filters together: names are relative to the pattern's directory.
    assert_ok s3c rm "s3://$b/d/*" --exclude 'sub/*.txt'
    assert_eq "$(printf 'delete: s3://%s/%s\n' "$b" d/b.log "$b" d/sub/f.log)" "$T_OUT"
    assert_eq "$(printf '"%s"\n' d/sub/e.txt top.txt)" "$(_rm_keys "$b")"
}

test_rm_dryrun_deletes_nothing() {
    local b before keys
    t_new_bucket b
    t_put_text "$b" a x
    t_put_text "$b" p/b x
    t_put_text "$b" p/c x
    keys=$(_rm_keys "$b")
    t_store_is s3emu && before=$(_rm_emu_deletes)

    assert_ok s3c rm --dryrun -r "s3://$b"
    assert_eq "$(printf '(dryrun) delete: s3://%s/%s\n' "$b" a "$b" p/b "$b" p/c)" "$T_OUT"
    assert_ok s3c rm --dryrun "s3://$b/a" "s3://$b/p/*"
    assert_lines 3 "$T_OUT" "dry-run lines"
    assert_same_output s3c rm --dryrun "s3://$b/a" -- awsx s3 rm --dryrun "s3://$b/a"
    assert_ok s3c --json rm --dryrun "s3://$b/a"
    assert_eq "true true" "$(jq -r '"\(.success) \(.dryrun)"' <<<"$T_OUT")"
    assert_eq "$keys" "$(_rm_keys "$b")" "keys after dry runs"
    if t_store_is s3emu; then
        assert_eq "$before" "$(_rm_emu_deletes)" "DeleteObjects requests"
    fi
}

test_rm_hostile_keys() {
    local b n k
    local keys=(
        'sp ace/and&amp'
        'lt<gt>'
        'plus+pct%20%'
        'été/日本語/😀'
        'tab	in'
        $'ctl\x01char'           # XML 1.0 cannot carry it: a DeleteObject of its own
    )
    local odd='[brackets] {braces} #hash ?q=1' quote='quote"apos'"'"'!*()'
    t_new_bucket b
    mkdir -p tree
    for k in "${keys[@]}"; do
        mkdir -p "tree/$(dirname "$k")"
        printf x > "tree/$k"
    done
    t_seed_tree "$b" tree
    _rm_put "$b" "$odd" x
    _rm_put "$b" "$quote" x
    n=$(_rm_keys "$b" | wc -l)
    assert_eq $((${#keys[@]} + 2)) "$n" "keys seeded"

    # One by one, as literal arguments (--raw: '?' is part of a key). The
    # result lines show control characters escaped (docs/OUTPUT.md).
    assert_ok s3c rm --raw "s3://$b/${keys[0]}" "s3://$b/$odd" "s3://$b/${keys[5]}"
    assert_eq "$(printf 'delete: s3://%s/%s\n' "$b" "${keys[0]}" "$b" "$odd" "$b" 'ctl\x01char' | LC_ALL=C sort)" \
        "$(LC_ALL=C sort <<<"$T_OUT")"
    assert_eq $((n - 3)) "$(_rm_keys "$b" | wc -l)" "keys left"
    # The rest by listing: every name comes back out of the XML as it went in.
    assert_ok s3c rm -r "s3://$b/"
    assert_lines $((n - 3)) "$T_OUT" "delete lines"
    for k in "${keys[@]:1:4}" "$quote"; do
        assert_contains "$T_OUT" "delete: s3://$b/${k//$'\t'/\\t}"
    done
    assert_eq "" "$T_ERR" "stderr"
    assert_eq "" "$(_rm_keys "$b")" "keys left"
}

test_rm_per_key_failure() {
    local b policy
    t_new_bucket b
    t_put_text "$b" keep/a x
    t_put_text "$b" deny/b x
    t_put_text "$b" keep/c x
    if t_store_is s3emu; then
        _rm_emu_faults "deny@op=DeleteObjects,bucket=$b,key=deny/*"
    else
        policy='{"Version":"2012-10-17","Statement":[{"Effect":"Deny","Principal":"*",
                 "Action":"s3:DeleteObject","Resource":"arn:aws:s3:::'"$b"'/deny/*"}]}'
        assert_ok awsx s3api put-bucket-policy --bucket "$b" --policy "$policy"
    fi

    t_cmd s3c rm -r "s3://$b"
    local rc=$T_RC out=$T_OUT err=$T_ERR
    if t_store_is s3emu; then
        _rm_emu_faults ""
    else
        assert_ok awsx s3api delete-bucket-policy --bucket "$b"
    fi
    T_RC=$rc T_OUT=$out T_ERR=$err
    [ "$T_RC" = 1 ] || t_fail "expected exit 1, got $T_RC"
    # The others went; the refused key is named on one line with its code, and stays.
    assert_eq "$(printf 'delete: s3://%s/%s\n' "$b" keep/a "$b" keep/c)" "$T_OUT"
    assert_lines 1 "$T_ERR" "error lines"
    assert_match "$T_ERR" "^delete failed: s3://$b/deny/b An error occurred \(AccessDenied\)"
    assert_eq '"deny/b"' "$(_rm_keys "$b")" "keys left"
}

test_rm_missing_bucket_is_one_line() {
    local nob
    t_bucket nob                                # never created
    assert_exit 1 s3c rm "s3://$nob/k"
    assert_eq "" "$T_OUT"
    assert_lines 1 "$T_ERR" "error lines"
    assert_contains "$T_ERR" "NoSuchBucket"
    assert_exit 1 s3c rm -r "s3://$nob/p/"
    assert_lines 1 "$T_ERR" "error lines"
    assert_contains "$T_ERR" "NoSuchBucket"
}

test_rm_several_arguments_share_batches() {
    local b before
    t_new_bucket b
    t_put_text "$b" a x
    t_put_text "$b" b x
    t_put_text "$b" c1 x
    t_put_text "$b" c2 x
    t_put_text "$b" d/e x
    t_put_text "$b" keep x
    t_store_is s3emu && before=$(_rm_emu_deletes)

    assert_ok s3c rm "s3://$b/a" "s3://$b/b" "s3://$b/c*" "s3://$b/d/*"
    assert_eq "$(printf 'delete: s3://%s/%s\n' "$b" a "$b" b "$b" c1 "$b" c2 "$b" d/e)" \
        "$(LC_ALL=C sort <<<"$T_OUT")"
    assert_eq '"keep"' "$(_rm_keys "$b")" "keys left"
    # Five keys from four arguments: one DeleteObjects.
    if t_store_is s3emu; then
        assert_eq 1 "$(($(_rm_emu_deletes) - before))" "DeleteObjects requests"
    fi
}

test_rm_version_id() {
    local b v1 v2 marker
    t_new_bucket b
    assert_ok awsx s3api put-bucket-versioning --bucket "$b" --versioning-configuration Status=Enabled
    t_put_text "$b" k one
    t_put_text "$b" k two
    assert_ok awsx s3api list-object-versions --bucket "$b" --output json
    v1=$(jq -r '.Versions[] | select(.IsLatest | not) | .VersionId' <<<"$T_OUT")
    v2=$(jq -r '.Versions[] | select(.IsLatest) | .VersionId' <<<"$T_OUT")
    [ -n "$v1" ] && [ -n "$v2" ] || t_fail "no versions listed"

    assert_ok s3c rm "s3://$b/k" --version-id "$v1"
    assert_eq "delete: s3://$b/k (version $v1)" "$T_OUT"
    assert_ok awsx s3api list-object-versions --bucket "$b" --output json
    assert_eq "$v2" "$(jq -r '[.Versions[].VersionId] | join(" ")' <<<"$T_OUT")" "versions left"
    assert_eq "null" "$(jq -c '.DeleteMarkers' <<<"$T_OUT")" "delete markers"
    # Without a version: a delete marker, the version stays.
    assert_ok s3c rm "s3://$b/k"
    assert_ok awsx s3api list-object-versions --bucket "$b" --output json
    assert_eq 1 "$(jq '.DeleteMarkers | length' <<<"$T_OUT")" "delete markers"
    assert_eq "$v2" "$(jq -r '[.Versions[].VersionId] | join(" ")' <<<"$T_OUT")" "versions left"
    marker=$(jq -r '.DeleteMarkers[0].VersionId' <<<"$T_OUT")
    # Delete the last version and the marker (in one batch) so the bucket can go.
    assert_ok s3c rm "s3://$b/k" --version-id "$v2"
    assert_ok s3c rm "s3://$b/k" --version-id "$marker"
    assert_ok awsx s3api list-object-versions --bucket "$b" --output json
    # (The AWS CLI prints nothing at all for an empty listing.)
    assert_eq "0 0" "$(jq -r '"\((.Versions // []) | length) \((.DeleteMarkers // []) | length)"' <<<"${T_OUT:-"{}"}")" \
        "versions and markers left"
}

# _rm_versions BUCKET: "KEY VERSION-OR-MARKER" lines of every version and delete marker, sorted.
_rm_versions() {
    awsx s3api list-object-versions --bucket "$1" --output json >"$T_DIR/.versions" ||
        t_fail "list-object-versions failed"
    jq -r '((.Versions // [])[] | "\(.Key) v"), ((.DeleteMarkers // [])[] | "\(.Key) m")' \
        <"$T_DIR/.versions" 2>/dev/null | LC_ALL=C sort
}

test_rm_all_versions() {
    local b
    t_new_bucket b
    t_put_text "$b" old x                       # before versioning: version "null"
    assert_ok awsx s3api put-bucket-versioning --bucket "$b" --versioning-configuration Status=Enabled
    t_put_text "$b" k one
    t_put_text "$b" k two
    t_cmd s3curl DELETE "/$b/k" || t_fail "delete marker"
    t_put_text "$b" k2 x                        # shares k's text, not its key
    t_put_text "$b" d/a one
    t_put_text "$b" d/a two
    t_put_text "$b" d/b.log x
    t_put_text "$b" d/c.txt x
    assert_eq "$(printf '%s\n' 'd/a v' 'd/a v' 'd/b.log v' 'd/c.txt v' 'k m' 'k v' 'k v' 'k2 v' 'old v')" \
        "$(_rm_versions "$b")" "versions seeded"

    # One key: its two versions and its delete marker, not k2's.
    assert_ok s3c rm --all-versions "s3://$b/k"
    assert_lines 3 "$T_OUT" "delete lines"
    assert_match "$T_OUT" "^delete: s3://$b/k \(version [^ ]+\)\$"
    # A prefix, filtered: d/b.log stays.
    assert_ok s3c rm --all-versions -r "s3://$b/d" --exclude '*.log'
    assert_lines 3 "$T_OUT" "delete lines"
    assert_not_contains "$T_OUT" "d/b.log"
    # A wildcard; the pre-versioning object goes as version "null".
    assert_ok s3c rm --all-versions "s3://$b/ol?"
    assert_eq "delete: s3://$b/old (version null)" "$T_OUT"
    assert_eq "$(printf '%s\n' 'd/b.log v' 'k2 v')" "$(_rm_versions "$b")" "versions left"
    assert_exit 252 s3c rm --all-versions --version-id v1 "s3://$b/k2"
    assert_ok s3c rm --all-versions -r "s3://$b"
    assert_eq "" "$(_rm_versions "$b")" "versions left"
}

test_rm_usage_errors() {
    local b
    t_bucket b
    printf x > local.txt
    assert_exit 252 s3c rm local.txt
    assert_contains "$T_ERR" "not an S3 path"
    [ -f local.txt ] || t_fail "rm touched a local file"
    assert_exit 252 s3c rm "s3://$b"
    assert_contains "$T_ERR" "--recursive"
    assert_exit 252 s3c rm
    assert_exit 252 s3c rm -r "s3://$b/p" --version-id v1
    assert_exit 252 s3c rm "s3://$b/a" "s3://$b/b" --version-id v1
    assert_exit 252 s3c rm --no-such-flag "s3://$b/a"
}

# rm -r --all-versions deletes every version when a page of the listing ends
# partway through one key's versions: the page's last version is the next
# page's marker, and it is deleted only once that page is in (a store may
# skip the rest of the key for a marker that names a deleted version, as
# s3emu does; 2 of 3,000 versions were left before).
test_rm_all_versions_pages_ending_inside_a_key() {
    local b i n
    t_new_bucket b
    t_versioning "$b" Enabled
    mkdir tree
    for i in $(seq 1 1000); do printf %s "$i" > "tree/k$i"; done
    for i in 1 2 3; do assert_ok s3c cp -r --quiet tree "s3://$b/p/"; done
    assert_ok s3c ls --all-versions -r "s3://$b/p/"
    assert_lines 3000 "$T_OUT" "three versions of each key"
    assert_ok s3c rm -r --all-versions --quiet "s3://$b/p/"
    t_cmd s3c ls --all-versions -r "s3://$b/p/"
    n=$(grep -c . <<<"$T_OUT" || true)
    assert_eq 0 "$n" "versions left"
}
