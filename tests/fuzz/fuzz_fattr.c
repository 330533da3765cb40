/*
 * libFuzzer target for s3/fattr: the mtime, mode and owner other tools (and
 * anyone) write in an object's user metadata, which every download reads.
 * The input is up to five '\n'-separated values: x-amz-meta-mtime, -mode,
 * -uid, -gid and s3cmd-attrs. Checks:
 *   - what parses is in range: nanoseconds 0..999,999,999, a mode of 07777 at most;
 *   - a parsed mtime formats and parses back to the same seconds and nanoseconds.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "s3/fattr.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct sv field[5] = { SV_NULL, SV_NULL, SV_NULL, SV_NULL, SV_NULL };
    const char *p = (const char *)data, *end = p + size;
    struct fattr a = FATTR_INIT;
    struct fattr_meta m;
    int i;

    for (i = 0; i < 5 && p <= end; i++) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);

        field[i] = (struct sv){ p, n };
        p += n + 1;
    }
    m = (struct fattr_meta){ field[0], field[1], field[2], field[3], field[4] };
    fattr_from_meta(&a, &m);
    if (a.has_mode && a.mode > 07777)
        abort();
    if (a.has_mtime) {
        char text[FATTR_MTIME_MAX];
        int64_t s = 0;
        int32_t ns = 0;

        if (a.mtime_ns < 0 || a.mtime_ns > 999999999)
            abort();
        fattr_mtime_format(a.mtime_s, a.mtime_ns, text);
        if (!fattr_mtime_parse(sv_from(text), &s, &ns) || s != a.mtime_s || ns != a.mtime_ns)
            abort();
    }
    return 0;
}
