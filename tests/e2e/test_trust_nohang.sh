# shellcheck shell=bash
# Issue 22 items 10-13: never hang, never ignore the user. A store (or a
# proxy) whose region hints ping-pong or lie, that trickles or never answers,
# that garbles a status line or leaves stray bytes on a connection, must end
# the command on its own within seconds; SIGINT and SIGTERM end any command
# at once, listings included; a reader that leaves stdout ends the work.
# Each test runs s3c under `timeout` and asserts elapsed seconds, exit codes
# and the requests the hostile relay (hostile_proxy.py) saw.

# _nh_now: seconds since the epoch, with milliseconds.
_nh_now() { date +%s.%N | cut -c1-14; }

# _nh_within SECONDS START WHAT: fail unless less than SECONDS passed since START.
_nh_within() {
    local took
    took=$(echo "$(_nh_now) - $2" | bc)
    t_note "$3: ${took}s"
    [ "$(echo "$took < $1" | bc)" = 1 ] || t_fail "$3 took ${took}s (limit ${1}s)"
}

# _nh_timed LIMIT CMD...: t_cmd CMD under `timeout 30`, failing the test unless it ended within LIMIT seconds.
_nh_timed() {
    local limit=$1 t0
    shift
    t0=$(_nh_now)
    t_cmd timeout -k 2 30 "$@"
    _nh_within "$limit" "$t0" "$*"
}

# ---- item 10: region hints followed once, validated ----------------------------------

_nh_region_pingpong() {
    local b
    hp_start "$1" region-pingpong
    t_new_bucket b
    echo data > f
    # Each verb ends by itself, soon, with one line that says why: a region
    # is followed once per bucket, then the hints that change are refused.
    _nh_timed 5 "$S3C" ls "s3://$b/"
    [ "$T_RC" = 254 ] || t_fail "ls: expected exit 254, got $T_RC"
    assert_contains "$T_ERR" "region hints for $b change"
    [ "$(wc -l < "$T_DIR/.err")" = 1 ] || t_fail "ls: expected a one-line error"
    # Exactly two: the request, and the one follow of the first hint (whose answer names another region).
    [ "$(hp_count 'select(.mode == "region")')" = 2 ] ||
        t_fail "ls: $(hp_count 'select(.mode == "region")') requests answered with a region hint, not 2"
    : > "$HP_LOG"
    _nh_timed 5 "$S3C" ls -r "s3://$b/"
    [ "$T_RC" = 254 ] || t_fail "ls -r: expected exit 254, got $T_RC"
    assert_contains "$T_ERR" "region hints for $b change"
    [ "$(hp_count 'select(.mode == "region")')" = 2 ] || t_fail "ls -r: $(hp_count 'select(.mode == "region")') hinted requests, not 2"
    : > "$HP_LOG"
    _nh_timed 5 "$S3C" cp f "s3://$b/k"
    [ "$T_RC" = 1 ] || t_fail "cp: expected exit 1, got $T_RC"
    assert_contains "$T_ERR" "region hints for $b change"
    [ "$(hp_count 'select(.mode == "region")')" = 2 ] || t_fail "cp: $(hp_count 'select(.mode == "region")') hinted requests, not 2"
}

test_trust_nohang_region_pingpong_emu() {
    t_store_is s3emu || t_skip "a store of its own: runs once, in the s3emu pass"
    _nh_region_pingpong emu
}

test_trust_nohang_region_pingpong_moto() {
    t_store_is s3emu || t_skip "a store of its own: runs once, in the s3emu pass"
    _nh_region_pingpong moto
}

# A hint that is no region name never goes into a host name or a credential
# scope: it is refused, checked as --region is, and not followed at all.
test_trust_nohang_region_evil() {
    local b
    t_store_is s3emu || t_skip "a store of its own: runs once, in the s3emu pass"
    hp_start emu region-evil
    t_new_bucket b
    _nh_timed 5 "$S3C" ls "s3://$b/"
    [ "$T_RC" = 254 ] || t_fail "expected exit 254, got $T_RC"
    assert_contains "$T_ERR" 'is not a valid region name: not followed'
    assert_eq 1 "$(hp_count '.')" "requests sent"
    _nh_timed 5 "$S3C" --debug ls "s3://$b/"
    assert_not_contains "$T_ERR" "evil.example/x?y/s3/aws4_request"
}

# ---- item 11: SIGINT and SIGTERM end every command, listings included ----------------

# _nh_signal SIG WANT CMD...: run CMD in the background, send SIG after a
# second (NH_AFTER seconds), and expect it to end within 2.5 s (NH_WITHIN) more with exit WANT.
_nh_signal() {
    local sig=$1 want=$2 pid rc t0
    shift 2
    timeout -k 2 30 "$@" > "$T_DIR/.out" 2> "$T_DIR/.err" &
    pid=$!
    sleep "${NH_AFTER:-1}"
    # The s3c under `timeout`: its only child.
    kill "-$sig" "$(pgrep -P "$pid")" 2>/dev/null || t_fail "$* ended before the signal: $(cat "$T_DIR/.err")"
    t0=$(_nh_now)
    wait "$pid"
    rc=$?
    T_LAST="$* (SIG$sig after 1 s)" T_RC=$rc
    _nh_within "${NH_WITHIN:-2.5}" "$t0" "$* after SIG$sig"
    [ "$rc" = "$want" ] || t_fail "$*: expected exit $want after SIG$sig, got $rc: $(cat "$T_DIR/.err")"
}

test_trust_nohang_signals_end_listings() {
    local b
    t_store_is s3emu || t_skip "a store of its own: runs once, in the s3emu pass"
    # Every GET answer (listing pages, objects) trickles at 1 byte a second.
    hp_start emu trickle=1
    t_new_bucket b
    t_put_text "$b" a/k "some bytes"
    mkdir d
    _nh_signal INT 130 "$S3C" ls "s3://$b/a/"
    _nh_signal TERM 143 "$S3C" ls -r "s3://$b/"
    _nh_signal INT 130 "$S3C" du "s3://$b/"
    _nh_signal TERM 143 "$S3C" cp -r "s3://$b/" d/ --dryrun
    _nh_signal INT 130 "$S3C" mv -r "s3://$b/" d/ --dryrun
    _nh_signal TERM 143 "$S3C" rm -r "s3://$b/" --dryrun
    _nh_signal INT 130 "$S3C" sync "s3://$b/" d/ --dryrun
    _nh_signal TERM 143 "$S3C" cp "s3://$b/a/k" d/k
    _nh_signal TERM 143 "$S3C" cat "s3://$b/a/k"
    # While waiting in retry backoff (standard mode: up to 2^n s) too.
    AWS_RETRY_MODE=standard AWS_MAX_ATTEMPTS=20 _nh_signal INT 130 "$S3C" --cli-read-timeout 1 ls "s3://$b/a/"
    # The object is still there: nothing was deleted or moved.
    assert_eq "some bytes" "$(s3curl GET "/$b/a/k")" "the object after the dry runs"
}

# Every answer is cut by a reset: each try fails at once and the standard
# retry mode waits rand x 2^n s before the next, up to 20 s. A signal in that
# wait ends the command there, in every path (store_s3_send, the lister, the engine).
test_trust_nohang_signals_end_retry_backoff() {
    local b
    t_store_is s3emu || t_skip "a store of its own: runs once, in the s3emu pass"
    hp_start emu reset=100000
    t_new_bucket b
    t_put_text "$b" a/k "some bytes"
    mkdir d
    export AWS_RETRY_MODE=standard AWS_MAX_ATTEMPTS=20
    _nh_signal INT 130 "$S3C" ls "s3://$b/a/"
    _nh_signal TERM 143 "$S3C" ls -r "s3://$b/"
    # The parallel lister's wait (cp -r, mv -r, rm -r, sync): late enough that
    # the wait is likely long (try 4 or 5: up to 8 or 16 s).
    NH_AFTER=8 NH_WITHIN=1 _nh_signal TERM 143 "$S3C" cp -r "s3://$b/" d/ --dryrun
    _nh_signal INT 130 "$S3C" cp "s3://$b/a/k" d/k
    [ "$(hp_count 'select(.mode == "reset")')" -ge 3 ] || t_fail "the relay cut fewer answers than expected"
}

# `s3c ls -r | head -1`: the reader leaves; s3c ends the listing quietly (exit
# 0, nothing on stderr, as `s3c cat | head`), not after its last page. (The
# AWS CLI v2 prints "[Errno 32] Broken pipe" and exits 255 there.)
test_trust_nohang_ls_reader_gone() {
    local b i t0 rc
    t_store_is s3emu || t_skip "a store of its own: runs once, in the s3emu pass"
    # Pages after the first trickle (their requests name a continuation token).
    hp_start emu trickle=1,only=continuation-token
    t_new_bucket b
    mkdir t
    for ((i = 0; i < 300; i++)); do echo "$i" > "t/key-$(printf %04d "$i")"; done
    t_seed_tree "$b" t
    : > "$HP_LOG"
    t0=$(_nh_now)
    set +e
    timeout -k 2 30 "$S3C" ls -r "s3://$b/" --page-size 100 2> "$T_DIR/.err" | head -n 1 > "$T_DIR/.out"
    rc=${PIPESTATUS[0]}
    T_LAST="s3c ls -r | head -n 1" T_RC=$rc
    _nh_within 5 "$t0" "ls -r | head -1"
    [ "$rc" = 0 ] || t_fail "expected exit 0 once the reader left, got $rc"
    assert_eq "" "$(cat "$T_DIR/.err")" "stderr"
    assert_contains "$(cat "$T_DIR/.out")" "key-0000"
}

# ---- item 12: a trickle or a silence is cut off, retried, then one line ---------------

_nh_slow() {
    local b big
    hp_start "$1" "trickle=1,only=/k"
    t_new_bucket b
    big=$(t_data nohang-300k 300000)
    t_put_text "$b" k "0123456789abcdefghij"
    t_put "$b" big "$big"
    # A reply at 1 byte a second: cut off after the read timeout, tried again
    # (AWS_MAX_ATTEMPTS), then a one-line error.
    AWS_MAX_ATTEMPTS=2 _nh_timed 12 "$S3C" cp "s3://$b/k" got --cli-read-timeout 2
    [ "$T_RC" = 1 ] || t_fail "expected exit 1, got $T_RC"
    assert_contains "$T_ERR" "too slow"
    [ "$(wc -l < "$T_DIR/.err")" = 1 ] || t_fail "expected a one-line error"
    assert_eq 2 "$(hp_count 'select(.method == "GET" and (.target | test("/k")))')" "GETs of k (2 attempts)"
    [ ! -e got ] || t_fail "a partial file was left"
    # A large body slowed on purpose (--bwlimit) is not taken for a trickle:
    # the read timeout is a speed floor, not a deadline for the whole body.
    : > "$HP_LOG"
    _nh_timed 15 "$S3C" cp "s3://$b/big" big --cli-read-timeout 1 --bwlimit 60KB/s
    [ "$T_RC" = 0 ] || t_fail "the slowed download failed: $T_ERR"
    cmp -s big "$big" || t_fail "the slowed download's bytes differ"
    assert_eq 1 "$(hp_count 'select(.method == "GET" and (.target | test("/big")))')" "GETs of big (no retry)"
}

test_trust_nohang_trickle_emu() {
    t_store_is s3emu || t_skip "a store of its own: runs once, in the s3emu pass"
    _nh_slow emu
}

test_trust_nohang_trickle_moto() {
    t_store_is s3emu || t_skip "a store of its own: runs once, in the s3emu pass"
    _nh_slow moto
}

# A listener whose backlog is full: a connect to it never completes (SYNs dropped).
test_trust_nohang_connect_timeout() {
    local url i
    t_store_is s3emu || t_skip "needs no store: runs once, in the s3emu pass"
    cat > blackhole.py <<'PY'
import socket, time
s = socket.socket()
s.bind(("127.0.0.1", 0))
s.listen(0)
held = []
for _ in range(4):
    c = socket.socket()
    c.setblocking(False)
    try:
        c.connect(s.getsockname())
    except BlockingIOError:
        pass
    held.append(c)
print("ready http://127.0.0.1:%d" % s.getsockname()[1], flush=True)
time.sleep(60)
PY
    python3 blackhole.py > bh.out 2>&1 &
    HP_PIDS="${HP_PIDS:-} $!"
    t_at_exit "kill $HP_PIDS 2>/dev/null"
    for ((i = 0; i < 100; i++)); do
        url=$(sed -n 's/^ready //p' bh.out)
        [ -n "$url" ] && break
        sleep 0.05
    done
    [ -n "$url" ] || t_fail "the listener did not start: $(cat bh.out)"
    AWS_ENDPOINT_URL=$url AWS_MAX_ATTEMPTS=2 _nh_timed 5 "$S3C" ls s3://nohang-b/ --cli-connect-timeout 1
    [ "$T_RC" = 255 ] || t_fail "expected exit 255, got $T_RC"
    assert_contains "$T_ERR" "Timeout was reached"
}

_nh_stall() {
    local b
    hp_start "$1" stall
    t_new_bucket b
    t_put_text "$b" k "0123456789"
    # GETs never answered: each attempt ends after the read timeout.
    AWS_MAX_ATTEMPTS=3 _nh_timed 10 "$S3C" cat "s3://$b/k" --cli-read-timeout 1
    [ "$T_RC" = 1 ] || t_fail "expected exit 1, got $T_RC"
    assert_eq "" "$T_OUT" "stdout"
    assert_contains "$T_ERR" "too slow"
    assert_eq 3 "$(hp_count 'select(.mode == "stall")')" "GETs (3 attempts)"
    # A bad value is refused before any request, as the AWS CLI's.
    assert_exit 252 "$S3C" cat "s3://$b/k" --cli-read-timeout soon
    assert_exit 252 "$S3C" cat "s3://$b/k" --cli-connect-timeout -1
}

test_trust_nohang_stall_emu() {
    t_store_is s3emu || t_skip "a store of its own: runs once, in the s3emu pass"
    _nh_stall emu
}

test_trust_nohang_stall_moto() {
    t_store_is s3emu || t_skip "a store of its own: runs once, in the s3emu pass"
    _nh_stall moto
}

# ---- item 13: a garbled answer or stray bytes on a reused connection: retried ---------

_nh_garble() {
    local b i
    hp_start "$1" "$2"
    t_new_bucket b
    mkdir src
    for i in 1 2 3 4; do head -c $((1000 * i)) /dev/urandom > "src/o$i"; t_put "$b" "o$i" "src/o$i"; done
    : > "$HP_LOG"
    for i in 1 2 3 4; do
        _nh_timed 10 "$S3C" cp "s3://$b/o$i" "got$i"
        [ "$T_RC" = 0 ] || t_fail "cp o$i through $2: exit $T_RC"
        cmp -s "got$i" "src/o$i" || t_fail "o$i: the bytes after a retried $2 differ"
    done
    _nh_timed 10 "$S3C" ls "s3://$b/"
    [ "$T_RC" = 0 ] || t_fail "ls through $2: exit $T_RC"
    [ "$(hp_count "select(.mode == \"${2%%=*}\")")" -ge 1 ] || t_fail "the relay never acted ($2)"
}

test_trust_nohang_garble_emu() {
    t_store_is s3emu || t_skip "a store of its own: runs once, in the s3emu pass"
    _nh_garble emu garble=3
}

test_trust_nohang_garble_moto() {
    t_store_is s3emu || t_skip "a store of its own: runs once, in the s3emu pass"
    _nh_garble moto garble=3
}

# Stray bytes in the same segment as the answer: curl sees them as excess and
# does not reuse the connection (passes on main too; stray-late is the case).
test_trust_nohang_stray_emu() {
    t_store_is s3emu || t_skip "a store of its own: runs once, in the s3emu pass"
    _nh_garble emu stray=3
}

test_trust_nohang_stray_late_emu() {
    t_store_is s3emu || t_skip "a store of its own: runs once, in the s3emu pass"
    _nh_garble emu stray-late=3
}

test_trust_nohang_stray_late_moto() {
    t_store_is s3emu || t_skip "a store of its own: runs once, in the s3emu pass"
    _nh_garble moto stray-late=3
}

test_trust_nohang_reset_emu() {
    t_store_is s3emu || t_skip "a store of its own: runs once, in the s3emu pass"
    _nh_garble emu reset=2
}

# A length that lies on every answer: retried within the budget, then one line.
test_trust_nohang_length_lie() {
    local b
    t_store_is s3emu || t_skip "a store of its own: runs once, in the s3emu pass"
    hp_start emu length-lie
    t_new_bucket b
    t_put_text "$b" k "0123456789"
    AWS_MAX_ATTEMPTS=3 _nh_timed 10 "$S3C" cp "s3://$b/k" got
    [ "$T_RC" = 1 ] || t_fail "expected exit 1, got $T_RC"
    assert_eq 3 "$(hp_count 'select(.mode == "length-lie")')" "GETs (3 attempts)"
    [ ! -e got ] || t_fail "a partial file was left"
}
