# tests/e2e/test_tls.sh — issue 17: HTTPS (a certificate verified, an
# untrusted one refused) and connections spread over a name's addresses.
# shellcheck shell=bash
#
# Each test starts its own s3emu with --tls-dir (a CA and a server
# certificate generated for the run), not the store under test: they run
# once, in the s3emu pass.

: "${S3EMU:=$E2E_ROOT/build/s3emu}"

# _tls_start ARGS...: start an HTTPS s3emu with ARGS; TLS_PORT, TLS_CA (the CA
# to trust), TLS_STATS_URL. Stopped when the test ends.
_tls_start() {
    local i url
    t_store_is s3emu || t_skip "starts its own HTTPS s3emu: runs once, in the s3emu pass"
    [ -x "$S3EMU" ] || t_skip "no s3emu at $S3EMU (make)"
    "$S3EMU" --port 0 --threads 2 --tls-dir "$T_DIR/tls" "$@" > "$T_DIR/emu.out" 2> "$T_DIR/emu.err" &
    TLS_PID=$!
    t_at_exit "kill $TLS_PID 2>/dev/null"
    for ((i = 0; i < 100; i++)); do
        url=$(sed -n 's/^ready //p' "$T_DIR/emu.out")
        [ -n "$url" ] && break
        sleep 0.1
    done
    [[ $url == https://* ]] || t_fail "s3emu --tls-dir did not start: $url $(cat "$T_DIR/emu.err")"
    TLS_PORT=${url##*:}
    TLS_CA=$T_DIR/tls/ca.pem
    TLS_STATS_URL="https://${url#https://}/_s3emu/stats"
    [ -s "$TLS_CA" ] || t_fail "no CA written to $TLS_CA"
    export AWS_ACCESS_KEY_ID=s3emu-access AWS_SECRET_ACCESS_KEY=s3emu-secret AWS_REGION=us-east-1
    unset AWS_ENDPOINT_URL AWS_CA_BUNDLE
}

# _tls_stat JQ: a number from the emulator's stats (the CA verifies the admin endpoint too).
_tls_stat() { curl -sf --cacert "$TLS_CA" "$TLS_STATS_URL" | jq -r "$1"; }

test_tls_https_transfer_verified() {
    local ep sum_small sum_big f n hs reqs
    _tls_start
    ep="https://localhost:$TLS_PORT"
    cp "$(t_data tls-small 3000000)" small.bin
    cp "$(t_data tls-big 40000000)" big.bin
    mkdir -p tree
    for f in $(seq 1 40); do head -c $((f * 1000)) /dev/urandom > "tree/f$f"; done
    sum_small=$(sha256sum < small.bin)
    sum_big=$(sha256sum < big.bin)

    export AWS_CA_BUNDLE=$TLS_CA
    assert_ok s3c --endpoint-url "$ep" mb s3://tls
    assert_ok s3c --endpoint-url "$ep" cp small.bin s3://tls/small.bin
    assert_ok s3c --endpoint-url "$ep" cp big.bin s3://tls/big.bin
    assert_ok s3c --endpoint-url "$ep" cp -r tree s3://tls/tree/
    assert_ok s3c --endpoint-url "$ep" cp s3://tls/small.bin dl/small.bin
    assert_ok s3c --endpoint-url "$ep" cp s3://tls/big.bin dl/big.bin
    assert_eq "$sum_small" "$(sha256sum < dl/small.bin)" "small.bin back over HTTPS"
    assert_eq "$sum_big" "$(sha256sum < dl/big.bin)" "big.bin (multipart, ranged) back over HTTPS"
    assert_ok s3c --endpoint-url "$ep" cp -r s3://tls/tree/ dl/tree/
    assert_eq "$(cd tree && sha256sum f* | sort)" "$(cd dl/tree && sha256sum f* | sort)" "the tree back"

    # The flag and the config key trust it too.
    unset AWS_CA_BUNDLE
    assert_ok s3c --endpoint-url "$ep" --ca-bundle "$TLS_CA" ls s3://tls/
    assert_contains "$T_OUT" "big.bin"
    mkdir -p home/.aws
    printf '[default]\nca_bundle = %s\n' "$TLS_CA" > home/.aws/config
    export AWS_CONFIG_FILE=$T_DIR/home/.aws/config
    assert_ok s3c --endpoint-url "$ep" ls s3://tls/tree/
    assert_eq 40 "$(grep -c ' f' <<<"$T_OUT")" "objects listed with ca_bundle from the config"
    unset AWS_CONFIG_FILE

    # The AWS CLI reads what s3c wrote, over the same HTTPS, trusting the same CA.
    AWS_CA_BUNDLE=$TLS_CA t_cmd "$AWS_CLI" --endpoint-url "$ep" s3 cp s3://tls/small.bin aws.bin --only-show-errors
    [ "$T_RC" = 0 ] || t_fail "the AWS CLI could not read over HTTPS"
    assert_eq "$sum_small" "$(sha256sum < aws.bin)" "small.bin read by the AWS CLI"

    # One handshake a connection, connections reused, sessions resumed (by
    # tickets, when a run opens connections after its first ones).
    hs=$(_tls_stat .tls.handshakes)
    reqs=$(_tls_stat .requests)
    n=$(_tls_stat .tls.resumed)
    conns=$(_tls_stat .connections)
    t_note "requests $reqs, connections $conns, TLS handshakes $hs (resumed $n)"
    [ "$hs" -ge 1 ] && [ "$hs" -le "$conns" ] || t_fail "$hs handshakes on $conns connections"
    [ "$hs" -lt "$reqs" ] || t_fail "$hs handshakes for $reqs requests: connections not reused"
    [ "$n" -ge 1 ] || t_fail "no TLS session resumed"
}

test_tls_untrusted_certificate_refused() {
    local ep
    _tls_start
    ep="https://localhost:$TLS_PORT"
    echo hello > a.txt
    # Not trusted: the system's CAs do not know this one. ls exits 255 on an
    # error that is not the store's (the AWS CLI's rule), a transfer 1.
    assert_exit 255 s3c --endpoint-url "$ep" ls s3://tls/
    assert_lines 1 "$T_ERR" "stderr of a refused certificate"
    assert_match "$T_ERR" '^s3c: ERROR .*certificate' "the error line"
    assert_contains "$T_ERR" "--ca-bundle" "the error line's advice"
    assert_exit 1 s3c --endpoint-url "$ep" cp a.txt s3://tls/a.txt
    assert_lines 1 "$T_ERR" "stderr of a refused upload"
    # A CA that is not the server's is refused the same way.
    openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -subj /CN=other -days 1 \
        -keyout other.key -out other.pem 2>/dev/null || t_fail "openssl req failed"
    assert_exit 255 s3c --endpoint-url "$ep" --ca-bundle other.pem ls s3://tls/
    assert_match "$T_ERR" 'certificate' "the error line with another CA"
    # A name the certificate does not hold is refused, even with the right CA.
    echo '127.0.0.1 not-in-cert.test' > hosts
    assert_exit 255 env AWS_CA_BUNDLE="$TLS_CA" S3C_HOSTS_FILE=hosts \
        "$S3C" --endpoint-url "https://not-in-cert.test:$TLS_PORT" ls s3://
    assert_lines 1 "$T_ERR" "stderr of a wrong name"
    assert_contains "$T_ERR" "not-in-cert.test" "the error line of a wrong name"
    # Nothing was stored, and --no-verify-ssl lets the same command through.
    assert_ok s3c --endpoint-url "$ep" --no-verify-ssl mb s3://tls
    assert_ok s3c --endpoint-url "$ep" --no-verify-ssl ls s3://tls/
    assert_eq "" "$T_OUT" "objects stored by the refused runs"
}

test_tls_spread_addresses() {
    local a n c r total=0 hosts
    _tls_start --listen 127.0.0.2 --listen 127.0.0.3 --listen 127.0.0.4 --tls-name s3.spread.test
    # One name, three addresses, in a hosts file of the test (DNS is not ours to change).
    printf '127.0.0.2 s3.spread.test\n127.0.0.3 s3.spread.test # a comment\n127.0.0.4 other s3.spread.test\n' > hosts
    export S3C_HOSTS_FILE=$T_DIR/hosts AWS_CA_BUNDLE=$TLS_CA
    TLS_STATS_URL="https://127.0.0.2:$TLS_PORT/_s3emu/stats"
    mkdir -p tree
    for n in $(seq 1 90); do head -c 20000 /dev/urandom > "tree/f$n"; done
    assert_ok s3c --endpoint-url "https://s3.spread.test:$TLS_PORT" mb s3://spread
    assert_ok s3c --endpoint-url "https://s3.spread.test:$TLS_PORT" cp -r tree s3://spread/t/
    assert_ok s3c --endpoint-url "https://s3.spread.test:$TLS_PORT" cp -r s3://spread/t/ dl/
    assert_eq "$(cd tree && sha256sum f* | sort)" "$(cd dl && sha256sum f* | sort)" "the tree back"
    hosts=$(_tls_stat '.listeners[] | "\(.addr) \(.conns) \(.reqs)"')
    t_note "per address (addr connections requests): $(tr '\n' ';' <<<"$hosts")"
    while read -r a c r; do
        [ "$c" -ge 1 ] || t_fail "no connection to $a: $hosts"
        [ "$r" -ge 30 ] || t_fail "only $r requests to $a (of 180+): $hosts"
        total=$((total + r))
    done <<<"$hosts"
    [ "$total" -ge 180 ] || t_fail "$total requests in all: $hosts"
    # Without the file the name does not resolve: one line, exit 255 (ls).
    unset S3C_HOSTS_FILE
    assert_exit 255 s3c --endpoint-url "https://s3.spread.test:$TLS_PORT" ls s3://spread/
    assert_lines 1 "$T_ERR" "stderr of an unknown name"
}
