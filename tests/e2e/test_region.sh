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
