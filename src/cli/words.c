#include "cli/words.h"

#include <string.h>

static int is_blank(char c)
{
    return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}

enum s3c_err words_split(const char *line, struct buf *store, char **argv, int *argc, struct s3c_error *e)
{
    size_t starts[WORDS_MAX];
    const char *p = line;
    int n = 0, i;

    *argc = 0;
    store->len = 0;
    for (;;) {
        while (is_blank(*p))
            p++;
        if (!*p || *p == '#')
            break;
        if (n == WORDS_MAX)
            return s3c_fail(e, S3C_EUSAGE, "more than %d words on one line", WORDS_MAX);
        starts[n++] = store->len;
        while (*p && !is_blank(*p)) {
            if (*p == '\'') {
                const char *q = strchr(p + 1, '\'');
                if (!q)
                    return s3c_fail(e, S3C_EUSAGE, "unterminated single quote");
                if (buf_add(store, p + 1, (size_t)(q - p - 1)))
                    goto too_long;
                p = q + 1;
            } else if (*p == '"') {
                for (p++; *p && *p != '"'; p++) {
                    if (*p == '\\' && p[1] && strchr("\"\\$`", p[1]))
                        p++;
                    if (buf_addc(store, *p))
                        goto too_long;
                }
                if (*p != '"')
                    return s3c_fail(e, S3C_EUSAGE, "unterminated double quote");
                p++;
            } else if (*p == '\\') {
                if (!p[1])
                    return s3c_fail(e, S3C_EUSAGE, "a backslash ends the line");
                if (buf_addc(store, p[1]))
                    goto too_long;
                p += 2;
            } else {
                if (buf_addc(store, *p))
                    goto too_long;
                p++;
            }
        }
        if (buf_addc(store, '\0'))
            goto too_long;
    }
    /* The store may have moved while growing: point into it only now. */
    for (i = 0; i < n; i++)
        argv[i] = (char *)store->data + starts[i];
    *argc = n;
    return S3C_OK;
too_long:
    return s3c_fail(e, S3C_EUSAGE, "line too long");
}
