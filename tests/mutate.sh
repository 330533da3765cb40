#!/usr/bin/env bash
# tests/mutate.sh — how many small changes to one source file do the unit
# tests notice? (mutation testing, by hand-sized steps)
#
#   tests/mutate.sh src/xfer/part.c               every mutant of the file
#   tests/mutate.sh src/auth/sigv4.c 120 200      only lines 120-200
#   MUTATE_BUDGET=300 tests/mutate.sh src/xfer/multipart.c
#   MUTATE_SAN=1 tests/mutate.sh src/auth/sigv4.c   the unit tests under ASan+UBSan,
#                                                   as CI runs them too (slower)
#
# The tree (tracked files, as they are in the work tree) is copied to a
# temporary directory and build/unit-tests built there once (-O0, for
# speed; with MUTATE_SAN=1, -O1 with ASan+UBSan, so a mutant that leaks or
# reads out of bounds is killed as CI's sanitizer run would); the checkout
# is never touched. Then, one at a time, a mutant is
# made of FILE in the copy with sed, at one place:
#   - a comparison turned (<  <=  >  >=  ==  !=, each into its neighbour),
#   - && into || and back, + into - and back,
#   - an integer constant plus one (10000 -> 10001, 0 -> 1),
#   - 'return true' / 'return false' swapped, a leading '!' dropped,
#   - a statement that is a bare call ('foo(a, b);' alone on its line) deleted;
# outside comments and string literals. Each mutant is rebuilt and the unit
# tests run (MUTATE_TIMEOUT seconds, 60): a failing test, a crash or a time
# out KILLS it; all tests passing means it SURVIVED; a mutant that does not
# compile is STILLBORN (not counted). The original comes back after each.
#
# Prints one line per mutant that survived (file:line, the change, the line
# as mutated) and closes with
#   "mutate FILE: K killed, S survived, B stillborn of N; score K/(K+S) = P%"
# Stops starting mutants after MUTATE_BUDGET seconds (1800) and says how
# many were left. MUTATE_VERBOSE=1 prints every mutant. Exit 0 when the run
# finished (whatever the score), 1 when the unmutated tree fails, 2 on usage.
# MUTATE_LIST=1 only lists the mutants (line, column, from, to).
set -uo pipefail
export LC_ALL=C             # columns in bytes, for awk and sed alike

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
FILE=${1:-}
FROM=${2:-1}
TO=${3:-1000000}
: "${MUTATE_TIMEOUT:=60}" "${MUTATE_BUDGET:=1800}" "${MUTATE_VERBOSE:=0}" "${MUTATE_SAN:=0}" "${JOBS:=2}"
if [ -z "$FILE" ] || [ ! -f "$ROOT/$FILE" ] || [[ $FILE != *.c ]]; then
    echo "usage: tests/mutate.sh src/DIR/FILE.c [FROM-LINE [TO-LINE]]" >&2
    exit 2
fi

W=$(mktemp -d "${TMPDIR:-/tmp}/s3c-mutate.XXXXXX")
trap 'rm -rf "$W"' EXIT
trap 'exit 130' INT
trap 'exit 143' TERM HUP
T0=$SECONDS

# The mutants: "LINE COLUMN FROM TO" (COLUMN 0-based, in the line as it is),
# from a copy of each line with comments and string/char literals blanked.
awk -v from="$FROM" -v to="$TO" '
function blank(s,    out, i, c, n, q) {
    out = ""; n = length(s); q = ""
    for (i = 1; i <= n; i++) {
        c = substr(s, i, 1)
        if (incomment) {
            if (c == "*" && substr(s, i + 1, 1) == "/") { incomment = 0; out = out "  "; i++; continue }
            out = out " "; continue
        }
        if (q != "") {
            if (c == "\\") { out = out "  "; i++; continue }
            if (c == q) q = ""
            out = out " "; continue
        }
        if (c == "/" && substr(s, i + 1, 1) == "*") { incomment = 1; out = out "  "; i++; continue }
        if (c == "/" && substr(s, i + 1, 1) == "/") { while (i <= n) { out = out " "; i++ }; break }
        if (c == "\"" || c == "\047") { q = c; out = out " "; continue }
        out = out c
    }
    return out
}
# emit every match of regex re in b (the blanked line) as a mutant to "rep"
function each(re, rep,    s, off, p) {
    s = b; off = 0
    while ((p = match(s, re)) > 0) {
        print NR "\t" off + p - 1 "\t" substr(line, off + p, RLENGTH) "\t" rep
        off += p + RLENGTH - 1; s = substr(s, p + RLENGTH)
    }
}
{
    line = $0; b = blank($0)
    if (NR < from || NR > to) next
    if (b ~ /^[ \t]*#[ \t]*(include|if|ifdef|ifndef|endif|else|pragma|error)/) next
    each(" < ", " <= "); each(" <= ", " < ")
    each(" > ", " >= "); each(" >= ", " > ")
    each(" == ", " != "); each(" != ", " == ")
    each(" && ", " || "); each(" \\|\\| ", " && ")
    each(" \\+ ", " - "); each(" - ", " + ")
    each("return true;", "return false;"); each("return false;", "return true;")
    each("\\(!", "(")
    # integer constants (not part of a name, a hex or a float): N -> N+1
    s = " " b " "; off = -1
    while ((p = match(s, /[^A-Za-z0-9_.x][0-9]+[uUlL]*[^A-Za-z0-9_.x]/)) > 0) {
        num = substr(s, p + 1, RLENGTH - 2); sub(/[uUlL]+$/, "", num)
        print NR "\t" off + p "\t" num "\t" num + 1
        off += p + RLENGTH - 2; s = substr(s, p + RLENGTH - 1)
    }
    # a bare call statement alone on its line
    if (b ~ /^[ \t]+[a-z_][a-z_0-9]*\(.*\);[ \t]*$/ && b !~ /^[ \t]+(return|if|while|for|switch|sizeof)\(/) {
        o = gsub(/\(/, "(", b); c = gsub(/\)/, ")", b)
        if (o == c) { match(line, /[^ \t]/); print NR "\t" RSTART - 1 "\t" substr(line, RSTART) "\t(void)0;" }
    }
}' "$ROOT/$FILE" > "$W/.mutants"

N=$(wc -l < "$W/.mutants")
if [ "${MUTATE_LIST:-0}" = 1 ]; then     # only list them: LINE COLUMN FROM TO
    cat "$W/.mutants"
    exit 0
fi
# The copy: what git tracks, as it is now (uncommitted edits included).
(cd "$ROOT" && git ls-files -z --cached --others --exclude-standard | xargs -0 cp --parents -t "$W" 2>/dev/null)
cd "$W" || exit 1
B=build-mut
MK=(B="$B" OPT="-O0")
[ "$MUTATE_SAN" = 1 ] && MK=(B="$B" SAN=1)
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=0}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
build() { make -s -j"$JOBS" "${MK[@]}" "$B/unit-tests" > "$W/.build.log" 2>&1; }
# The shell's "Segmentation fault" line for a mutant that crashes goes nowhere.
unit() { timeout -k 5 "$MUTATE_TIMEOUT" "$B/unit-tests" > "$W/.unit.log" 2>&1; } 2>/dev/null
if ! build; then
    tail -n 20 "$W/.build.log"
    echo "mutate: the unmutated tree does not build" >&2
    exit 1
fi
if ! unit; then
    grep -E '^FAIL' "$W/.unit.log" | head
    echo "mutate: the unit tests fail on the unmutated tree" >&2
    exit 1
fi
echo "mutate $FILE: tree copied and built in $((SECONDS - T0)) s"
cp "$FILE" "$W/.orig"

echo "mutate $FILE: $N mutants (lines $FROM-$([ "$TO" = 1000000 ] && echo end || echo "$TO")); budget $MUTATE_BUDGET s, about 5 s each"
killed=0 survived=0 stillborn=0 i=0
# sed's replacement needs \ & and the delimiter escaped; its pattern, those and regex characters.
esc_re() { printf '%s' "$1" | sed 's/[]\/$*.^[]/\\&/g'; }
esc_rep() { printf '%s' "$1" | sed 's/[\/&]/\\&/g'; }
while IFS=$'\t' read -r ln col from to; do
    if [ $((SECONDS - T0)) -ge "$MUTATE_BUDGET" ]; then
        echo "mutate: budget of $MUTATE_BUDGET s spent: $((N - i)) mutants not tried"
        break
    fi
    i=$((i + 1))
    cp "$W/.orig" "$FILE"
    sed -i "${ln}s/^\\(.\\{$col\\}\\)$(esc_re "$from")/\\1$(esc_rep "$to")/" "$FILE"
    if cmp -s "$W/.orig" "$FILE"; then
        stillborn=$((stillborn + 1)); verdict=UNAPPLIED
    elif ! build; then
        stillborn=$((stillborn + 1)); verdict=STILLBORN
    elif unit; then
        survived=$((survived + 1)); verdict=SURVIVED
    else
        killed=$((killed + 1)); verdict=killed
    fi
    if [ "$verdict" = SURVIVED ] || [ "$MUTATE_VERBOSE" = 1 ]; then
        printf '%-9s %s:%s  [%s] -> [%s]  %s\n' "$verdict" "$FILE" "$ln" "$from" "$to" \
            "$(sed -n "${ln}p" "$FILE" | sed 's/^[ \t]*//' | cut -c1-100)"
    fi
done < "$W/.mutants"
cp "$W/.orig" "$FILE"
total=$((killed + survived))
score=$([ "$total" -gt 0 ] && echo $((100 * killed / total)) || echo 0)
echo "mutate $FILE: $killed killed, $survived survived, $stillborn stillborn of $i tried ($N made) in $((SECONDS - T0)) s; score $killed/$total = $score%"
