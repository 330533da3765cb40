#!/bin/sh
# Check that the files of one source directory call each other one way only.
# From the objects' symbols (nm: what each defines, what each needs), a file
# depends on another when it uses a function or variable the other defines;
# any loop among them fails the check. On success, prints the files from the
# bottom up (each uses only files before it).
#
#   scripts/check-layers.sh [-a USER:DEFINER]... [BUILD_DIR] [SRC_DIR]
#                                              (default: build src/xfer)
#
# -a names one call that is known to run back up (USER.c uses what
# DEFINER.c defines, though DEFINER.c reaches USER.c): it is left out of the
# check and printed, so that it is neither forgotten nor copied. Any other
# loop still fails, and so does an -a that no longer matches a call (the
# call went away: drop the -a). `make layers` runs this on each directory it
# keeps one way.
set -eu
allowed=
while getopts a: opt; do
    case $opt in
    a) allowed="$allowed $OPTARG" ;;
    *) echo "usage: check-layers.sh [-a USER:DEFINER]... [BUILD_DIR] [SRC_DIR]" >&2; exit 2 ;;
    esac
done
shift $((OPTIND - 1))
B=${1:-build}
DIR=${2:-src/xfer}
objs=$(ls "$B/$DIR"/*.o 2>/dev/null) || { echo "check-layers: no objects in $B/$DIR (build first)" >&2; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

for o in $objs; do
    f=$(basename "$o" .o)
    nm -g --defined-only "$o" | awk -v f="$f" 'NF == 3 { print $3, f }'
done | sort > "$tmp/defs"
for o in $objs; do
    f=$(basename "$o" .o)
    nm -u "$o" | awk -v f="$f" '{ print $NF, f }'
done | sort > "$tmp/uses"
# "definer user" pairs, one per dependency.
join "$tmp/defs" "$tmp/uses" | awk '$2 != $3 { print $2, $3 }' | sort -u > "$tmp/deps"
: > "$tmp/drop"
for a in $allowed; do
    user=${a%%:*} definer=${a#*:}
    if ! grep -qx "$definer $user" "$tmp/deps"; then
        echo "check-layers: $DIR: -a $a: $user.c does not use $definer.c (any more?): drop the -a" >&2
        exit 1
    fi
    echo "$definer $user" >> "$tmp/drop"
done
sort -u "$tmp/drop" | comm -23 "$tmp/deps" - > "$tmp/edges"
# Every file also stands alone.
for o in $objs; do f=$(basename "$o" .o); echo "$f $f"; done >> "$tmp/edges"
if ! tsort "$tmp/edges" > "$tmp/order" 2> "$tmp/err"; then
    grep -v 'input contains a loop' "$tmp/err" | sed 's/^tsort: //' | sort -u > "$tmp/loop"
    echo "check-layers: $DIR has a loop (file A -> file B: A uses what B defines):" >&2
    echo "  in the loop: $(tr '\n' ' ' < "$tmp/loop")" >&2
    # The calls among the files of the loop, with the names that make them.
    join "$tmp/defs" "$tmp/uses" | awk '$2 != $3 { print $3, $2, $1 }' | sort |
        awk -v drop="$tmp/drop" -v loop="$tmp/loop" '
            BEGIN { while ((getline l < loop) > 0) in_loop[l] = 1
                    while ((getline l < drop) > 0) { split(l, p, " "); allowed[p[2] " " p[1]] = 1 } }
            in_loop[$1] && in_loop[$2] && !allowed[$1 " " $2] {
                k = $1 " -> " $2
                if (k != last) { if (last != "") print "  " last ": " names; last = k; names = $3 }
                else names = names " " $3
            }
            END { if (last != "") print "  " last ": " names }' >&2
    exit 1
fi
echo "check-layers: $DIR one way, bottom up: $(tr '\n' ' ' < "$tmp/order")"
if [ -s "$tmp/drop" ]; then
    echo "  known to run back up (to be moved): $(awk '{ printf "%s%s -> %s", (NR > 1 ? ", " : ""), $2, $1 }' "$tmp/drop")"
fi
