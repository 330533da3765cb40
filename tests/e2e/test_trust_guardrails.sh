# tests/e2e/test_trust_guardrails.sh — issue 28: the harness itself. A skip
# must say why; anything else that ends a test like a skip is a failure.
# shellcheck shell=bash

# The harness (this run.sh and lib.sh) on a test file of its own, against
# the same store: a skip with a reason is a skip, a skip without one and a
# bare exit 77 are failures.
test_trust_guardrails_skip_needs_a_reason() {
    t_store_is s3emu || t_skip "checks the harness, not the store: runs once, in the s3emu pass"
    mkdir h
    cp "$E2E_ROOT/tests/e2e/run.sh" "$E2E_ROOT/tests/e2e/lib.sh" h/
    # ('|' first: run.sh finds tests by "^test_" in this very file, and these are the inner run's)
    sed 's/^|//' > h/test_x.sh <<'T'
|test_x_reason() { t_skip "a reason"; }
|test_x_empty() { t_skip ""; }
|test_x_blank() { t_skip "  "; }
|test_x_bare_77() { exit 77; }
|test_x_ok() { :; }
T
    t_cmd env E2E_RESULT_FILE="$T_DIR/res" E2E_ROOT="$E2E_ROOT" bash h/run.sh
    assert_eq "1 3 1" "$(cat res 2>/dev/null)" "passed failed skipped (stdout: $T_OUT)"
    assert_contains "$T_OUT" "skipped: a reason"
    assert_contains "$T_OUT" "t_skip without a reason"
    assert_contains "$T_OUT" "exit 77 (skip) without a reason"
}
