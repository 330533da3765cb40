/*
 * creds_time.c: the time stamps and digests the credential chain reads and
 * writes: ISO 8601 expirations (every form STS, SSO, the metadata services,
 * credential_process tools and the CLI's cache write) and SHA-1 file names.
 * Pure functions: no clock, no I/O.
 */
#include <stdbool.h>
#include <string.h>
#include <time.h>

#include <openssl/sha.h>

#include "auth/creds_impl.h"
#include "base/isotime.h"
#include "base/str.h"

bool creds_parse_time(const char *s, time_t *out)
{
    return iso8601_parse(s, out);
}

void creds_format_time(time_t t, char out[21])
{
    struct tm tm;

    gmtime_r(&t, &tm);
    strftime(out, 21, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

void creds_sha1_hex(const void *p, size_t n, char out[41])
{
    unsigned char md[SHA_DIGEST_LENGTH];

    SHA1(p, n, md);
    str_hex(md, sizeof(md), out);
}
