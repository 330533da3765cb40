/*
 * A slow, independent reference for plan/wild, shared by the unit test and
 * the libFuzzer target (tests/fuzz/fuzz_wild.c). Python's
 * fnmatch.translate() is followed literally (chunks split at range hyphens,
 * reversed ranges merged away, then '!' checked), on arrays of code points;
 * s5cmd patterns go through a separate small tokenizer; a dynamic-programming
 * matcher decides. Inputs are at most WREF_MAX characters each.
 */
#ifndef S3C_TESTS_WILD_REF_H
#define S3C_TESTS_WILD_REF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define WREF_MAX 64

enum rkind { R_STAR, R_ANY, R_LIT, R_SET, R_NEVER };

struct rtok {
    enum rkind kind;
    uint32_t cp;                /* R_LIT */
    bool neg;                   /* R_SET */
    int n;                      /* R_SET: ranges */
    uint32_t lo[WREF_MAX], hi[WREF_MAX];
};

/* Decode bytes to code points, each invalid byte as 0xDC00|byte; returns the count, or -1 if over WREF_MAX. */
static inline int wref_decode(const char *str, size_t n, uint32_t *out)
{
    const unsigned char *p = (const unsigned char *)str;
    size_t i = 0, len, j;
    int k = 0;

    while (i < n) {
        uint32_t c = p[i], v = 0;

        len = 0;
        if (c < 0x80)
            v = c, len = 1;
        else if (c >= 0xC2 && c <= 0xDF)
            v = c & 0x1F, len = 2;
        else if (c >= 0xE0 && c <= 0xEF)
            v = c & 0x0F, len = 3;
        else if (c >= 0xF0 && c <= 0xF4)
            v = c & 0x07, len = 4;
        if (len > 1) {
            if (i + len > n)
                len = 0;
            for (j = 1; len && j < len; j++) {
                if ((p[i + j] & 0xC0) != 0x80)
                    len = 0;
                else
                    v = (v << 6) | (p[i + j] & 0x3F);
            }
            if (len && (v < (len == 2 ? 0x80u : len == 3 ? 0x800u : 0x10000u) || v > 0x10FFFF ||
                        (v >= 0xD800 && v <= 0xDFFF)))
                len = 0;
        }
        if (!len)
            v = 0xDC00 | c, len = 1;
        if (k == WREF_MAX)
            return -1;
        out[k++] = v;
        i += len;
    }
    return k;
}

static inline int wref_translate_fn(const uint32_t *pat, int n, struct rtok *t)
{
    int i = 0, nt = 0;

    while (i < n) {
        uint32_t c = pat[i++];

        memset(&t[nt], 0, sizeof(t[nt]));
        if (c == '*') {
            if (nt == 0 || t[nt - 1].kind != R_STAR)
                t[nt++].kind = R_STAR;
        } else if (c == '?') {
            t[nt++].kind = R_ANY;
        } else if (c == '[') {
            int j = i;

            if (j < n && pat[j] == '!')
                j++;
            if (j < n && pat[j] == ']')
                j++;
            while (j < n && pat[j] != ']')
                j++;
            if (j >= n) {
                t[nt].kind = R_LIT, t[nt++].cp = '[';
            } else {
                static uint32_t ch[WREF_MAX][WREF_MAX + 1];
                int cl[WREF_MAX], nch = 0, k, a, b, hy = 0, ii = i, m, s_n = 0;
                uint32_t s[2 * WREF_MAX];
                bool sep[2 * WREF_MAX];

                for (k = i; k < j; k++)
                    hy |= pat[k] == '-';
                if (!hy) {
                    cl[0] = j - i;
                    memcpy(ch[0], pat + i, sizeof(uint32_t) * (size_t)(j - i));
                    nch = 1;
                } else {
                    k = pat[ii] == '!' ? ii + 2 : ii + 1;
                    for (;;) {
                        int f = -1;

                        for (m = k; m < j; m++)
                            if (pat[m] == '-') {
                                f = m;
                                break;
                            }
                        if (f < 0)
                            break;
                        cl[nch] = f - ii;
                        memcpy(ch[nch++], pat + ii, sizeof(uint32_t) * (size_t)(f - ii));
                        ii = f + 1;
                        k = f + 3;
                    }
                    if (j - ii > 0) {
                        cl[nch] = j - ii;
                        memcpy(ch[nch++], pat + ii, sizeof(uint32_t) * (size_t)(j - ii));
                    } else {
                        ch[nch - 1][cl[nch - 1]++] = '-';
                    }
                    for (k = nch - 1; k > 0; k--) {
                        if (ch[k - 1][cl[k - 1] - 1] > ch[k][0]) {
                            cl[k - 1]--;
                            for (a = 1; a < cl[k]; a++)
                                ch[k - 1][cl[k - 1]++] = ch[k][a];
                            for (a = k; a + 1 < nch; a++) {
                                memcpy(ch[a], ch[a + 1], sizeof(ch[a]));
                                cl[a] = cl[a + 1];
                            }
                            nch--;
                        }
                    }
                }
                /* flatten: s[] with sep[] marking "a range hyphen precedes" */
                for (a = 0; a < nch; a++)
                    for (b = 0; b < cl[a]; b++) {
                        sep[s_n] = a > 0 && b == 0;
                        s[s_n++] = ch[a][b];
                    }
                i = j + 1;
                if (s_n == 0) {
                    t[nt++].kind = R_NEVER;
                } else if (s_n == 1 && s[0] == '!') {
                    t[nt++].kind = R_ANY;
                } else {
                    int start = 0;

                    t[nt].kind = R_SET;
                    if (s[0] == '!') {
                        /* regexp "[^" + rest: a range hyphen right after '^' is a literal */
                        t[nt].neg = true, start = 1;
                        if (s_n > 1 && sep[1]) {
                            t[nt].lo[t[nt].n] = '-', t[nt].hi[t[nt].n++] = '-';
                            sep[1] = false;
                        }
                    }
                    for (a = start; a < s_n; a++) {
                        if (a + 1 < s_n && sep[a + 1]) {
                            t[nt].lo[t[nt].n] = s[a], t[nt].hi[t[nt].n++] = s[a + 1];
                            a++;
                        } else {
                            t[nt].lo[t[nt].n] = s[a], t[nt].hi[t[nt].n++] = s[a];
                        }
                    }
                    nt++;
                }
            }
        } else {
            t[nt].kind = R_LIT, t[nt++].cp = c;
        }
    }
    return nt;
}

static inline int wref_translate_s5(const uint32_t *pat, int n, struct rtok *t)
{
    int i = 0, nt = 0;

    while (i < n) {
        uint32_t c = pat[i++];

        memset(&t[nt], 0, sizeof(t[nt]));
        if (c == '*')
            t[nt++].kind = R_STAR;
        else if (c == '?')
            t[nt++].kind = R_ANY;
        else if (c == '\\' && i < n && (pat[i] == '*' || pat[i] == '?' || pat[i] == '\\'))
            t[nt].kind = R_LIT, t[nt++].cp = pat[i++];
        else
            t[nt].kind = R_LIT, t[nt++].cp = c;
    }
    return nt;
}

static inline bool wref_one(const struct rtok *t, uint32_t c)
{
    int k;
    bool in = false;

    switch (t->kind) {
    case R_ANY: return true;
    case R_LIT: return t->cp == c;
    case R_SET:
        for (k = 0; k < t->n; k++)
            in |= t->lo[k] <= c && c <= t->hi[k];
        return in != t->neg;
    default: return false;
    }
}

static inline bool wref_match(const struct rtok *t, int nt, const uint32_t *s, int n)
{
    static bool dp[WREF_MAX + 1][WREF_MAX + 1];    /* dp[i][j]: t[i..] matches s[j..] */
    int i, j;

    for (i = nt; i >= 0; i--)
        for (j = n; j >= 0; j--) {
            if (i == nt)
                dp[i][j] = j == n;
            else if (t[i].kind == R_STAR)
                dp[i][j] = dp[i + 1][j] || (j < n && dp[i][j + 1]);
            else
                dp[i][j] = j < n && wref_one(&t[i], s[j]) && dp[i + 1][j + 1];
        }
    return dp[0][0];
}

#endif
