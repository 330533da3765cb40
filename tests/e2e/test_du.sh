# tests/e2e/test_du.sh — issue 5: du, as s5cmd prints it ("N bytes in N
# objects: SOURCE"), totals checked against the AWS CLI's
# `aws s3 ls --recursive --summarize` and `aws s3api list-object-versions`.
# (Uses _ls_versioned and _ls_history of test_ls.sh: run.sh sources every
# test file before running any test.)
# shellcheck shell=bash

# _du_tree DIR: 1536 bytes in 5 objects under data/ (two levels), 10 more
# bytes in 2 objects elsewhere.
_du_tree() {
    mkdir -p "$1/data/sub" "$1/other"
    head -c 1000 /dev/zero > "$1/data/a.bin"
    head -c 500 /dev/zero > "$1/data/sub/b.bin"
    head -c 30 /dev/zero > "$1/data/sub/c.log"
    head -c 6 /dev/zero > "$1/data/d.log"
    : > "$1/data/empty"
    head -c 4 /dev/zero > "$1/other/x"
    head -c 6 /dev/zero > "$1/top"
}

# _du_aws_totals TEXT: "OBJECTS BYTES" from an `aws s3 ls --summarize` listing.
_du_aws_totals() {
    awk '/Total Objects:/ { n = $3 } /Total Size:/ { s = $3 } END { print n, s }' <<<"$1"
}

test_du_totals_like_aws_summarize() {
    local b
    t_new_bucket b du
    _du_tree t
    t_seed_tree "$b" t
    assert_ok awsx s3 ls --recursive --summarize "s3://$b/data/"
    assert_eq "5 1536" "$(_du_aws_totals "$T_OUT")" "aws s3 ls --summarize of data/"
    assert_ok s3c du "s3://$b/data/"
    assert_eq "1536 bytes in 5 objects: s3://$b/data/" "$T_OUT" "s3c du data/"
    # The whole bucket, and a prefix that is not a directory ("data" also matches "data/...").
    assert_ok awsx s3 ls --recursive --summarize "s3://$b"
    read -r n bytes <<<"$(_du_aws_totals "$T_OUT")"
    assert_eq "7 1546" "$n $bytes" "aws s3 ls --summarize of the bucket"
    assert_ok s3c du "s3://$b"
    assert_eq "$bytes bytes in $n objects: s3://$b" "$T_OUT" "s3c du of the bucket"
    assert_ok s3c du "s3://$b/dat"
    assert_eq "1536 bytes in 5 objects: s3://$b/dat" "$T_OUT" "s3c du of a partial prefix"
    # Pages of 2 keys add up the same.
    assert_ok s3c du --page-size 2 "s3://$b"
    assert_eq "$bytes bytes in $n objects: s3://$b" "$T_OUT" "s3c du --page-size 2"
    # --humanize as s5cmd writes sizes; JSON with s5cmd's field names.
    assert_ok s3c du --humanize "s3://$b/data/"
    assert_eq "1.5K bytes in 5 objects: s3://$b/data/" "$T_OUT" "s3c du --humanize"
    assert_same_output s3c du -H "s3://$b/data/" -- s3c du --human-readable "s3://$b/data/"
    assert_ok s3c du --json "s3://$b/data/"
    assert_eq "{\"source\":\"s3://$b/data/\",\"count\":5,\"size\":1536}" "$T_OUT" "s3c du --json"
    # Nothing there: zero, not an error (as `du` of an empty directory).
    assert_ok s3c du "s3://$b/nothing/"
    assert_eq "0 bytes in 0 objects: s3://$b/nothing/" "$T_OUT" "s3c du of an empty prefix"
}

test_du_wildcards_and_filters() {
    local b
    t_new_bucket b duwild
    _du_tree t
    t_seed_tree "$b" t
    assert_ok s3c du "s3://$b/data/*.bin"
    assert_eq "1500 bytes in 2 objects: s3://$b/data/*.bin" "$T_OUT" "s3c du 'data/*.bin'"
    assert_ok s3c du "s3://$b/*.log"
    assert_eq "36 bytes in 2 objects: s3://$b/*.log" "$T_OUT" "s3c du '*.log'"
    assert_ok s3c du "s3://$b/data/?.*"
    assert_eq "1006 bytes in 2 objects: s3://$b/data/?.*" "$T_OUT" "s3c du 'data/?.*'"
    # Filters: relative to the prefix, last match wins.
    assert_ok s3c du "s3://$b/data/" --exclude '*.log'
    assert_eq "1500 bytes in 3 objects: s3://$b/data/" "$T_OUT" "s3c du --exclude '*.log'"
    assert_ok s3c du "s3://$b/data/" --exclude '*' --include 'sub/*'
    assert_eq "530 bytes in 2 objects: s3://$b/data/" "$T_OUT" "s3c du --exclude '*' --include 'sub/*'"
    assert_exit 252 s3c du
    assert_exit 252 s3c du s3://
    local nb
    t_bucket nb nonexistent
    assert_exit 254 s3c du "s3://$nb/x"
    assert_contains "$T_ERR" NoSuchBucket "s3c du of a missing bucket"
}

test_du_group_by_storage_class() {
    local b
    t_new_bucket b dugroup
    t_put "$b" "a" "$(t_data du-100 100)"
    t_put "$b" "b" "$(t_data du-200 200)"
    if t_store_is s3emu; then
        # Ceph here knows only STANDARD; s3emu keeps any class it is given.
        t_put "$b" "c" "$(t_data du-300 300)" -H "x-amz-storage-class: STANDARD_IA"
        t_put "$b" "d" "$(t_data du-2000 2000)" -H "x-amz-storage-class: GLACIER"
        assert_ok s3c du --group "s3://$b"
        assert_eq "$(printf '%s\n' "2000 bytes in 1 objects: s3://$b [GLACIER]" \
                                   "300 bytes in 2 objects: s3://$b [STANDARD]" \
                                   "300 bytes in 1 objects: s3://$b [STANDARD_IA]")" "$T_OUT" "s3c du --group"
        assert_ok s3c du -g -H --json "s3://$b"
        assert_eq "GLACIER 1 2000,STANDARD 2 300,STANDARD_IA 1 300" \
            "$(jq -r '"\(.storage_class) \(.count) \(.size)"' <<<"$T_OUT" | paste -sd,)" "s3c du --group --json"
    fi
    # The classes the AWS CLI sees, grouped by hand, are what du --group prints.
    assert_ok awsx s3api list-objects-v2 --bucket "$b" --output json
    local want
    want=$(jq -r --arg b "$b" '.Contents | group_by(.StorageClass)[]
             | "\(map(.Size) | add) bytes in \(length) objects: s3://\($b) [\(.[0].StorageClass)]"' <<<"$T_OUT")
    assert_ok s3c du -g "s3://$b"
    assert_eq "$want" "$T_OUT" "s3c du --group against list-objects-v2"
}

test_du_all_versions() {
    local b aws
    _ls_versioned b
    _ls_history "$b"
    # Current objects: dir/a.txt (3), dir/c.gz (3), top.txt (3).
    assert_ok s3c du "s3://$b"
    assert_eq "9 bytes in 3 objects: s3://$b" "$T_OUT" "s3c du of a versioned bucket"
    # Every version, from the AWS CLI: delete markers are no objects.
    aws=$(awsx s3api list-object-versions --bucket "$b" --output json |
          jq -r '[(.Versions // [])[].Size] | "\(add) bytes in \(length) objects"')
    assert_eq "16 bytes in 7 objects" "$aws" "aws s3api list-object-versions totals"
    assert_ok s3c du --all-versions "s3://$b"
    assert_eq "$aws: s3://$b" "$T_OUT" "s3c du --all-versions"
    assert_ok s3c du --all-versions --page-size 1 "s3://$b/dir/"
    assert_eq "11 bytes in 5 objects: s3://$b/dir/" "$T_OUT" "s3c du --all-versions dir/ in pages of 1"
    assert_ok s3c du --all-versions -g "s3://$b/*.gz"
    assert_eq "5 bytes in 2 objects: s3://$b/*.gz [STANDARD]" "$T_OUT" "s3c du --all-versions -g '*.gz'"
}
