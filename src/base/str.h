/*
 * str: string views (pointer + length, not NUL-terminated) and the small
 * string helpers every module needs. No allocation except str_dup*.
 */
#ifndef S3C_BASE_STR_H
#define S3C_BASE_STR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct sv {
    const char *p;  /* not NUL-terminated in general */
    size_t n;
};

#define SV(lit) ((struct sv){ (lit), sizeof(lit) - 1 })
#define SV_NULL ((struct sv){ "", 0 })

struct sv sv_from(const char *s);                 /* s may be NULL: empty view */
bool sv_eq(struct sv a, struct sv b);
bool sv_eqs(struct sv a, const char *s);
bool sv_ieqs(struct sv a, const char *s);         /* ASCII case-insensitive */
bool sv_starts(struct sv a, const char *prefix);
bool sv_is_dir(struct sv a);                      /* ends in '/': a directory ("dir/", a marker's key) */
struct sv sv_trim(struct sv a);                   /* strip ASCII spaces and tabs, CR, LF */

/* malloc'd NUL-terminated copy; NULL on OOM. */
char *sv_dup(struct sv a);

/* Parse all of 'a' as an unsigned decimal; false on junk or overflow. */
bool sv_to_u64(struct sv a, uint64_t *out);

/* Safe copy into a fixed array; always NUL-terminates; returns false if cut. */
bool str_copy(char *dst, size_t dst_size, const char *src);

/* Lower-case hex of 'n' bytes into 'out' (2n+1 bytes incl. NUL). */
void str_hex(const unsigned char *in, size_t n, char *out);

/* The 'n' bytes whose hex (either case) is the first 2n characters of 'hex'; false if one is no hex digit. */
bool str_unhex(const char *hex, unsigned char *out, size_t n);

/* FNV-1a, 64 bits, of 'n' bytes, continuing from 'h' (start with STR_FNV1A_BASIS). */
#define STR_FNV1A_BASIS 0xcbf29ce484222325ull
uint64_t str_fnv1a(uint64_t h, const void *p, size_t n);

/*
 * The length (1..4) of the well-formed UTF-8 sequence at p[0..n), n >= 1,
 * with its code point in *cp; 0 if none starts there (a stray continuation
 * byte, an overlong form, a surrogate, above U+10FFFF, cut short).
 */
size_t str_utf8_next(const unsigned char *p, size_t n, uint32_t *cp);

/* True if all of 'a' is well-formed UTF-8 (str_utf8_next's rule). */
bool sv_is_utf8(struct sv a);

#endif
