/*
 * libFuzzer target for plan/wild and plan/filter. The first input byte
 * picks where the pattern ends; the pattern runs to there (or to a NUL, as
 * patterns are C strings) and the rest is the subject. Checks, beyond "no
 * crash, no UB, no timeout" (the matchers must stay polynomial):
 *   - wild_match and wild_fnmatch agree with the slow reference of
 *     tests/unit/test_plan_wild_ref.h (on inputs it can hold);
 *   - wild_fnmatch3 over a subject split around a '/' equals wild_fnmatch;
 *   - a wild_match hit starts with the literal prefix; wild_has agrees with
 *     wild_prefix_len; wild_relative and wild_base return suffixes/slices;
 *   - a one-filter --exclude accepts exactly what wild_fnmatch rejects.
 * Build and run: make -f tests/fuzz/Makefile fuzz-wild
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../unit/test_plan_wild_ref.h"
#include "plan/filter.h"
#include "plan/wild.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static uint32_t pc[WREF_MAX], sc[WREF_MAX];
    static struct rtok t[WREF_MAX];
    struct filter f = FILTER_INIT;
    struct buf pre = BUF_INIT(1 << 16);
    char *pat;
    const char *slash;
    struct sv s, r;
    size_t plen;
    int np, ns, nt;
    bool m, fm;

    if (size < 1)
        return 0;
    plen = data[0] < size - 1 ? data[0] : size - 1;
    pat = malloc(plen + 1);
    if (!pat)
        return 0;
    memcpy(pat, data + 1, plen);
    pat[plen] = '\0';
    s = (struct sv){ (const char *)data + 1 + plen, size - 1 - plen };

    m = wild_match(pat, s);
    fm = wild_fnmatch(sv_from(pat), s);

    np = wref_decode(pat, strlen(pat), pc);
    ns = wref_decode(s.p, s.n, sc);
    if (np >= 0 && ns >= 0) {
        nt = wref_translate_s5(pc, np, t);
        if (wref_match(t, nt, sc, ns) != m)
            abort();
        nt = wref_translate_fn(pc, np, t);
        if (wref_match(t, nt, sc, ns) != fm)
            abort();
    }

    slash = memchr(s.p, '/', s.n);
    if (slash) {
        size_t a = (size_t)(slash - s.p);

        if (wild_fnmatch3(sv_from(pat), (struct sv){ s.p, a }, SV("/"),
                          (struct sv){ slash + 1, s.n - a - 1 }) != fm)
            abort();
    }

    if (wild_has(pat) != (pat[wild_prefix_len(pat)] != '\0'))
        abort();
    if (wild_prefix(pat, &pre) != S3C_OK || pre.len > wild_prefix_len(pat))
        abort();
    if (m && (s.n < pre.len || memcmp(s.p, buf_cstr(&pre), pre.len) != 0))
        abort();

    r = wild_relative(pat, s);
    if (r.p < s.p || r.p + r.n != s.p + s.n)
        abort();
    r = wild_base(s);
    if (r.p < s.p || r.p + r.n > s.p + s.n)
        abort();

    if (pat[0] != '/' && filter_add(&f, FILTER_EXCLUDE, pat, NULL) == S3C_OK &&
        filter_accept(&f, "bucket/root", s) == fm)
        abort();

    filter_release(&f);
    buf_release(&pre);
    free(pat);
    return 0;
}
