# tests/e2e/test_region.sh — buckets in several regions in one run.
# shellcheck shell=bash
#
# A request signed for the wrong region is answered with the right one
# (AuthorizationHeaderMalformed + <Region>, or x-amz-bucket-region); s3c learns
# it per bucket, so a copy between buckets of two regions signs for both, and
# requests already in flight when the first hint came back retry too.
# s3emu only: the Ceph of the tests has a single zone group.

test_region_buckets_in_two_regions_in_one_run() {
    local b w
    [ "$S3C_TEST_STORE" = s3emu ] || t_skip "needs a store with several regions (s3emu)"
    t_new_bucket b
    t_bucket w
    assert_ok s3c mb "s3://$w" --region eu-west-1
    mkdir -p many
    for i in $(seq 1 120); do printf '%s' "$i" > "many/f$i"; done
    cp "$(t_data 20MB 20000000)" big
    # 120 uploads at once, all signed for us-east-1 first: every one must land.
    assert_ok s3c cp -r many "s3://$w/many/"
    assert_lines 120 "$T_OUT" "upload lines"
    assert_ok s3c cp big "s3://$w/big"
    # Copies both ways between the regions, multipart included.
    assert_ok s3c cp -r "s3://$w/" "s3://$b/from-west/"
    assert_lines 121 "$T_OUT" "copy lines west -> east"
    assert_ok s3c cp -r "s3://$b/from-west/" "s3://$w/back/"
    assert_lines 121 "$T_OUT" "copy lines east -> west"
    assert_ok s3c cp "s3://$w/back/big" got
    assert_file_sha256 got "$(t_sha256 big)"
    assert_ok s3c ls "s3://$w/back/many/"
    assert_lines 120 "$T_OUT" "keys in the west bucket"
    assert_ok s3c rb --force "s3://$w"
}

_region_ops() { curl -sS "$S3C_TEST_ENDPOINT/_s3emu/stats" | jq -r ".ops[\"$1\"] // 0"; }

# Issue 10: the region of a bucket is learnt once, before the fan-out: the
# first PUT goes alone and the 199 others are signed right (today's count
# before the fix: 264 PUTs, 64 refused and their bytes sent twice).
test_region_learnt_before_fan_out() {
    local w before after
    [ "$S3C_TEST_STORE" = s3emu ] || t_skip "needs a store with several regions (s3emu)"
    t_bucket w
    assert_ok s3c mb "s3://$w" --region eu-west-1
    mkdir -p many
    for i in $(seq 1 200); do printf '%s' "$i" > "many/f$i"; done
    before=$(_region_ops PutObject)
    assert_ok s3c --region us-east-1 cp -r many "s3://$w/many/"
    assert_lines 200 "$T_OUT" "upload lines"
    after=$(_region_ops PutObject)
    [ $((after - before)) -le 202 ] || t_fail "200 uploads to a bucket in another region took $((after - before)) PUTs (at most 202)"
    assert_ok s3c ls "s3://$w/many/"
    assert_lines 200 "$T_OUT" "keys in the west bucket"
    assert_ok s3c rb --force "s3://$w"
}

# presign signs for the bucket's own region (one HeadBucket), so the URL works;
# --region skips the question and signs for what it says.
test_region_presign_other_region() {
    local w url
    [ "$S3C_TEST_STORE" = s3emu ] || t_skip "needs a store with several regions (s3emu)"
    t_bucket w
    assert_ok s3c mb "s3://$w" --region eu-west-1
    printf 'west side' > f
    assert_ok s3c cp f "s3://$w/f"
    assert_ok s3c presign "s3://$w/f"   # AWS_REGION is us-east-1
    url=$T_OUT
    assert_contains "$url" "eu-west-1" "the URL is signed for the bucket's region"
    assert_eq "west side" "$(curl -sf "$url")" "curl of the presigned URL"
    assert_ok s3c --region ap-south-1 presign "s3://$w/f"
    assert_contains "$T_OUT" "ap-south-1" "--region is what the URL is signed for"
    assert_ok s3c rb --force "s3://$w"
}
