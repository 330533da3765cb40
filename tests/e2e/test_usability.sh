# tests/e2e/test_usability.sh — issue 14 item 10: small things a user sees.
# shellcheck shell=bash
#
# Content types as the AWS CLI sends them, one HEAD for one download, --stat
# when everything failed, --source-region, and a global option s3c does not
# know.

_u_stat() { curl -sS "$S3C_TEST_ENDPOINT/_s3emu/stats" | jq -r "$1"; }
_u_cat_sha() { s3c cat "$1" | sha256sum | cut -d' ' -f1; }

# .bin and names with no known extension get the Content-Type the AWS CLI's
# upload gives them (it guesses with Python's mimetypes).
test_usability_content_type_like_aws_cli() {
    local b f
    t_new_bucket b
    for f in data.bin blob.unknownext noext page.html; do printf 'x' > "$f"; done
    for f in data.bin blob.unknownext noext page.html; do
        assert_ok s3c cp "$f" "s3://$b/s3c/$f"
        assert_ok awsx s3 cp --no-progress "$f" "s3://$b/aws/$f"
        assert_eq "$(t_head_header "$b" "aws/$f" content-type)" "$(t_head_header "$b" "s3c/$f" content-type)" \
            "Content-Type of $f: AWS CLI vs s3c"
    done
    assert_eq application/octet-stream "$(t_head_header "$b" s3c/data.bin content-type)" "Content-Type of .bin"
}

# A single download of 30 MB (ranged) asks for the object's head once.
test_usability_one_head_per_download() {
    local b before after
    t_store_is s3emu || t_skip "counts requests with s3emu's stats"
    t_new_bucket b
    cp "$(t_data 30MB 30000000)" big
    t_put "$b" big big
    before=$(_u_stat '.ops.HeadObject // 0')
    assert_ok s3c cp "s3://$b/big" got
    after=$(_u_stat '.ops.HeadObject // 0')
    assert_file_sha256 got "$(t_sha256 big)"
    assert_eq 1 "$((after - before))" "HeadObject requests for one download"
    # The same to standard output, in ranges.
    before=$after
    assert_ok _u_cat_sha "s3://$b/big"
    after=$(_u_stat '.ops.HeadObject // 0')
    assert_eq "$(t_sha256 big)" "$T_OUT" "sha256 of the object to stdout"
    assert_eq 1 "$((after - before))" "HeadObject requests for one cat"
}

# --stat prints its table when nothing succeeded too.
test_usability_stat_when_everything_failed() {
    local b
    t_new_bucket b
    t_cmd s3c cp --stat "s3://$b/missing" got
    [ "$T_RC" != 0 ] || t_fail "a missing object was downloaded"
    assert_match "$T_OUT" '^Operation +Total +Error +Success +Bytes$' "--stat table"
    assert_match "$T_OUT" '^download +1 +1 +0 +0$' "--stat row"
    t_cmd s3c cp --stat -r "s3://$b/none/" got/
    assert_match "$T_OUT" '^Operation +Total +Error +Success +Bytes$' "--stat table of an empty prefix"
}

# --source-region: the source bucket's requests are signed for its region
# from the first, so no request is refused for the region (s3emu has regions;
# the Ceph of the tests has one zone group).
test_usability_source_region() {
    local w e refused
    t_store_is s3emu || t_skip "needs a store with several regions (s3emu)"
    t_bucket w
    t_new_bucket e
    assert_ok s3c mb "s3://$w" --region eu-west-1
    cp "$(t_data 20MB 20000000)" big
    printf 'small\n' > small
    assert_ok s3c --region eu-west-1 cp big "s3://$w/big"
    assert_ok s3c --region eu-west-1 cp small "s3://$w/small"
    curl -sS -X DELETE "$S3C_TEST_ENDPOINT/_s3emu/stats" >/dev/null || t_fail "stats reset"
    assert_ok s3c --region us-east-1 cp -r --source-region eu-west-1 "s3://$w/" "s3://$e/x/"
    refused=$(_u_stat '.status["4xx"] // 0')
    assert_eq 0 "$refused" "requests refused (signed for the wrong region)"
    assert_eq "$(t_sha256 big)" "$(s3curl GET "/$e/x/big" | sha256sum | cut -d' ' -f1)" "bytes of the copy"
    # Without it the source's region is learnt from a refusal: the test can fail.
    curl -sS -X DELETE "$S3C_TEST_ENDPOINT/_s3emu/stats" >/dev/null || t_fail "stats reset"
    assert_ok s3c --region us-east-1 cp -r "s3://$w/" "s3://$e/y/"
    refused=$(_u_stat '.status["4xx"] // 0')
    [ "$refused" -ge 1 ] || t_fail "without --source-region no request was refused: the check above proves nothing"
    assert_ok s3c rb --force "s3://$w"
}

# A global option s3c does not know is named as an option, in one line.
test_usability_unknown_option() {
    t_cmd s3c --bogus ls
    [ "$T_RC" != 0 ] || t_fail "--bogus was accepted"
    assert_contains "$T_ERR" "unknown option --bogus"
    assert_lines 1 "$T_ERR" "error lines"
    assert_eq "" "$T_OUT" "stdout"
}
