#!/bin/sh
# Check that the files of one source directory call each other one way only.
# From the objects' symbols (nm: what each defines, what each needs), a file
# depends on another when it uses a function or variable the other defines;
# any loop among them fails the check. On success, prints the files from the
# bottom up (each uses only files before it).
#
#   scripts/check-layers.sh [BUILD_DIR] [SRC_DIR]     (default: build src/xfer)
set -eu
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
# "definer user" pairs, one per dependency; every file also stands alone.
join "$tmp/defs" "$tmp/uses" | awk '$2 != $3 { print $2, $3 }' | sort -u > "$tmp/edges"
for o in $objs; do f=$(basename "$o" .o); echo "$f $f"; done >> "$tmp/edges"
if ! tsort "$tmp/edges" > "$tmp/order" 2> "$tmp/err"; then
    echo "check-layers: $DIR has a loop (file A -> file B: A uses what B defines):" >&2
    echo "  in the loop: $(grep -v 'input contains a loop' "$tmp/err" | sed 's/^tsort: //' | tr '\n' ' ')" >&2
    awk '$1 != $2 { print "  " $2 " -> " $1 }' "$tmp/edges" >&2
    exit 1
fi
echo "check-layers: $DIR one way, bottom up: $(tr '\n' ' ' < "$tmp/order")"
