# tests/e2e/test_creds.sh — issue 10: credentials wherever the AWS CLI finds
# them, each provider against a fake that issues real temporary keys.
# shellcheck shell=bash
#
# tests/creds/fake_iam.py serves STS (AssumeRole, AssumeRoleWithWebIdentity),
# SSO GetRoleCredentials, the container endpoint and IMDSv2 on a loopback
# port of its own, one per test, stopped by PID when the test ends (and by
# itself when the test's shell is gone). Every key it issues derives from
# s3emu's secret key, so s3emu accepts it until it expires (then
# ExpiredToken); /_s3emu/stats counts the requests each key signed
# ("signers") and /_fake/issued says which provider issued which key, so each
# test proves that s3c signed with the key its provider got. s3emu only.

# _cr_start [CONFIG-JSON] [LIFETIME]: start the fake; CR_URL. The endpoints of
# STS and SSO point at it; s3c's keys from the environment are dropped.
_cr_start() {
    local i cfg=${1:-}
    [ -n "$cfg" ] || cfg='{}'
    t_store_is s3emu || t_skip "needs s3emu, which accepts the fake's temporary keys"
    # A broken `configure list` is a failure of every test here, not a skip.
    t_cmd "$S3C" configure list ||
        t_fail "s3c configure list fails (exit $T_RC), so no credential test can run"
    : > "$T_DIR/fake.out"
    python3 "$E2E_ROOT/tests/creds/fake_iam.py" --access-key "$S3C_TEST_ACCESS_KEY" \
        --secret-key "$S3C_TEST_SECRET_KEY" --lifetime "${2:-3600}" --config "$cfg" \
        --parent-pid "$BASHPID" --max-seconds 600 > "$T_DIR/fake.out" 2> "$T_DIR/fake.err" &
    CR_PID=$!
    t_at_exit "kill $CR_PID 2>/dev/null"
    for ((i = 0; i < 100; i++)); do
        CR_URL=$(sed -n 's/^ready //p' "$T_DIR/fake.out")
        [ -n "$CR_URL" ] && break
        sleep 0.1
    done
    [ -n "$CR_URL" ] || t_fail "fake_iam.py did not start: $(cat "$T_DIR/fake.err")"
    unset AWS_ACCESS_KEY_ID AWS_SECRET_ACCESS_KEY AWS_SESSION_TOKEN
    export AWS_ENDPOINT_URL_STS=$CR_URL AWS_ENDPOINT_URL_SSO=$CR_URL
    mkdir -p "$HOME/.aws"
}

# _cr_config JSON: change the fake's settings.
_cr_config() {
    curl -sS --fail-with-body -X POST --data-binary "$1" "$CR_URL/_fake/config" >/dev/null ||
        t_fail "could not configure the fake with $1"
}

# _cr_issued [JQ-FILTER]: the fake's record (default: the whole of it).
_cr_issued() {
    local c=
    [ "${1:-}" = -c ] && { c=-c; shift; }
    curl -sS "$CR_URL/_fake/issued" | jq -r $c "${1:-.}"
}

# _cr_last PROVIDER: the access key id the provider issued last ("" if none).
_cr_last() { _cr_issued "[.issued[] | select(.provider == \"$1\")][-1].access_key_id // \"\""; }

# _cr_signed AKID: how many requests s3emu accepted signed with that key.
_cr_signed() {
    curl -sS "$S3C_TEST_ENDPOINT/_s3emu/stats" | jq -r --arg k "$1" '.signers[$k] // 0'
}

# _cr_assert_signed_by PROVIDER: the fake's provider issued a key and s3emu
# accepted requests signed with it. Sets CR_KEY.
_cr_assert_signed_by() {
    CR_KEY=$(_cr_last "$1")
    [ -n "$CR_KEY" ] || t_fail "the fake's $1 issued no key: $(_cr_issued -c)"
    local n
    n=$(_cr_signed "$CR_KEY")
    [ "$n" -ge 1 ] || t_fail "s3emu saw no request signed with $CR_KEY (issued by $1)"
    t_note "$1 issued ${CR_KEY:0:8}…, which signed $n requests"
}

# _cr_ls: s3c ls of the test bucket works and shows its object.
_cr_ls() {
    assert_ok s3c ls "s3://$CR_BUCKET/"
    assert_contains "$T_OUT" "hello.txt" "s3c ls"
}

# _cr_bucket: a bucket with one object, made with the store's static keys.
_cr_bucket() {
    t_new_bucket CR_BUCKET
    t_put_text "$CR_BUCKET" hello.txt "hello"
}

# _cr_assert_configure TYPE: `s3c configure list` names TYPE as the provider of
# the keys, masked as the AWS CLI masks them, ending as the last key TYPE issued.
_cr_assert_configure() {
    local row
    assert_ok s3c configure list
    row=$(grep -E '^ *access_key ' <<<"$T_OUT")
    assert_match "$row" "^ *access_key +\*{16}[A-Z0-9]{4} +$1( |$)" "configure list's access_key row"
    [ -z "${2:-}" ] || assert_contains "$row" "${2: -4}" "configure list's access_key row"
}

# _cr_web_token: a web identity token file the fake accepts; CR_TOKEN_FILE.
_cr_web_token() {
    CR_TOKEN_FILE=$T_DIR/web-identity-token
    printf 'eyJ0eXAiOiJKV1QifQ.fake-oidc-%s' "$RANDOM" > "$CR_TOKEN_FILE"
    _cr_config "{\"web_identity_tokens\": [\"$(cat "$CR_TOKEN_FILE")\"]}"
}

# _cr_source_profile NAME: a profile with the store's static keys.
_cr_source_profile() {
    printf '[%s]\naws_access_key_id = %s\naws_secret_access_key = %s\n' \
        "$1" "$S3C_TEST_ACCESS_KEY" "$S3C_TEST_SECRET_KEY" >> "$HOME/.aws/credentials"
}

# _cr_sso_cache NAME EXPIRES-AT: the AWS CLI's SSO token cache entry for a
# session (or legacy start URL) NAME, with access token "sso-token-NAME".
_cr_sso_cache() {
    local f
    mkdir -p "$HOME/.aws/sso/cache"
    f=$HOME/.aws/sso/cache/$(printf '%s' "$1" | sha1sum | cut -d' ' -f1).json
    jq -n --arg t "sso-token-$1" --arg x "$2" \
        '{accessToken: $t, expiresAt: $x, region: "us-east-1", startUrl: "https://d-000.awsapps.com/start"}' > "$f"
}

# ------------------------------------------------------------ providers --

test_creds_env_session_token() {
    local xml
    _cr_start
    _cr_bucket
    _cr_web_token
    # Keys with a session token in the environment (as `aws sts ...` users export them).
    xml=$(curl -sS -X POST "$CR_URL/" --data-urlencode Action=AssumeRoleWithWebIdentity \
        --data-urlencode Version=2011-06-15 --data-urlencode RoleArn=arn:aws:iam::123456789012:role/env \
        --data-urlencode RoleSessionName=env --data-urlencode "WebIdentityToken=$(cat "$CR_TOKEN_FILE")")
    export AWS_ACCESS_KEY_ID AWS_SECRET_ACCESS_KEY AWS_SESSION_TOKEN
    AWS_ACCESS_KEY_ID=$(sed -n 's|.*<AccessKeyId>\([^<]*\)<.*|\1|p' <<<"$xml")
    AWS_SECRET_ACCESS_KEY=$(sed -n 's|.*<SecretAccessKey>\([^<]*\)<.*|\1|p' <<<"$xml")
    AWS_SESSION_TOKEN=$(sed -n 's|.*<SessionToken>\([^<]*\)<.*|\1|p' <<<"$xml")
    _cr_ls
    _cr_assert_signed_by assume-role-with-web-identity
    _cr_assert_configure env "$AWS_ACCESS_KEY_ID"
    # Without its token the key is refused, and s3c says so.
    unset AWS_SESSION_TOKEN
    t_cmd s3c ls "s3://$CR_BUCKET/"
    [ "$T_RC" != 0 ] || t_fail "a temporary key without its session token worked"
    assert_contains "$T_ERR" "InvalidAccessKeyId" "s3c's error"
}

test_creds_assume_role_source_profile() {
    _cr_start
    _cr_bucket
    _cr_source_profile base
    cat > "$HOME/.aws/config" <<EOF
[profile role]
role_arn = arn:aws:iam::123456789012:role/s3c-reader
source_profile = base
region = us-east-1
EOF
    export AWS_PROFILE=role
    _cr_ls
    _cr_assert_signed_by assume-role
    assert_eq "$S3C_TEST_ACCESS_KEY" "$(_cr_issued '.issued[-1].signed_by')" "the key that signed AssumeRole"
    assert_eq "arn:aws:iam::123456789012:role/s3c-reader" "$(_cr_issued '.issued[-1].role_arn')" "role"
    _cr_assert_configure assume-role "$CR_KEY"
}

test_creds_role_chaining() {
    local k1 k2
    _cr_start
    _cr_bucket
    _cr_source_profile base
    cat > "$HOME/.aws/config" <<EOF
[profile hop1]
role_arn = arn:aws:iam::123456789012:role/hop1
source_profile = base
[profile hop2]
role_arn = arn:aws:iam::123456789012:role/hop2
source_profile = hop1
role_session_name = s3c-chain
EOF
    export AWS_PROFILE=hop2
    _cr_ls
    k1=$(_cr_issued '[.issued[] | select(.role_arn | endswith("/hop1"))][0].access_key_id')
    k2=$(_cr_issued '[.issued[] | select(.role_arn | endswith("/hop2"))][0].access_key_id')
    assert_eq "$S3C_TEST_ACCESS_KEY" "$(_cr_issued '[.issued[] | select(.role_arn | endswith("/hop1"))][0].signed_by')" "signer of hop1"
    assert_eq "$k1" "$(_cr_issued '[.issued[] | select(.role_arn | endswith("/hop2"))][0].signed_by')" "signer of hop2 (hop1's key)"
    assert_eq "s3c-chain" "$(_cr_issued '[.issued[] | select(.role_arn | endswith("/hop2"))][0].session_name')" "role_session_name"
    [ "$(_cr_signed "$k2")" -ge 1 ] || t_fail "s3emu saw no request signed with hop2's key"
    assert_eq 0 "$(_cr_signed "$k1")" "requests to S3 signed with hop1's key"
}

test_creds_credential_source_environment() {
    _cr_start
    _cr_bucket
    cat > "$HOME/.aws/config" <<EOF
[profile ci]
role_arn = arn:aws:iam::123456789012:role/ci
credential_source = Environment
EOF
    # --profile, not AWS_PROFILE: with keys in the environment and only
    # AWS_PROFILE, botocore signs with the environment's keys.
    export AWS_ACCESS_KEY_ID=$S3C_TEST_ACCESS_KEY AWS_SECRET_ACCESS_KEY=$S3C_TEST_SECRET_KEY
    assert_ok s3c --profile ci ls "s3://$CR_BUCKET/"
    assert_contains "$T_OUT" "hello.txt" "s3c ls"
    _cr_assert_signed_by assume-role
    assert_eq "$S3C_TEST_ACCESS_KEY" "$(_cr_issued '.issued[-1].signed_by')" "the key that signed AssumeRole"
}

test_creds_assume_role_options() {
    _cr_start '{"external_ids": {"arn:aws:iam::123456789012:role/partner": "ext-7f3a"}}'
    _cr_bucket
    _cr_source_profile base
    cat > "$HOME/.aws/config" <<EOF
[profile partner]
role_arn = arn:aws:iam::123456789012:role/partner
source_profile = base
external_id = ext-7f3a
role_session_name = nightly-backup
duration_seconds = 1800
[profile wrong]
role_arn = arn:aws:iam::123456789012:role/partner
source_profile = base
external_id = not-it
EOF
    AWS_PROFILE=partner _cr_ls
    _cr_assert_signed_by assume-role
    assert_eq "ext-7f3a nightly-backup 1800" \
        "$(_cr_issued '.issued[-1] | "\(.external_id) \(.session_name) \(.expiration - (.issued_at | floor))"')" \
        "ExternalId, RoleSessionName, DurationSeconds the fake got"
    t_cmd s3c --profile wrong ls "s3://$CR_BUCKET/"
    [ "$T_RC" != 0 ] || t_fail "AssumeRole with the wrong external_id worked"
    assert_contains "$T_ERR" "AccessDenied" "s3c's error"
    assert_lines 1 "$T_ERR" "s3c's error"
}

test_creds_cli_cache_shared() {
    local f
    # Keys for an hour: botocore takes cached keys with less than 15 minutes
    # left for expired.
    _cr_start '{}' 3600
    _cr_bucket
    _cr_source_profile base
    cat > "$HOME/.aws/config" <<EOF
[profile role]
role_arn = arn:aws:iam::123456789012:role/cached
source_profile = base
EOF
    export AWS_PROFILE=role
    _cr_ls
    _cr_assert_signed_by assume-role
    f=$(find "$HOME/.aws/cli/cache" -name '*.json' 2>/dev/null | head -n 1)
    [ -n "$f" ] || t_fail "no cache file under ~/.aws/cli/cache"
    assert_eq "$CR_KEY" "$(jq -r .Credentials.AccessKeyId "$f")" "AccessKeyId in $f"
    # botocore writes the time as strftime('%Y-%m-%dT%H:%M:%S%Z'): "...UTC".
    assert_eq "$(_cr_issued '.issued[-1].expiration_iso' | sed 's/Z$//')" \
        "$(jq -r .Credentials.Expiration "$f" | sed -E 's/(Z|UTC|\+00:00)$//')" "Expiration in $f"
    # A second run uses the cache: no second AssumeRole, the same key.
    _cr_ls
    assert_eq 1 "$(_cr_issued '.calls["assume-role"]')" "AssumeRole calls after two runs"
    assert_eq 2 "$(_cr_signed "$CR_KEY")" "requests signed with the cached key"
    # The AWS CLI finds s3c's entry under the same name (it has no way to
    # reach the fake's STS: without the cache it would fail).
    t_cmd env AWS_ENDPOINT_URL= AWS_ENDPOINT_URL_STS= "$AWS_CLI" --endpoint-url "$S3C_TEST_ENDPOINT" \
        s3 ls "s3://$CR_BUCKET/"
    [ "$T_RC" = 0 ] || t_fail "the AWS CLI did not use the credentials s3c cached"
    assert_eq 3 "$(_cr_signed "$CR_KEY")" "requests signed with the cached key (the AWS CLI's too)"
}

test_creds_web_identity_env() {
    _cr_start
    _cr_bucket
    _cr_web_token
    export AWS_WEB_IDENTITY_TOKEN_FILE=$CR_TOKEN_FILE AWS_ROLE_ARN=arn:aws:iam::123456789012:role/eks-pod
    export AWS_ROLE_SESSION_NAME=pod-1234
    _cr_ls
    _cr_assert_signed_by assume-role-with-web-identity
    assert_eq "arn:aws:iam::123456789012:role/eks-pod pod-1234" \
        "$(_cr_issued '.issued[-1] | "\(.role_arn) \(.session_name)"')" "role and session the fake got"
    _cr_assert_configure assume-role-with-web-identity
}

test_creds_web_identity_profile() {
    _cr_start
    _cr_bucket
    _cr_web_token
    cat > "$HOME/.aws/config" <<EOF
[profile oidc]
role_arn = arn:aws:iam::123456789012:role/gh-actions
web_identity_token_file = $CR_TOKEN_FILE
EOF
    export AWS_PROFILE=oidc
    _cr_ls
    _cr_assert_signed_by assume-role-with-web-identity
    assert_eq "arn:aws:iam::123456789012:role/gh-actions" "$(_cr_issued '.issued[-1].role_arn')" "role"
}

test_creds_sso_session() {
    _cr_start '{"sso_tokens": ["sso-token-corp"]}'
    _cr_bucket
    _cr_sso_cache corp "$(date -u -d '+1 hour' +%Y-%m-%dT%H:%M:%SZ)"
    cat > "$HOME/.aws/config" <<EOF
[profile dev]
sso_session = corp
sso_account_id = 111122223333
sso_role_name = S3Admin
[sso-session corp]
sso_start_url = https://d-000.awsapps.com/start
sso_region = us-east-1
EOF
    export AWS_PROFILE=dev
    _cr_ls
    _cr_assert_signed_by sso
    assert_eq "111122223333 S3Admin" "$(_cr_issued '.issued[-1] | "\(.account_id) \(.role_name)"')" "account and role"
    _cr_assert_configure sso "$CR_KEY"
}

test_creds_sso_legacy() {
    local url=https://d-111.awsapps.com/start
    _cr_start "{\"sso_tokens\": [\"sso-token-$url\"]}"
    _cr_bucket
    _cr_sso_cache "$url" "$(date -u -d '+1 hour' +%Y-%m-%dT%H:%M:%SZ)"
    cat > "$HOME/.aws/config" <<EOF
[profile legacy]
sso_start_url = $url
sso_region = us-east-1
sso_account_id = 444455556666
sso_role_name = ReadOnly
EOF
    export AWS_PROFILE=legacy
    _cr_ls
    _cr_assert_signed_by sso
    assert_eq "444455556666 ReadOnly" "$(_cr_issued '.issued[-1] | "\(.account_id) \(.role_name)"')" "account and role"
}

test_creds_credential_process() {
    _cr_start
    _cr_bucket
    _cr_web_token
    # A process that gets keys from the fake (as a vault helper would) and
    # prints them in the Version 1 format, with their expiry.
    cat > "$T_DIR/creds-helper.sh" <<EOF
#!/bin/sh
x=\$(curl -sS -X POST "$CR_URL/" --data Action=AssumeRoleWithWebIdentity --data Version=2011-06-15 \\
    --data RoleArn=arn:aws:iam::123456789012:role/helper --data RoleSessionName=helper \\
    --data-urlencode "WebIdentityToken=\$(cat '$CR_TOKEN_FILE')") || exit 1
f() { printf '%s' "\$x" | sed -n "s|.*<\$1>\\([^<]*\\)<.*|\\1|p"; }
printf '{"Version": 1, "AccessKeyId": "%s", "SecretAccessKey": "%s", "SessionToken": "%s", "Expiration": "%s"}\n' \\
    "\$(f AccessKeyId)" "\$(f SecretAccessKey)" "\$(f SessionToken)" "\$(f Expiration)"
EOF
    chmod +x "$T_DIR/creds-helper.sh"
    printf '[profile helper]\ncredential_process = %s/creds-helper.sh --flag "quoted arg"\n' "$T_DIR" > "$HOME/.aws/config"
    export AWS_PROFILE=helper
    _cr_ls
    _cr_assert_signed_by assume-role-with-web-identity
    _cr_assert_configure custom-process
}

test_creds_container_full_uri() {
    _cr_start '{"container_token": "Bearer pod-identity-token"}'
    _cr_bucket
    export AWS_CONTAINER_CREDENTIALS_FULL_URI=$CR_URL/container/v1/credentials
    export AWS_CONTAINER_AUTHORIZATION_TOKEN="Bearer pod-identity-token"
    _cr_ls
    _cr_assert_signed_by container-role
    _cr_assert_configure container-role "$CR_KEY"
    # The token from a file (EKS Pod Identity), which wins over the variable.
    unset AWS_CONTAINER_AUTHORIZATION_TOKEN
    printf 'Bearer pod-identity-token' > "$T_DIR/pod-token"
    export AWS_CONTAINER_AUTHORIZATION_TOKEN_FILE=$T_DIR/pod-token AWS_CONTAINER_AUTHORIZATION_TOKEN=wrong
    _cr_ls
    assert_eq 0 "$(_cr_issued '.errors["container-role"] // 0')" "container requests the fake refused"
}

test_creds_imds_v2() {
    _cr_start '{"imds_role": "s3c-instance-role", "region": "us-east-1"}'
    _cr_bucket
    export AWS_EC2_METADATA_DISABLED=false AWS_EC2_METADATA_SERVICE_ENDPOINT=$CR_URL/
    unset AWS_REGION AWS_DEFAULT_REGION
    _cr_ls
    _cr_assert_signed_by iam-role
    [ "$(_cr_issued '.calls["imds-token"] // 0')" -ge 1 ] || t_fail "no IMDSv2 token was asked for"
    assert_eq 0 "$(_cr_issued '.errors["imds-unauthorized"] // 0')" "IMDS GETs without a valid token"
    _cr_assert_configure iam-role "$CR_KEY"
    assert_match "$T_OUT" '^ *region +us-east-1 ' "configure list's region row (from IMDS)"
}

# --------------------------------------------------------------- errors --

# _cr_assert_error WHAT TEXT...: s3c failed, with one error line holding each TEXT.
_cr_assert_error() {
    local what=$1 s
    shift
    [ "$T_RC" != 0 ] || t_fail "$what: s3c succeeded"
    assert_lines 1 "$T_ERR" "$what: stderr"
    for s in "$@"; do assert_contains "$T_ERR" "$s" "$what: stderr"; done
    assert_not_contains "$T_ERR" "$S3C_TEST_SECRET_KEY" "$what: stderr"
}

test_creds_errors() {
    _cr_start '{"sso_tokens": ["sso-token-old"]}'
    _cr_bucket
    printf '#!/bin/sh\necho "vault: permission denied" >&2\nexit 1\n' > "$T_DIR/fails.sh"
    chmod +x "$T_DIR/fails.sh"
    _cr_sso_cache old "$(date -u -d '-1 hour' +%Y-%m-%dT%H:%M:%SZ)"
    cat > "$HOME/.aws/config" <<EOF
[profile proc]
credential_process = $T_DIR/fails.sh
[profile webid]
role_arn = arn:aws:iam::123456789012:role/x
web_identity_token_file = $T_DIR/no-such-token
[profile expired]
sso_session = old
sso_account_id = 111122223333
sso_role_name = R
[sso-session old]
sso_start_url = https://d-222.awsapps.com/start
sso_region = us-east-1
EOF
    t_cmd s3c --profile proc ls "s3://$CR_BUCKET/"
    _cr_assert_error "credential_process exiting 1" "credential_process exited 1" "vault: permission denied"
    t_cmd s3c --profile webid ls "s3://$CR_BUCKET/"
    _cr_assert_error "a missing web identity token file" "$T_DIR/no-such-token" "No such file or directory"
    t_cmd s3c --profile expired ls "s3://$CR_BUCKET/"
    _cr_assert_error "an expired SSO token" "expired" "aws sso login"
    assert_eq 0 "$(_cr_issued '.calls.sso // 0')" "GetRoleCredentials calls with an expired token"
    t_cmd s3c ls "s3://$CR_BUCKET/"
    _cr_assert_error "nothing configured, IMDS disabled" "Unable to locate credentials"
    assert_eq 0 "$(_cr_issued '[.calls[]] | add // 0')" "requests to the fake"
}

test_creds_sts_refusals() {
    _cr_start
    _cr_bucket
    printf '[base]\naws_access_key_id = %s\naws_secret_access_key = not-the-secret\n' \
        "$S3C_TEST_ACCESS_KEY" > "$HOME/.aws/credentials"
    printf '[profile role]\nrole_arn = arn:aws:iam::123456789012:role/r\nsource_profile = base\n' > "$HOME/.aws/config"
    t_cmd s3c --profile role ls "s3://$CR_BUCKET/"
    _cr_assert_error "AssumeRole with a wrong source secret" "SignatureDoesNotMatch"
    assert_not_contains "$T_ERR" "not-the-secret" "stderr"
    # A failing STS (500s) is retried, then reported.
    _cr_source_profile good
    printf '[profile role2]\nrole_arn = arn:aws:iam::123456789012:role/r\nsource_profile = good\n' >> "$HOME/.aws/config"
    _cr_config '{"fail_next": [{"provider": "assume-role", "status": 500, "count": 1}]}'
    assert_ok s3c --profile role2 ls "s3://$CR_BUCKET/"
    _cr_assert_signed_by assume-role
}

# ------------------------------------------------------------- refresh --

# A transfer that outlives three keys: web identity keys that live 8 s, an
# upload throttled to last about 30 s. s3c must refresh ahead (or re-sign on
# ExpiredToken), exit 0, and every byte must be there.
test_creds_transfer_crosses_three_expiries() {
    local b i n used t0 secs
    _cr_start '{}' 8
    _cr_web_token
    t_new_bucket b
    mkdir -p tree
    for i in $(seq -w 1 48); do head -c 200000 /dev/urandom > "tree/f$i.bin"; done
    export AWS_WEB_IDENTITY_TOKEN_FILE=$CR_TOKEN_FILE AWS_ROLE_ARN=arn:aws:iam::123456789012:role/long
    t0=$SECONDS
    # Four at a time, so requests are signed all along the 30 s (a request is
    # judged when it arrives: one signed at the start may outlive its keys).
    E2E_CMD_TIMEOUT=180 assert_ok s3c cp -r tree "s3://$b/tree/" --bwlimit 320KB/s --concurrency 4 --no-progress
    secs=$((SECONDS - t0))
    assert_lines 48 "$T_OUT" "upload lines"
    [ "$secs" -ge 24 ] || t_fail "the upload took ${secs}s: too short to cross three 8 s lifetimes"
    n=$(_cr_issued '[.issued[] | select(.provider == "assume-role-with-web-identity")] | length')
    [ "$n" -ge 4 ] || t_fail "only $n keys issued in ${secs}s of 8 s keys: $(_cr_issued -c '.calls')"
    used=$(curl -sS "$S3C_TEST_ENDPOINT/_s3emu/stats" | jq -r --argjson ids \
        "$(_cr_issued -c '[.issued[].access_key_id]')" '[.signers | keys[] | select(. as $k | $ids | index($k))] | length')
    [ "$used" -ge 3 ] || t_fail "only $used of the issued keys signed requests to s3emu"
    t_note "${secs}s, $n keys issued, $used of them signed uploads"
    # Every byte, read back with the store's own keys.
    unset AWS_WEB_IDENTITY_TOKEN_FILE AWS_ROLE_ARN
    export AWS_ACCESS_KEY_ID=$S3C_TEST_ACCESS_KEY AWS_SECRET_ACCESS_KEY=$S3C_TEST_SECRET_KEY
    assert_ok s3c cp -r "s3://$b/tree/" back/
    assert_eq "$(t_tree_sums tree)" "$(t_tree_sums back)" "sha256 of every file, up and back"
}

# Keys that die before their announced Expiration (a provider with a wrong
# clock, keys revoked): the store answers ExpiredToken, s3c fetches fresh
# keys, signs the request again and retries it, and the run exits 0.
test_creds_expired_token_is_refreshed_and_retried() {
    local b i n refused
    _cr_start '{"token_lifetime": 3}' 3600
    _cr_web_token
    t_new_bucket b
    mkdir -p tree
    for i in $(seq -w 1 24); do head -c 100000 /dev/urandom > "tree/f$i.bin"; done
    export AWS_WEB_IDENTITY_TOKEN_FILE=$CR_TOKEN_FILE AWS_ROLE_ARN=arn:aws:iam::123456789012:role/short
    curl -sS -X DELETE "$S3C_TEST_ENDPOINT/_s3emu/stats" >/dev/null || t_fail "stats reset"
    E2E_CMD_TIMEOUT=120 assert_ok s3c cp -r tree "s3://$b/tree/" --bwlimit 300KB/s --concurrency 2 --no-progress
    assert_lines 24 "$T_OUT" "upload lines"
    refused=$(curl -sS "$S3C_TEST_ENDPOINT/_s3emu/stats" | jq -r '.status["4xx"] // 0')
    n=$(_cr_issued '[.issued[] | select(.provider == "assume-role-with-web-identity")] | length')
    [ "$refused" -ge 1 ] || t_fail "no request was refused as expired: the test proves nothing"
    [ "$n" -ge 2 ] || t_fail "keys refused as expired were not replaced ($n issued)"
    t_note "$refused requests refused as expired, $n keys issued"
    unset AWS_WEB_IDENTITY_TOKEN_FILE AWS_ROLE_ARN
    export AWS_ACCESS_KEY_ID=$S3C_TEST_ACCESS_KEY AWS_SECRET_ACCESS_KEY=$S3C_TEST_SECRET_KEY
    assert_ok s3c cp -r "s3://$b/tree/" back/
    assert_eq "$(t_tree_sums tree)" "$(t_tree_sums back)" "sha256 of every file, up and back"
}
