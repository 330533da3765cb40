#!/usr/bin/env bash
# tests/tree-clean.sh [BEFORE]
#
# Fails when the repository's work tree holds untracked files that
# .gitignore does not cover (build dirs are ignored there), naming each one:
# a test must write under its own temporary directory, never into the
# checkout (a test once left a 3 MB '-/slow' there, and it was committed).
# tests/run-all.sh runs it last, with BEFORE, a list of the untracked files
# (one a line, as this script prints them) taken when the run started: only
# files the run added count. By hand, without BEFORE, every untracked file
# counts:
#
#     tests/tree-clean.sh             # tree: 1 passed, 0 failed
#     touch stray && tests/tree-clean.sh; rm stray
#
# Ends with "tree: N passed, N failed"; exit 0 only when nothing failed.
# `tests/tree-clean.sh --list` prints the untracked files and nothing else.
set -uo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT" || exit 2

# untracked: every untracked, not-ignored file, one a line. -z: names with
# spaces or newlines are not quoted (a newline in a name becomes '?').
untracked() {
    local entry name
    git status --porcelain -z --untracked-files=all | while IFS= read -r -d '' entry; do
        [[ $entry == '?? '* ]] || continue
        name=${entry#?? }
        printf '%s\n' "${name//$'\n'/?}"
    done
}

if ! git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
    echo "tree: not a git work tree, nothing checked"
    echo "tree: 0 passed, 0 failed"
    exit 0
fi
if [ "${1:-}" = --list ]; then
    untracked
    exit
fi

before=${1:-/dev/null}
mapfile -t new < <(untracked | LC_ALL=C sort | LC_ALL=C comm -23 - <(LC_ALL=C sort "$before"))
if [ ${#new[@]} -eq 0 ]; then
    echo "ok   no untracked files left in the work tree"
    echo "tree: 1 passed, 0 failed"
    exit 0
fi
if [ "$before" = /dev/null ]; then
    echo "FAIL ${#new[@]} untracked file(s) in the work tree (not covered by .gitignore):"
else
    echo "FAIL the run left ${#new[@]} untracked file(s) in the work tree (not covered by .gitignore):"
fi
printf '       %s\n' "${new[@]:0:50}"
[ ${#new[@]} -le 50 ] || echo "       ... and $((${#new[@]} - 50)) more"
echo "     a test or script wrote into the checkout: make it write under its temporary directory"
echo "tree: 0 passed, 1 failed"
exit 1
