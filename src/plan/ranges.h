/*
 * ranges: where to cut the rest of a listing into key ranges that can be
 * listed at the same time. Pure: keys in, split points out.
 *
 * A range is (after, hi]: the keys greater than 'after' (ListObjectsV2's
 * StartAfter) and not greater than 'hi'. Any set of increasing points
 * between 'after' and 'hi' cuts it into ranges that together hold exactly
 * the keys it held, so a bad guess costs requests, never keys: the points
 * only decide how evenly the work spreads.
 *
 * The guess: a full page of keys from 'first' to 'last' shares the prefix
 * of the two; the keys after it are guessed to come in blocks of the same
 * shape, so the points are last's prefix one character shorter, then two
 * shorter... each followed by the characters seen in the keys so far (the
 * alphabet): after "P000000000".."P000000999", "P000001".."P000009", then
 * "P00001".."P00009" and so on, which in a tree of directories falls on
 * directory names. A block that turns out big is cut again when its own
 * first page comes back full.
 */
#ifndef S3C_PLAN_RANGES_H
#define S3C_PLAN_RANGES_H

#include <stdbool.h>
#include <stddef.h>

#include "base/buf.h"
#include "base/str.h"

#define RANGES_PER_DEPTH_MAX 16     /* points per prefix length (the alphabet thinned out) */

/* The bytes seen in keys after the listing's prefix. */
struct ranges_alphabet {
    bool has[256];
};

/* Add the bytes of 'key' from offset 'from' on. */
void ranges_alphabet_add(struct ranges_alphabet *a, struct sv key, size_t from);

/*
 * Points that cut (last, hi] (hi NULL: no upper end), after a full page
 * from 'first' to 'last' of keys that share their first 'from' bytes (the
 * listing's prefix): at most 'max', increasing, each greater than 'last'
 * and less than 'hi', appended to 'out' NUL-terminated one after another.
 * Returns how many (0: no cut guessed; the range goes on as it is).
 */
size_t ranges_split(const struct ranges_alphabet *a, struct sv first, struct sv last, const char *hi,
                    size_t from, size_t max, struct buf *out);

#endif
