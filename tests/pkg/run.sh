#!/usr/bin/env bash
# tests/pkg/run.sh — s3c as a user installs it: `make install` and the Debian
# package. Run as root from anywhere, after `make` (it needs build/s3c,
# build/s3emu and the generated docs). Prints "ok NAME" or "FAIL NAME: why"
# per check and ends with "pkg: N passed, N failed" (exit 1 on a failure).
#
#   1. the version: VERSION, debian/changelog and `s3c version` agree
#   2. `make install DESTDIR=... PREFIX=/usr/local` lays out the binary, s3c(1)
#      and the bash, zsh and fish completions; `make uninstall` removes them
#   3. `man -l` renders s3c(1) without a warning; every AWS_*/S3C_* variable
#      and config key the code reads is in it
#   4. the completions: bash, zsh and fish parse them; bash and fish complete
#      verbs, flags, values and s3:// buckets and keys (from an s3emu of its own)
#   5. dpkg-buildpackage -us -uc -b in a temp copy of the tree (the tree
#      stays clean); lintian finds no error; the .deb installs, `s3c version`
#      and `man s3c` work, and `dpkg --purge` leaves none of its files behind
#
# A machine with an s3c package already installed skips the install/purge
# checks rather than replace it. S3C_PKG_KEEP=1 keeps the temp dir.
set -uo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cd "$ROOT" || exit 1
exec </dev/null

PASSED=0
FAILED=0
WORK=$(mktemp -d "${TMPDIR:-/tmp}/s3c-pkg.XXXXXX")
EMU_PID=""
INSTALLED_BY_US=0

cleanup() {
    if [ -n "$EMU_PID" ] && kill -0 "$EMU_PID" 2>/dev/null; then
        kill -TERM "$EMU_PID" 2>/dev/null
        wait "$EMU_PID" 2>/dev/null
    fi
    if [ "$INSTALLED_BY_US" = 1 ]; then
        dpkg --purge s3c >/dev/null 2>&1
    fi
    if [ "${S3C_PKG_KEEP:-0}" = 1 ]; then
        echo "pkg: work dir kept: $WORK" >&2
    else
        rm -rf "$WORK"
    fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

ok() { echo "ok $1"; PASSED=$((PASSED + 1)); }
fail() { echo "FAIL $1: $2"; FAILED=$((FAILED + 1)); }
# skip NAME REASON: not run here, and why (a skip without a reason fails).
skip() { [ -n "${2:-}" ] || { fail "$1" "skipped without a reason"; return; }; echo "skip $1: $2"; }
# check NAME CMD...: ok when CMD exits 0, else FAIL with its last output lines.
check() {
    local name=$1 out
    shift
    if out=$("$@" 2>&1); then
        ok "$name"
    else
        fail "$name" "$(tail -n 5 <<<"$out" | tr '\n' ' ')"
    fi
}
finish() {
    echo "pkg: $PASSED passed, $FAILED failed"
    [ "$FAILED" -eq 0 ]
    exit $?
}

for f in build/s3c build/s3emu build/s3c.1 build/s3c.bash build/_s3c build/s3c.fish; do
    if [ ! -e "$f" ]; then
        fail "build" "no $f (run make first)"
        finish
    fi
done
VERSION=$(cat VERSION)
UNTRACKED_BEFORE=$(git status --porcelain --untracked-files=all 2>/dev/null | sort)

# ------------------------------------------------------------- 1. version --
version_agrees() {
    local cl
    cl=$(dpkg-parsechangelog -S Version) || return 1
    [ "$cl" = "$VERSION" ] || { echo "debian/changelog has $cl, VERSION $VERSION"; return 1; }
    build/s3c version | head -n 1 | grep -qxF "s3c $VERSION" || { echo "s3c version: $(build/s3c version | head -n 1)"; return 1; }
    [ "$(build/s3c --version)" = "$(build/s3c version)" ] || { echo "--version differs"; return 1; }
    build/s3c version | grep -qE '^libcurl: [0-9]' && build/s3c version | grep -qE '^openssl: OpenSSL' &&
        build/s3c version | grep -qE '^cpu: '
}
check "version: VERSION, debian/changelog and s3c version agree" version_agrees

# ------------------------------------------------------ 2. make install --
DEST=$WORK/dest
install_layout() {
    local f mode
    make -s install DESTDIR="$DEST" PREFIX=/usr/local >/dev/null || return 1
    for f in usr/local/bin/s3c:755 usr/local/share/man/man1/s3c.1:644 \
             usr/local/share/bash-completion/completions/s3c:644 \
             usr/local/share/zsh/site-functions/_s3c:644 \
             usr/local/share/fish/vendor_completions.d/s3c.fish:644; do
        mode=$(stat -c %a "$DEST/${f%%:*}" 2>/dev/null) || { echo "missing ${f%%:*}"; return 1; }
        [ "$mode" = "${f##*:}" ] || { echo "${f%%:*} has mode $mode"; return 1; }
    done
    "$DEST/usr/local/bin/s3c" version | grep -qxF "s3c $VERSION"
}
check "make install DESTDIR PREFIX=/usr/local: binary, man page, 3 completions" install_layout
zsh_vendor() {
    make -s install DESTDIR="$WORK/dest-usr" PREFIX=/usr >/dev/null &&
        [ -f "$WORK/dest-usr/usr/share/zsh/vendor-completions/_s3c" ]
}
check "make install PREFIX=/usr: zsh completion in vendor-completions" zsh_vendor
uninstall_all() {
    make -s uninstall DESTDIR="$DEST" PREFIX=/usr/local >/dev/null || return 1
    local left
    left=$(find "$DEST" -type f)
    [ -z "$left" ] || { echo "left: $left"; return 1; }
}
check "make uninstall removes every file" uninstall_all

# --------------------------------------------------------- 3. man page --
man_renders() {
    local warn out
    out=$(MANWIDTH=80 man --warnings -E UTF-8 -l build/s3c.1 2>"$WORK/man.err") || return 1
    warn=$(cat "$WORK/man.err")
    [ -z "$warn" ] || { echo "$warn"; return 1; }
    grep -q "ENVIRONMENT" <<<"$out" && grep -q "EXIT STATUS" <<<"$out" &&
        grep -q -- "--recursive" <<<"$out"
}
check "man -l renders s3c(1) with no warning" man_renders

# Every environment variable and config key the code reads, in the man page.
man_has_config() {
    local text missing=() v
    text=$(MANWIDTH=200 man -E UTF-8 -l build/s3c.1 2>/dev/null)
    # Keys: the names config.c looks up (ini_get, ini_sub_get, prof_get,
    # pick_env_prof) and those of its tables ({ "key", offsetof... },
    # { "AWS_VAR", "key", ... }).
    for v in $(grep -rhoE '"(AWS|S3C|XDG)_[A-Z0-9_]+"' src | tr -d '"' | sort -u) \
             $( { grep -rhoE '(pick_env_prof\([a-z]+, "[A-Z0-9_]+", |ini_get\([^;]*, |ini_sub_get\([^;]*, |prof_get\([a-z]+, |\{ "[A-Z0-9_]+", )"[a-z][a-z0-9_]+"' src/cfg src/auth
                  grep -rhoE '\{ "[a-z][a-z0-9_]+", offsetof' src/cfg src/auth; } 2>/dev/null |
               grep -oE '"[a-z][a-z0-9_]+"' | tr -d '"' | sort -u); do
        grep -qw -- "$v" <<<"$text" || missing+=("$v")
    done
    [ ${#missing[@]} -eq 0 ] || { echo "not in s3c(1): ${missing[*]}"; return 1; }
}
check "s3c(1) names every environment variable and config key the code reads" man_has_config

# ------------------------------------------------------- 4. completions --
check "bash -n s3c.bash" bash -n build/s3c.bash
if command -v zsh >/dev/null; then
    check "zsh -n _s3c" zsh -n build/_s3c
else
    skip "zsh -n _s3c" "no zsh"
fi
if command -v fish >/dev/null; then
    check "fish -n s3c.fish" fish -n build/s3c.fish
else
    skip "fish -n s3c.fish" "no fish"
fi

# An emulator with two buckets and a few keys, for s3:// completion.
EMU_URL=""
start_emu() {
    local i
    : > "$WORK/emu.out"     # before the child opens it, so the first read finds it
    build/s3emu --port 0 --bucket comp-a --bucket comp-b > "$WORK/emu.out" 2> "$WORK/emu.err" &
    EMU_PID=$!
    for ((i = 0; i < 100; i++)); do
        EMU_URL=$(sed -nE 's/^ready (http:\/\/[^ ]+).*/\1/p' "$WORK/emu.out")
        [ -n "$EMU_URL" ] && break
        sleep 0.1
    done
    [ -n "$EMU_URL" ] || return 1
    echo x > "$WORK/x.txt"
    local k
    for k in dir/one.txt "dir/two words.txt" top.txt; do
        build/s3c --endpoint-url "$EMU_URL" cp "$WORK/x.txt" "s3://comp-a/$k" >/dev/null || return 1
    done
}
export AWS_ACCESS_KEY_ID=s3emu-access AWS_SECRET_ACCESS_KEY=s3emu-secret AWS_REGION=us-east-1
export AWS_CONFIG_FILE=$WORK/aws-config AWS_SHARED_CREDENTIALS_FILE=$WORK/aws-creds
export S3C_COMPLETE_BIN=$ROOT/build/s3c
printf '[default]\nregion = us-east-1\n[profile work]\nregion = eu-west-1\n' > "$AWS_CONFIG_FILE"
: > "$AWS_SHARED_CREDENTIALS_FILE"
start_emu || fail "s3emu for completion" "did not start: $(tail -n 3 "$WORK/emu.err")"

# bash_complete LINE: what the bash completion offers for the last word of
# LINE (split on blanks; a trailing blank starts an empty word).
bash_complete() {
    bash -c '
        . /usr/share/bash-completion/bash_completion
        . "$1"
        COMP_LINE=$2 COMP_POINT=${#2}
        read -ra COMP_WORDS <<<"$2"
        [[ $2 == *" " ]] && COMP_WORDS+=("")
        COMP_CWORD=$(( ${#COMP_WORDS[@]} - 1 ))
        _s3c 2>/dev/null
        printf "%s\n" "${COMPREPLY[@]}"' _ build/s3c.bash "$1"
}
# expect_lines NAME WANT... -- GOT: each WANT is a line of GOT.
expect_complete() {
    local name=$1 shell=$2 line=$3 got w
    shift 3
    if [ "$shell" = bash ]; then
        got=$(bash_complete "$line")
    else
        got=$(fish -c 'source $argv[1]; complete -C $argv[2]' "$ROOT/build/s3c.fish" "$line" | cut -f1)
    fi
    for w in "$@"; do
        if ! grep -qxF -- "$w" <<<"$got"; then
            fail "$name" "'$line' offered [$(tr '\n' ' ' <<<"$got")], not '$w'"
            return
        fi
    done
    ok "$name"
}
if [ -r /usr/share/bash-completion/bash_completion ]; then
    expect_complete "bash: verbs" bash "s3c c" cp cat
    expect_complete "bash: a verb's flags" bash "s3c sync --si" --size-only
    expect_complete "bash: global flags after the verb" bash "s3c ls --end" --endpoint-url
    expect_complete "bash: flag values" bash "s3c cp --storage-class ST" STANDARD STANDARD_IA
    expect_complete "bash: profiles" bash "s3c --profile " default work
    expect_complete "bash: help VERB" bash "s3c help sy" sync
    if [ -n "$EMU_URL" ]; then
        # bash trims "s3:" off (':' breaks words in readline), as __ltrim_colon_completions does.
        expect_complete "bash: s3:// buckets" bash "s3c --endpoint-url $EMU_URL ls s3://comp" //comp-a/ //comp-b/
        expect_complete "bash: s3:// keys" bash "s3c --endpoint-url=$EMU_URL cp s3://comp-a/" //comp-a/dir/ //comp-a/top.txt
        expect_complete "bash: s3:// keys with a space" bash "s3c --endpoint-url $EMU_URL cp s3://comp-a/dir/t" '//comp-a/dir/two\ words.txt'
    fi
else
    skip "bash completion" "no bash-completion package"
fi
if command -v fish >/dev/null; then
    expect_complete "fish: verbs" fish "s3c c" cp cat
    expect_complete "fish: a verb's flags" fish "s3c rm --all" --all-versions
    expect_complete "fish: profiles" fish "s3c --profile " default work
    if [ -n "$EMU_URL" ]; then
        expect_complete "fish: s3:// buckets" fish "s3c --endpoint-url $EMU_URL ls s3://comp" s3://comp-a/ s3://comp-b/
        expect_complete "fish: s3:// keys" fish "s3c --endpoint-url $EMU_URL cp s3://comp-a/dir/" \
            s3://comp-a/dir/one.txt "s3://comp-a/dir/two words.txt"
    fi
fi
unset AWS_CONFIG_FILE AWS_SHARED_CREDENTIALS_FILE S3C_COMPLETE_BIN

# --------------------------------------------------------- 5. the .deb --
SRC=$WORK/src/s3c-$VERSION
mkdir -p "$SRC"
build_deb() {
    # The tree as git sees it (tracked, and new files not ignored), without build/.
    git ls-files -z --cached --others --exclude-standard |
        tar --null -T - -cf - 2>/dev/null | tar -xf - -C "$SRC" || return 1
    (cd "$SRC" && dpkg-buildpackage -us -uc -b -j"${JOBS:-2}") > "$WORK/build.log" 2>&1 ||
        { tail -n 20 "$WORK/build.log"; return 1; }
    [ -f "$WORK/src/s3c_${VERSION}_$(dpkg --print-architecture).deb" ]
}
DEB=$WORK/src/s3c_${VERSION}_$(dpkg --print-architecture).deb
CHANGES=$WORK/src/s3c_${VERSION}_$(dpkg --print-architecture).changes
check "dpkg-buildpackage -us -uc -b builds s3c_${VERSION}" build_deb
if [ ! -f "$DEB" ]; then
    finish
fi
lintian_clean() {
    local out
    out=$(lintian --fail-on error "$CHANGES" 2>&1)
    local rc=$?
    echo "$out" | grep -v "running with root privileges" >&2
    [ $rc -eq 0 ] || { echo "$out"; return 1; }
}
check "lintian: no error" lintian_clean

if dpkg -s s3c >/dev/null 2>&1; then
    skip "install, run, purge" "an s3c package is already installed here"
    finish
fi
FILES=$(dpkg-deb -c "$DEB" | awk '$1 !~ /^d/ { sub(/^\./, "", $6); print $6 }')
install_deb() {
    dpkg -i "$DEB" >"$WORK/dpkg.log" 2>&1 || { tail -n 10 "$WORK/dpkg.log"; dpkg --purge s3c >/dev/null 2>&1; return 1; }
}
# (not through check: INSTALLED_BY_US must be set in this shell, for cleanup)
if out=$(install_deb 2>&1); then
    INSTALLED_BY_US=1
    ok "dpkg -i installs the .deb"
else
    fail "dpkg -i installs the .deb" "$(tr '\n' ' ' <<<"$out")"
fi
if [ "$INSTALLED_BY_US" = 1 ]; then
    check "installed: s3c version" bash -c "/usr/bin/s3c version | head -n 1 | grep -qxF 's3c $VERSION'"
    installed_man() {
        local out
        out=$(MANWIDTH=80 man --warnings s3c 2>"$WORK/man2.err") || return 1
        [ ! -s "$WORK/man2.err" ] || { cat "$WORK/man2.err"; return 1; }
        grep -q "s3c - move data" <<<"$out"
    }
    if command -v man >/dev/null; then
        check "installed: man s3c renders" installed_man
    else
        check "installed: man page present" test -f /usr/share/man/man1/s3c.1.gz
    fi
    check "installed: bash completion in place" test -f /usr/share/bash-completion/completions/s3c
    purge_clean() {
        local f left=()
        dpkg --purge s3c >"$WORK/purge.log" 2>&1 || { cat "$WORK/purge.log"; return 1; }
        for f in $FILES; do
            [ -e "$f" ] && left+=("$f")
        done
        [ ${#left[@]} -eq 0 ] || { echo "left behind: ${left[*]}"; return 1; }
        ! dpkg -s s3c >/dev/null 2>&1
    }
    check "dpkg --purge removes every file" purge_clean
    dpkg -s s3c >/dev/null 2>&1 || INSTALLED_BY_US=0
fi

tree_clean() {
    local now
    now=$(git status --porcelain --untracked-files=all 2>/dev/null | sort)
    [ "$now" = "$UNTRACKED_BEFORE" ] || { diff <(echo "$UNTRACKED_BEFORE") <(echo "$now"); return 1; }
}
check "the source tree is as it was (the package was built in a copy)" tree_clean
finish
