# tests/e2e/test_dropin_versions.sh — issue 23 item 3: --version-id on cp,
# cat, head, presign and du, as s5cmd offers it, so an old version can be read.
# Each test writes two versions of a key and reads the OLD one, checked
# against what was written (bytes, metadata, tags) and against the AWS CLI's
# s3api get-object/head-object --version-id on the same store; the same runs on
# moto's server, an S3 model written by others.
# shellcheck shell=bash

# _tv_old_version BUCKET KEY: the key's old (not latest) version ids, as the AWS CLI lists them.
_tv_old_version() {
    awsx s3api list-object-versions --bucket "$1" --prefix "$2" |
        jq -r --arg k "$2" '.Versions[] | select(.Key == $k and .IsLatest == false) | .VersionId'
}

# _tv_seed BUCKET: a versioned bucket whose keys k (small) and big (12 MB in 3 parts, then 11 MB)
# each have an old version under a new one; the old ones have metadata gen=old and big's old
# version the tag gen=old. Sets VK and VB, the old versions' ids.
_tv_seed() {
    local b=$1
    t_versioning "$b" Enabled
    printf 'old bytes\n' > old.txt
    printf 'new bytes, longer\n' > new.txt
    assert_ok s3c cp --metadata gen=old --content-type text/x-old old.txt "s3://$b/k"
    assert_ok s3c cp --metadata gen=new --content-type text/x-new new.txt "s3://$b/k"
    assert_ok s3c cp --metadata gen=old --part-size 5MiB "$(t_data ver-big-old 12000000)" "s3://$b/big"
    assert_ok s3c cp --metadata gen=new "$(t_data ver-big-new 11000000)" "s3://$b/big"
    VK=$(_tv_old_version "$b" k)
    VB=$(_tv_old_version "$b" big)
    if [ -z "$VK" ] || [ -z "$VB" ]; then
        t_fail "no old versions listed: k '$VK', big '$VB'"
    fi
    assert_ok awsx s3api put-object-tagging --bucket "$b" --key big --version-id="$VB" \
        --tagging 'TagSet=[{Key=gen,Value=old}]'
}

# cp --version-id downloads the old version, whole and in ranged parts, with the bytes the AWS CLI's
# get-object --version-id gets; cat writes it; the latest is still what a plain cp reads.
test_dropin_versions_download_and_cat_read_the_old_version() {
    local b
    t_new_bucket b
    _tv_seed "$b"
    assert_ok s3c cp --version-id "$VK" "s3://$b/k" got.txt
    assert_contains "$T_OUT" "download: s3://$b/k to ./got.txt"
    assert_eq "$(cat old.txt)" "$(cat got.txt)" "cp --version-id of the old version"
    assert_ok awsx s3api get-object --bucket "$b" --key k --version-id="$VK" aws.txt
    cmp -s got.txt aws.txt || t_fail "s3c's download differs from the AWS CLI's get-object --version-id"
    assert_ok s3c cp "s3://$b/k" latest.txt
    assert_eq "$(cat new.txt)" "$(cat latest.txt)" "cp without --version-id: the latest"
    # In ranged parts: every range of the old version (a newer one is there to be read by mistake).
    assert_ok s3c cp --part-size 5MiB --version-id "$VB" "s3://$b/big" big.got
    cmp -s big.got "$(t_data ver-big-old 12000000)" || t_fail "the old 12 MB version, downloaded in parts, differs"
    assert_ok s3c cat --version-id "$VK" "s3://$b/k"
    assert_eq "$(cat old.txt)" "$T_OUT" "cat --version-id"
    assert_ok s3c cat --part-size 5MiB --version-id "$VB" "s3://$b/big"
    cmp -s "$T_DIR/.out" "$(t_data ver-big-old 12000000)" || t_fail "cat --version-id of the old 12 MB version differs"
    assert_ok s3c cp --version-id "$VK" "s3://$b/k" -
    assert_eq "$(cat old.txt)" "$T_OUT" "cp --version-id to stdout"
}

# An S3 to S3 copy of the old version: CopyObject and, in parts, UploadPartCopy (x-amz-copy-source
# ...?versionId=) copy its bytes, its metadata and its tags, not the latest's; onto its own key, it
# is the newest again.
test_dropin_versions_copy_copies_the_old_version() {
    local b n0
    t_new_bucket b
    _tv_seed "$b"
    assert_ok s3c cp --version-id "$VK" "s3://$b/k" "s3://$b/k-old"
    assert_contains "$T_OUT" "copy: s3://$b/k to s3://$b/k-old"
    t_get "$b" k-old k-old.txt
    assert_eq "$(cat old.txt)" "$(cat k-old.txt)" "CopyObject of the old version"
    assert_eq "old text/x-old" "$(t_head_header "$b" k-old x-amz-meta-gen) $(t_head_header "$b" k-old Content-Type)" \
        "the copy's metadata"
    n0=$(t_emu_ops UploadPartCopy)
    assert_ok s3c cp --part-size 5MiB --version-id "$VB" "s3://$b/big" "s3://$b/big-old"
    t_assert_emu_ops UploadPartCopy "$n0" 3
    t_get "$b" big-old big-old.got
    cmp -s big-old.got "$(t_data ver-big-old 12000000)" || t_fail "the multipart copy of the old version differs"
    assert_eq old "$(t_head_header "$b" big-old x-amz-meta-gen)" "the multipart copy's metadata"
    assert_ok awsx s3api get-object-tagging --bucket "$b" --key big-old
    assert_eq "gen=old" "$(jq -r '.TagSet[] | "\(.Key)=\(.Value)"' <<<"$T_OUT")" "the multipart copy's tags"
    # Onto its own key: how S3 restores an old version (no "copy to itself" refusal; a plain copy
    # of the key onto itself still gets one).
    assert_ok s3c cp --version-id "$VK" "s3://$b/k" "s3://$b/k"
    assert_ok s3c cat "s3://$b/k"
    assert_eq "$(cat old.txt)" "$T_OUT" "the key after the old version was copied onto it"
    assert_exit 1 s3c cp "s3://$b/k" "s3://$b/k"
    assert_contains "$T_ERR" "source and destination are the same object"
}

# head --version-id prints the old version's metadata, as the AWS CLI's head-object --version-id;
# presign --version-id signs a URL of the old version; du --version-id counts it alone; ls
# --all-versions lists the ids the AWS CLI lists.
test_dropin_versions_head_presign_du_ls() {
    local b f url
    t_new_bucket b
    _tv_seed "$b"
    assert_ok s3c head --version-id "$VK" "s3://$b/k"
    local mine=$T_OUT
    assert_eq "$VK 10 old text/x-old" "$(jq -r '"\(.VersionId) \(.ContentLength) \(.Metadata.gen) \(.ContentType)"' <<<"$mine")" \
        "head --version-id"
    assert_ok awsx s3api head-object --bucket "$b" --key k --version-id="$VK"
    for f in VersionId ContentLength ETag LastModified ContentType Metadata; do
        assert_eq "$(jq -c ".$f" <<<"$T_OUT")" "$(jq -c ".$f" <<<"$mine")" "head's $f, s3c's against the AWS CLI's"
    done
    assert_ok s3c presign --version-id "$VK" "s3://$b/k"
    url=$T_OUT
    assert_contains "$url" "versionId=$VK"
    assert_ok curl -sS --fail -o presigned.txt "$url"
    assert_eq "$(cat old.txt)" "$(cat presigned.txt)" "the presigned URL's bytes"
    assert_ok s3c du --version-id "$VB" "s3://$b/big"
    assert_eq "12000000 bytes in 1 objects: s3://$b/big" "$T_OUT" "du --version-id"
    assert_ok s3c du --all-versions "s3://$b/big"
    assert_eq "23000000 bytes in 2 objects: s3://$b/big" "$T_OUT" "du --all-versions"
    assert_ok s3c ls --all-versions --json "s3://$b/"
    assert_eq "$(awsx s3api list-object-versions --bucket "$b" | jq -r '.Versions[] | "\(.Key) \(.VersionId)"' | sort)" \
        "$(jq -r '"\(.key | sub("^s3://[^/]*/"; "")) \(.version_id)"' <<<"$T_OUT" | sort)" \
        "ls --all-versions --json: s3c's ids against the AWS CLI's"
}

# A version the key does not have (one deleted): the store's NoSuchVersion in the AWS CLI's words,
# the operation named, exit 1 (head: 254, as s3api), and nothing left at the destination.
test_dropin_versions_missing_version_fails_cleanly() {
    local b gone
    t_new_bucket b
    _tv_seed "$b"
    assert_ok s3c cp new.txt "s3://$b/k"
    gone=$(_tv_old_version "$b" k | grep -v "^$VK\$" | head -n 1)
    assert_ok s3c rm --version-id "$gone" "s3://$b/k"
    t_cmd awsx s3api get-object --bucket "$b" --key k --version-id="$gone" aws.txt
    local aws_says=""
    # Against Ceph RGW the CLI 2.9 fails some error replies with a Python error of its own
    # ("argument of type 'NoneType' is not iterable", 255): nothing to compare the words with then.
    if grep -q "NoneType" <<<"$T_ERR"; then
        t_note "the AWS CLI failed on its own error, its words not compared"
    else
        assert_eq 254 "$T_RC" "the AWS CLI's exit"
        assert_contains "$T_ERR" "(NoSuchVersion)"
        aws_says=${T_ERR##*operation: }
    fi
    mkdir dl
    assert_exit 1 s3c cp --version-id "$gone" "s3://$b/k" dl/
    assert_contains "$T_OUT$T_ERR" "download failed: s3://$b/k to dl/ An error occurred (NoSuchVersion) when calling the HeadObject operation: $aws_says"
    assert_eq "" "$(ls -A dl)" "what the failed download left"
    assert_exit 1 s3c cat --version-id "$gone" "s3://$b/k"
    assert_eq "" "$T_OUT" "cat's stdout"
    assert_contains "$T_ERR" "(NoSuchVersion)"
    assert_exit 1 s3c cp --version-id "$gone" "s3://$b/k" "s3://$b/k-copy"
    assert_contains "$T_OUT$T_ERR" "copy failed: s3://$b/k to s3://$b/k-copy An error occurred (NoSuchVersion)"
    t_cmd s3curl HEAD "/$b/k-copy" && t_fail "the failed copy made s3://$b/k-copy"
    assert_exit 254 s3c head --version-id "$gone" "s3://$b/k"
    assert_contains "$T_ERR" "An error occurred (NoSuchVersion) when calling the HeadObject operation"
    assert_exit 1 s3c du --version-id "$gone" "s3://$b/k"
    assert_contains "$T_ERR" "no version $gone of s3://$b/k"
}

# What --version-id cannot mean is refused before anything is sent (exit 252): many objects,
# a local source, mv (s5cmd's mv has no --version-id), an empty id, --all-versions beside it, and a
# directory bucket (S3 Express keeps no versions).
test_dropin_versions_refused_where_it_means_nothing() {
    local d=b--use1-az4--x-s3
    touch f
    assert_exit 252 s3c cp -r --version-id v s3://b/p/ dl/
    assert_contains "$T_ERR" "--version-id takes one object"
    assert_exit 252 s3c cp --version-id v 's3://b/p*' dl/
    assert_exit 252 s3c cp --version-id v --from-manifest m.txt s3://b/ dl/
    assert_exit 252 s3c cp --version-id v f s3://b/k
    assert_contains "$T_ERR" "--version-id needs an S3 source"
    assert_exit 252 s3c mv --version-id v s3://b/k f2
    assert_exit 252 s3c cp --version-id '' s3://b/k f2
    assert_exit 252 s3c cat --version-id v 's3://b/p*'
    assert_exit 252 s3c cat --version-id v s3://b/p/
    assert_exit 252 s3c du --version-id v --all-versions s3://b/k
    assert_exit 252 s3c du --version-id v 's3://b/k*'
    assert_exit 252 s3c head --version-id v s3://b
    assert_exit 252 s3c presign --version-id '' s3://b/k
    for cmd in "cp --version-id v s3://$d/k f2" "cp --version-id v s3://$d/k s3://b/k" "cat --version-id v s3://$d/k" \
        "head --version-id v s3://$d/k" "presign --version-id v s3://$d/k" "du --version-id v s3://$d/k" \
        "rm --version-id v s3://$d/k"; do
        # shellcheck disable=SC2086  # the words of the command
        assert_exit 252 s3c $cmd
        assert_contains "$T_ERR" "--version-id cannot be used with the S3 Express directory bucket $d (no versioning: only \"null\")"
    done
    [ ! -e f2 ] || t_fail "a refused command wrote f2"
}

# The same reads on moto's server (its own, on a free port), whose versions and ids are its own.
test_dropin_versions_moto() {
    t_store_is s3emu || t_skip "runs once, in the s3emu pass"
    t_own_store moto
    # shellcheck disable=SC2034  # read by lib.sh (awsx, s3curl, t_store_is)
    S3C_TEST_ENDPOINT=$OWN_URL S3C_TEST_STORE=moto
    export AWS_ENDPOINT_URL=$OWN_URL
    local t i=0
    # Each in a directory and a subshell of its own (one failing does not stop the others), its
    # buckets numbered apart (t_bucket counts in the subshell).
    for t in test_dropin_versions_download_and_cat_read_the_old_version test_dropin_versions_copy_copies_the_old_version \
        test_dropin_versions_head_presign_du_ls test_dropin_versions_missing_version_fails_cleanly; do
        i=$((i + 1))
        mkdir "m$i"
        # shellcheck disable=SC2034  # read by t_bucket
        (cd "m$i" && T_NBUCKETS=$((i * 10)) && "$t")
    done
}
