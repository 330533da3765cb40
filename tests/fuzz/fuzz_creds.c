/*
 * libFuzzer target for the credential JSON s3c reads from outside
 * (auth/creds_*): the first byte picks the reader, the rest is its text.
 *   0  a credential_process reply (creds_process_parse)
 *   1  an IMDS or container credentials reply (creds_from_metadata_json)
 *   2  an entry of the CLI's cache, ~/.aws/cli/cache/KEY.json (creds_cache_read)
 *   3  the SSO token cache, ~/.aws/sso/cache/KEY.json (creds_sso_load_token)
 * and every input is also tried as an ISO 8601 time (creds_parse_time).
 * Checks, beyond "no crash, no leak, no UB": keys read are both there and
 * non-empty strings where the reader promises so, and a failure leaves a
 * one-line message.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "auth/creds_impl.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char dir[64];

static void write_file(const char *path, const uint8_t *p, size_t n)
{
    FILE *f = fopen(path, "wb");

    if (!f)
        abort();
    if (n && fwrite(p, 1, n, f) != n)
        abort();
    fclose(f);
}

static void check(enum s3c_err rc, const struct creds *c, const struct s3c_error *e)
{
    if (rc == S3C_OK) {
        if (!c->access_key || !c->secret_key)
            abort();
    } else if (c->access_key || c->secret_key || c->session_token || !e->msg[0] ||
               strlen(e->msg) >= sizeof(e->msg)) {
        abort();
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct creds c = CREDS_INIT;
    struct s3c_error e = S3C_ERROR_INIT;
    const char *text = (const char *)data + 1;
    size_t n = size ? size - 1 : 0;
    char path[128], *s;
    enum s3c_err rc;
    time_t t;

    if (!dir[0]) {
        snprintf(dir, sizeof(dir), "/tmp/s3c-fuzz-creds.%d", (int)getpid());
        (void)mkdir(dir, 0700);
    }
    if (!size)
        return 0;
    switch (data[0] % 4) {
    case 0:
        rc = creds_process_parse(text, n, &c, &e);
        check(rc, &c, &e);
        break;
    case 1: {
        json_t *o = json_loadb(text, n, 0, NULL);

        if (o) {
            rc = creds_from_metadata_json(o, "instance metadata", &c, &e);
            check(rc, &c, &e);
            json_decref(o);
        }
        break;
    }
    case 2: {
        bool hit = false;

        snprintf(path, sizeof(path), "%s/entry.json", dir);
        write_file(path, (const uint8_t *)text, n);
        rc = creds_cache_read(dir, "entry", 0, &c, &hit, &e);
        if (rc || (hit && (!c.access_key || !c.secret_key || !c.expires)) || (!hit && c.access_key))
            abort();
        break;
    }
    default: {
        struct creds_src src;
        char key[41], *token = NULL;

        memset(&src, 0, sizeof(src));
        src.kind = CREDS_KIND_SSO;
        src.profile = (char *)"dev";
        src.sso_session = (char *)"fuzz";
        src.token_file = dir;
        creds_sso_token_key("fuzz", key);
        snprintf(path, sizeof(path), "%s/%s.json", dir, key);
        write_file(path, (const uint8_t *)text, n);
        rc = creds_sso_load_token(&src, &token, &e);
        if ((rc == S3C_OK) != (token != NULL) || (rc && (!e.msg[0] || strlen(e.msg) >= sizeof(e.msg))))
            abort();
        creds_free_secret(token);
        break;
    }
    }
    creds_release(&c);
    /* The time stamps of every reader. */
    if ((s = malloc(n + 1))) {
        memcpy(s, text, n);
        s[n] = '\0';
        (void)creds_parse_time(s, &t);
        free(s);
    }
    return 0;
}
