# tests/e2e/test_foundation.sh — issue 2: version, help, usage errors,
# shellcheck shell=bash
# ls / mb / rb / head, errors and exit codes, configuration from flags,
# environment and ~/.aws files.
#
# Where s3c is meant to print what the AWS CLI prints (`s3c ls` and
# `aws s3 ls`), the tests run both on the same bucket and compare the bytes,
# rather than hard-coding a format. Exit codes: 0 ok, 1 failed, 2 usage or
# configuration. Errors: one line on stderr naming the S3 error code.

# ---------------------------------------------------------------- helpers --

# _small_tree DIR: a small tree with the shapes `ls` must get right: keys at
# the top, "directories", nested ones, names that share a prefix (dir/,
# dir2/, dirfile.txt), an empty object, a 1.5 MiB one (for --human-readable),
# a space, a plus sign and non-ASCII letters in keys.
_small_tree() {
    local d=$1
    mkdir -p "$d/dir/sub" "$d/dir2" "$d/other"
    printf 'hello\n' > "$d/top.txt"
    : > "$d/empty"
    head -c 1000 /dev/zero | tr '\0' a > "$d/dir/a.txt"
    head -c 1572864 /dev/urandom > "$d/dir/big.bin"
    printf 'with space\n' > "$d/dir/with space+plus.txt"
    printf 'unicode\n' > "$d/dir/ünïcødé.txt"
    printf 'deep\n' > "$d/dir/sub/deep.txt"
    printf 'two\n' > "$d/dir2/file"
    printf 'file\n' > "$d/dirfile.txt"
    printf 'o\n' > "$d/other/o.txt"
}

# _small_bucket VAR: a new bucket holding _small_tree (10 objects).
_small_bucket() {
    t_new_bucket "$1" small
    _small_tree tree
    t_seed_tree "${!1}" tree
}

# _one_line TEXT WHAT: an error message is exactly one non-empty line.
_one_line() {
    assert_lines 1 "$1" "${2:-stderr}"
}

# A loopback port where nothing listens (connections are refused at once).
_DEAD_ENDPOINT=http://127.0.0.1:9

# ------------------------------------------------------ version and help --

test_version() {
    assert_ok s3c version
    assert_match "$T_OUT" '^s3c [0-9]+\.[0-9]+' "s3c version output"
}

test_help() {
    assert_ok s3c help
    assert_contains "$T_OUT" "ls" "s3c help"
    local verb
    for verb in ls mb rb head version; do
        assert_ok s3c help "$verb"
        assert_contains "$T_OUT" "$verb" "s3c help $verb"
    done
    assert_exit 252 s3c help no-such-verb
}

test_usage_errors_exit_2() {
    assert_exit 252 s3c
    assert_exit 252 s3c no-such-verb
    assert_match "$T_ERR" . "stderr of an unknown verb"
    assert_exit 252 s3c ls --no-such-flag
    assert_match "$T_ERR" . "stderr of an unknown flag"
    assert_exit 252 s3c mb
    assert_exit 252 s3c rb
    assert_exit 252 s3c head
    assert_exit 252 s3c ls --endpoint-url
}

# --------------------------------------------------------------------- ls --

test_ls_buckets_like_aws() {
    local b1 b2
    t_new_bucket b1 one
    t_new_bucket b2 two
    assert_same_output s3c ls -- awsx s3 ls
    assert_contains "$T_OUT" " $b1" "s3c ls"
    assert_contains "$T_OUT" " $b2" "s3c ls"
}

test_ls_prefix_like_aws() {
    local b
    _small_bucket b
    assert_same_output s3c ls "s3://$b" -- awsx s3 ls "s3://$b"
    assert_contains "$T_OUT" "PRE dir/" "s3c ls s3://$b"
    assert_same_output s3c ls "s3://$b/" -- awsx s3 ls "s3://$b/"
    assert_same_output s3c ls "s3://$b/dir/" -- awsx s3 ls "s3://$b/dir/"
    assert_same_output s3c ls "s3://$b/dir" -- awsx s3 ls "s3://$b/dir"
    assert_same_output s3c ls "s3://$b/dir/sub/deep.txt" -- awsx s3 ls "s3://$b/dir/sub/deep.txt"
    assert_same_output s3c ls "s3://$b/dir/ü" -- awsx s3 ls "s3://$b/dir/ü"
    # Nothing matches: the AWS CLI prints nothing and exits 1.
    assert_same_output s3c ls "s3://$b/no-such-prefix" -- awsx s3 ls "s3://$b/no-such-prefix"
}

test_ls_recursive_human_summarize_like_aws() {
    local b
    _small_bucket b
    assert_same_output s3c ls "s3://$b" --recursive -- awsx s3 ls "s3://$b" --recursive
    assert_lines 10 "$T_OUT" "s3c ls --recursive"
    assert_same_output s3c ls --recursive "s3://$b/dir/" -- awsx s3 ls --recursive "s3://$b/dir/"
    assert_same_output s3c ls "s3://$b" --recursive --human-readable --summarize \
        -- awsx s3 ls "s3://$b" --recursive --human-readable --summarize
    assert_contains "$T_OUT" "Total Objects: 10" "s3c ls --summarize"
    assert_same_output s3c ls "s3://$b/dir/" --summarize -- awsx s3 ls "s3://$b/dir/" --summarize
    assert_same_output s3c ls "s3://$b/dir/" --human-readable -- awsx s3 ls "s3://$b/dir/" --human-readable
}

# aws s3 ls prints times in the local time zone; so must s3c.
test_ls_local_time_zone_like_aws() {
    local b
    t_new_bucket b
    t_put_text "$b" key "x"
    export TZ='XST-5:30'            # POSIX TZ, needs no tzdata: UTC+05:30
    assert_same_output s3c ls -- awsx s3 ls
    assert_same_output s3c ls "s3://$b" -- awsx s3 ls "s3://$b"
}

# 2,500 keys: listings paginate past 1000 both in Contents (flat/, 1,200
# objects under one delimiter) and in CommonPrefixes (dirs/, 1,100 "dirs").
test_ls_2500_keys_paginated_like_aws() {
    local b i
    t_new_bucket b many
    mkdir -p big/flat big/dirs big/mixed/a big/mixed/b
    local n
    for ((i = 0; i < 1200; i++)); do printf -v n %04d $i; printf '%d\n' $i > big/flat/f$n; done
    # (one mkdir for all: a fork costs milliseconds here)
    mkdir $(seq -f 'big/dirs/d%04g' 0 1099)
    for ((i = 0; i < 1100; i++)); do
        printf -v n %04d $i
        printf '%*s' $((i % 50)) '' > big/dirs/d$n/x
    done
    for ((i = 0; i < 100; i++)); do printf -v n %03d $i; printf 'r\n' > big/r$n; done
    for ((i = 0; i < 50; i++)); do
        printf 'a\n' > big/mixed/a/$i; printf 'b\n' > big/mixed/b/$i
    done
    t_seed_tree "$b" big
    assert_eq 2500 "$(t_list_keys "$b" | wc -l)" "keys seeded"

    assert_same_output s3c ls "s3://$b" -- awsx s3 ls "s3://$b"
    assert_lines 103 "$T_OUT" "s3c ls s3://$b"
    assert_same_output s3c ls "s3://$b/flat/" -- awsx s3 ls "s3://$b/flat/"
    assert_lines 1200 "$T_OUT" "s3c ls s3://$b/flat/"
    assert_same_output s3c ls "s3://$b/dirs/" -- awsx s3 ls "s3://$b/dirs/"
    assert_lines 1100 "$T_OUT" "s3c ls s3://$b/dirs/"
    assert_same_output s3c ls "s3://$b/dirs/d0999" -- awsx s3 ls "s3://$b/dirs/d0999"
    assert_same_output s3c ls --recursive "s3://$b" -- awsx s3 ls --recursive "s3://$b"
    assert_lines 2500 "$T_OUT" "s3c ls --recursive"
    assert_same_output s3c ls --recursive --human-readable --summarize "s3://$b/dirs/" \
        -- awsx s3 ls --recursive --human-readable --summarize "s3://$b/dirs/"
}

test_ls_json_lines() {
    local b strings k
    _small_bucket b
    # Objects: one JSON object per line, each key and size in it somewhere.
    assert_ok s3c ls --recursive --json "s3://$b"
    assert_lines 10 "$T_OUT" "s3c ls --recursive --json"
    assert_json_lines "$T_OUT"
    strings=$(jq -r '.. | strings' <<<"$T_OUT")
    for k in top.txt empty dir/a.txt "dir/with space+plus.txt" dir/ünïcødé.txt dir/sub/deep.txt; do
        grep -qxF -e "$k" -e "s3://$b/$k" <<<"$strings" ||
            t_fail "no JSON line names key '$k' (as '$k' or 's3://$b/$k')"
    done
    jq -s -e '[.[] | select([.. | strings] | any(endswith("dir/big.bin")))]
              | length == 1 and (.[0] | [.. | numbers] | any(. == 1572864))' \
        <<<"$T_OUT" >/dev/null || t_fail "no single JSON line of dir/big.bin with its size 1572864"
    # Prefixes and objects under a delimiter: one line each, as many as aws prints.
    assert_ok awsx s3 ls "s3://$b/dir/"
    local n_aws
    n_aws=$(grep -c . <<<"$T_OUT")
    assert_ok s3c ls --json "s3://$b/dir/"
    assert_json_lines "$T_OUT"
    assert_lines "$n_aws" "$T_OUT" "s3c ls --json s3://$b/dir/"
    # Buckets.
    assert_ok s3c ls --json
    assert_json_lines "$T_OUT"
    jq -r '.. | strings' <<<"$T_OUT" | grep -qxF -e "$b" -e "s3://$b" ||
        t_fail "s3c ls --json does not name bucket $b"
}

test_ls_missing_bucket_fails() {
    local b
    t_bucket b nonexistent
    assert_exit 254 s3c ls "s3://$b"
    assert_contains "$T_ERR" NoSuchBucket "stderr"
    _one_line "$T_ERR"
    assert_eq "" "$T_OUT" "stdout"
}

# ------------------------------------------------------------------ mb/rb --

test_mb_then_aws_sees_it() {
    local b
    t_bucket b
    assert_ok s3c mb "s3://$b"
    assert_eq "make_bucket: $b" "$T_OUT" "s3c mb output"
    assert_ok awsx s3 ls
    assert_match "$T_OUT" " $b\$" "aws s3 ls after s3c mb"
}

test_rb_empty_bucket() {
    local b
    t_new_bucket b
    assert_ok s3c rb "s3://$b"
    assert_eq "remove_bucket: $b" "$T_OUT" "s3c rb output"
    t_cmd s3curl HEAD "/$b" -o /dev/null && t_fail "bucket $b still exists after s3c rb"
    assert_ok awsx s3 ls
    assert_not_contains "$T_OUT" " $b" "aws s3 ls after s3c rb"
}

test_rb_non_empty_fails_bucket_not_empty() {
    local b
    t_new_bucket b
    t_put_text "$b" some/key "data"
    assert_exit 1 s3c rb "s3://$b"
    assert_contains "$T_ERR" BucketNotEmpty "stderr"
    _one_line "$T_ERR"
    assert_ok s3curl HEAD "/$b" -o /dev/null
    assert_eq some/key "$(t_list_keys "$b")" "keys left after a failed rb"
}

# rb --force: 1,100 objects, so the deletes take more than one request page.
test_rb_force_deletes_contents() {
    local b i
    t_new_bucket b force
    mkdir -p t/a t/b
    for ((i = 0; i < 1100; i++)); do printf 'x' > "t/$((i % 2 == 0 ? 0 : 1))-$i"; done
    printf 'x' > t/a/nested; printf 'x' > t/b/nested
    t_seed_tree "$b" t
    assert_ok s3c rb --force "s3://$b"
    assert_contains "$T_OUT" "remove_bucket: $b" "s3c rb --force output"
    t_cmd s3curl HEAD "/$b" -o /dev/null && t_fail "bucket $b still exists after s3c rb --force"
    return 0
}

test_rb_missing_bucket_fails() {
    local b
    t_bucket b nonexistent
    assert_exit 1 s3c rb "s3://$b"
    assert_contains "$T_ERR" NoSuchBucket "stderr"
    _one_line "$T_ERR"
}

# ------------------------------------------------------------------- head --

test_head_like_aws_s3api() {
    local b k field
    t_new_bucket b
    _small_tree tree
    for k in dir/big.bin "dir/with space+plus.txt" empty; do
        t_put "$b" "$(jq -rn --arg k "$k" '$k | split("/") | map(@uri) | join("/")')" "tree/$k" \
            -H "Content-Type: text/x-s3c-test" -H "x-amz-meta-color: blue"
        assert_ok awsx s3api head-object --bucket "$b" --key "$k"
        cp "$T_DIR/.out" aws.json
        assert_ok s3c head "s3://$b/$k"
        jq -e 'type == "object"' <<<"$T_OUT" >/dev/null || t_fail "s3c head did not print a JSON object"
        for field in ContentLength ETag ContentType Metadata; do
            assert_eq "$(jq -c ".$field" aws.json)" "$(jq -c ".$field" <<<"$T_OUT")" \
                "$field of s3://$b/$k (aws s3api head-object vs s3c head)"
        done
    done
}

test_head_missing_key_fails() {
    local b
    t_new_bucket b
    assert_exit 254 s3c head "s3://$b/no/such/key"
    assert_match "$T_ERR" '404|NotFound|NoSuchKey' "stderr"
    _one_line "$T_ERR"
    assert_eq "" "$T_OUT" "stdout"
    t_bucket b nonexistent
    assert_exit 254 s3c head "s3://$b/key"
    _one_line "$T_ERR"
}

# ----------------------------------------------------- errors and secrets --

test_wrong_secret_key_is_403() {
    local b
    t_new_bucket b
    export AWS_SECRET_ACCESS_KEY=wrongSecretKeyForS3cTests0000000000000000
    assert_exit 254 s3c ls "s3://$b"
    assert_match "$T_ERR" '403|SignatureDoesNotMatch' "stderr"
    _one_line "$T_ERR"
    assert_not_contains "$T_ERR$T_OUT" "$AWS_SECRET_ACCESS_KEY" "output (the secret key)"
    assert_exit 254 s3c ls
    assert_match "$T_ERR" '403|SignatureDoesNotMatch' "stderr"
    assert_exit 254 s3c head "s3://$b/x"
    assert_match "$T_ERR" '403|SignatureDoesNotMatch' "stderr"
    export AWS_ACCESS_KEY_ID=AKIAS3CNOSUCHKEY0000
    assert_exit 254 s3c ls "s3://$b"
    assert_match "$T_ERR" '403|InvalidAccessKeyId' "stderr"
    _one_line "$T_ERR"
}

test_debug_never_prints_the_secret() {
    local b
    t_new_bucket b
    t_put_text "$b" k v
    assert_ok s3c --debug ls "s3://$b"
    assert_match "$T_ERR" . "--debug stderr"
    assert_not_contains "$T_ERR$T_OUT" "$S3C_TEST_SECRET_KEY" "--debug output (the secret key)"
    assert_ok s3c head "s3://$b/k" --debug
    assert_not_contains "$T_ERR$T_OUT" "$S3C_TEST_SECRET_KEY" "--debug output (the secret key)"
}

test_unknown_profile_exit_2() {
    assert_exit 253 s3c --profile nope ls
    assert_contains "$T_ERR" nope "stderr"
    _one_line "$T_ERR"
    assert_exit 253 s3c ls --profile nope
    assert_contains "$T_ERR" nope "stderr"
    export AWS_PROFILE=nope
    assert_exit 253 s3c ls
    assert_contains "$T_ERR" nope "stderr"
}

test_no_sign_request() {
    local b pub
    t_new_bucket b private
    assert_exit 254 s3c ls "s3://$b" --no-sign-request
    assert_match "$T_ERR" '403|AccessDenied' "stderr"
    t_bucket pub public
    t_cmd s3curl PUT "/$pub" -H "x-amz-acl: public-read" || t_fail "could not create $pub"
    t_put_text "$pub" hello "world"
    assert_same_output s3c ls "s3://$pub" --no-sign-request -- awsx s3 ls "s3://$pub" --no-sign-request
    assert_contains "$T_OUT" hello "s3c ls --no-sign-request"
    # Unsigned means no credential chain at all: partial keys are never read.
    unset AWS_SECRET_ACCESS_KEY
    assert_ok s3c ls "s3://$pub" --no-sign-request
    assert_contains "$T_OUT" hello "s3c ls --no-sign-request with partial keys"
    assert_exit 253 s3c ls "s3://$pub"
    assert_contains "$T_ERR" AWS_SECRET_ACCESS_KEY "stderr without --no-sign-request"
}

# ---------------------------------------------------------- configuration --

test_endpoint_url_flag() {
    local b
    t_new_bucket b
    t_put_text "$b" k v
    unset AWS_ENDPOINT_URL
    assert_same_output s3c --endpoint-url "$S3C_TEST_ENDPOINT" ls -- awsx s3 ls
    assert_same_output s3c ls "s3://$b" --endpoint-url "$S3C_TEST_ENDPOINT" -- awsx s3 ls "s3://$b"
    # The flag wins over the environment.
    export AWS_ENDPOINT_URL=$_DEAD_ENDPOINT
    assert_ok s3c ls "s3://$b" --endpoint-url "$S3C_TEST_ENDPOINT"
    assert_contains "$T_OUT" " k" "s3c ls with --endpoint-url over a dead AWS_ENDPOINT_URL"
    # And with only the dead endpoint: a connection error is exit 255 (as the CLI's), one line.
    assert_exit 255 s3c ls "s3://$b"
    _one_line "$T_ERR"
}

test_endpoint_env_s3_specific_wins() {
    local b
    t_new_bucket b
    export AWS_ENDPOINT_URL=$_DEAD_ENDPOINT
    export AWS_ENDPOINT_URL_S3=$S3C_TEST_ENDPOINT
    assert_same_output s3c ls -- awsx s3 ls
}

test_region_and_tls_flags_accepted() {
    local b
    t_new_bucket b
    t_put_text "$b" k v
    assert_same_output s3c ls "s3://$b" --region "$S3C_TEST_REGION" -- awsx s3 ls "s3://$b"
    assert_same_output s3c ls "s3://$b" --no-verify-ssl -- awsx s3 ls "s3://$b"
    unset AWS_REGION
    export AWS_DEFAULT_REGION=$S3C_TEST_REGION
    assert_same_output s3c ls "s3://$b" -- awsx s3 ls "s3://$b"
}

# Keys and endpoint from ~/.aws only, through a `services` section.
test_config_services_endpoint_url() {
    local b
    t_new_bucket b
    t_put_text "$b" k v
    unset AWS_ENDPOINT_URL AWS_ACCESS_KEY_ID AWS_SECRET_ACCESS_KEY AWS_REGION
    mkdir -p "$HOME/.aws"
    cat > "$HOME/.aws/config" <<CFG
[default]
region = $S3C_TEST_REGION
services = local-store

[profile other]
region = $S3C_TEST_REGION
services = local-store

[services local-store]
s3 =
  endpoint_url = $S3C_TEST_ENDPOINT
CFG
    cat > "$HOME/.aws/credentials" <<CRED
[default]
aws_access_key_id = $S3C_TEST_ACCESS_KEY
aws_secret_access_key = $S3C_TEST_SECRET_KEY

[other]
aws_access_key_id = $S3C_TEST_ACCESS_KEY
aws_secret_access_key = $S3C_TEST_SECRET_KEY
CRED
    assert_same_output s3c ls "s3://$b" -- awsx s3 ls "s3://$b"
    assert_same_output s3c --profile other ls "s3://$b" -- awsx s3 ls "s3://$b"
    AWS_PROFILE=other assert_same_output s3c ls "s3://$b" -- awsx s3 ls "s3://$b"
    # The environment wins over the config file.
    sed -i "s|$S3C_TEST_ENDPOINT|$_DEAD_ENDPOINT|" "$HOME/.aws/config"
    assert_exit 255 s3c ls "s3://$b"
    AWS_ENDPOINT_URL=$S3C_TEST_ENDPOINT assert_same_output s3c ls "s3://$b" -- awsx s3 ls "s3://$b"
}

# Endpoint in the profile's `s3 =` sub-section; files at AWS_CONFIG_FILE and
# AWS_SHARED_CREDENTIALS_FILE instead of ~/.aws.
test_config_s3_subsection_and_file_env() {
    local b
    t_new_bucket b
    t_put_text "$b" k v
    unset AWS_ENDPOINT_URL AWS_ACCESS_KEY_ID AWS_SECRET_ACCESS_KEY AWS_REGION
    cat > cfg <<CFG
[profile sub]
region = $S3C_TEST_REGION
s3 =
  endpoint_url = $S3C_TEST_ENDPOINT
  addressing_style = path
  max_concurrent_requests = 20
  multipart_chunksize = 16MB
CFG
    cat > creds <<CRED
[sub]
aws_access_key_id = $S3C_TEST_ACCESS_KEY
aws_secret_access_key = $S3C_TEST_SECRET_KEY
CRED
    export AWS_CONFIG_FILE=$T_DIR/cfg AWS_SHARED_CREDENTIALS_FILE=$T_DIR/creds
    assert_same_output s3c --profile sub ls "s3://$b" -- awsx s3 ls "s3://$b"
    AWS_PROFILE=sub assert_same_output s3c ls "s3://$b" -- awsx s3 ls "s3://$b"
    # A bad value is a configuration error (exit 2) naming the key.
    sed -i 's/^  max_concurrent_requests = 20/  max_concurrent_requests = lots/' cfg
    assert_exit 253 s3c --profile sub ls "s3://$b"
    assert_contains "$T_ERR" max_concurrent_requests "stderr"
    _one_line "$T_ERR"
}
