/*
 * creds_cache.c: the AWS CLI's JSONFileCache for temporary credentials
 * (~/.aws/cli/cache/<sha1>.json), read and written in the CLI's format and
 * under the CLI's file names, so `aws` and s3c reuse each other's assumed
 * roles and SSO role credentials. A broken or unreadable entry is a miss,
 * never an error; a failed write only costs the next run a call.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "auth/creds_impl.h"

/* Python writes the hex of a \uXXXX escape in lower case, jansson in upper case. */
static void lower_escapes(char *s)
{
    int i;

    for (; *s; s++) {
        if (*s != '\\')
            continue;
        if (s[1] == 'u')
            for (i = 2; i < 6 && s[i]; i++)
                if (s[i] >= 'A' && s[i] <= 'F')
                    s[i] = (char)(s[i] - 'A' + 'a');
        if (s[1])
            s++;                            /* the escaped character is not a backslash */
    }
}

/* The SHA-1 of a JSON text made by jansson with 'flags', as hex. */
static enum s3c_err key_of(json_t *args, size_t flags, char out[41], struct s3c_error *e)
{
    char *text = args ? json_dumps(args, flags) : NULL;

    json_decref(args);
    if (!text)
        return s3c_fail(e, S3C_ENOMEM, "credentials cache: out of memory");
    lower_escapes(text);
    creds_sha1_hex(text, strlen(text), out);
    free(text);
    return S3C_OK;
}

static bool set_str(json_t *o, const char *k, const char *v)
{
    return !v || json_object_set_new(o, k, json_string(v)) == 0;
}

enum s3c_err creds_cache_key_role(const struct creds_src *s, char out[41], struct s3c_error *e)
{
    json_t *args = json_object();

    /* botocore hashes json.dumps(kwargs, sort_keys=True): ", " and ": " separators,
     * non-ASCII escaped -- exactly jansson's default format with these flags. */
    if (args && (!set_str(args, "RoleArn", s->role_arn) ||
                 (!s->session_default && !set_str(args, "RoleSessionName", s->session_name)) ||
                 !set_str(args, "ExternalId", s->external_id) ||
                 !set_str(args, "SerialNumber", s->mfa_serial) ||
                 (s->duration_s && json_object_set_new(args, "DurationSeconds",
                                                        json_integer(s->duration_s))))) {
        json_decref(args);
        args = NULL;
    }
    return key_of(args, JSON_SORT_KEYS | JSON_ENSURE_ASCII, out, e);
}

enum s3c_err creds_cache_key_sso(const struct creds_src *s, char out[41], struct s3c_error *e)
{
    json_t *args = json_object();

    if (args && (!set_str(args, "roleName", s->role_name) ||
                 !set_str(args, "accountId", s->account_id) ||
                 !(s->sso_session ? set_str(args, "sessionName", s->sso_session)
                                  : set_str(args, "startUrl", s->start_url)))) {
        json_decref(args);
        args = NULL;
    }
    return key_of(args, JSON_SORT_KEYS | JSON_ENSURE_ASCII | JSON_COMPACT, out, e);
}

/* dir/key.json into 'path'. */
static bool entry_path(struct buf *path, const char *dir, const char *key, const char *suffix)
{
    return !buf_adds(path, dir) && !buf_addc(path, '/') && !buf_adds(path, key) &&
           !buf_adds(path, ".json") && !buf_adds(path, suffix);
}

/* A whole small file into 'out' (capped); false if missing or unreadable. */
static bool read_small(const char *path, struct buf *out)
{
    char chunk[4096];
    ssize_t n;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    bool ok = fd >= 0;

    while (ok && (n = read(fd, chunk, sizeof(chunk))) != 0) {
        if (n < 0 && errno == EINTR)
            continue;
        ok = n > 0 && !buf_add(out, chunk, (size_t)n);
        explicit_bzero(chunk, sizeof(chunk));
    }
    if (fd >= 0)
        close(fd);
    return ok;
}

static void wipe_buf(struct buf *b)
{
    if (b->data)
        explicit_bzero(b->data, b->cap);
    buf_release(b);
}

enum s3c_err creds_cache_read(const char *dir, const char *key, time_t now, struct creds *out,
                              bool *hit, struct s3c_error *e)
{
    struct buf path = BUF_INIT(8192), text = BUF_INIT(CREDS_JSON_MAX_BYTES);
    json_t *root = NULL, *c;
    const char *ak, *sk, *tok, *exp;
    time_t t;
    enum s3c_err rc = S3C_OK;

    *hit = false;
    if (!dir || !entry_path(&path, dir, key, "") || !read_small(buf_cstr(&path), &text))
        goto out;
    if (!(root = json_loadb(text.data, text.len, 0, NULL)) ||
        !(c = json_object_get(root, "Credentials")))
        goto out;
    ak = json_string_value(json_object_get(c, "AccessKeyId"));
    sk = json_string_value(json_object_get(c, "SecretAccessKey"));
    tok = json_string_value(json_object_get(c, "SessionToken"));
    exp = json_string_value(json_object_get(c, "Expiration"));
    if (!ak || !sk || !exp || !creds_parse_time(exp, &t) || t - now < CREDS_CACHE_WINDOW_S)
        goto out;
    creds_release(out);
    if ((rc = creds_dup(&out->access_key, ak, e)) || (rc = creds_dup(&out->secret_key, sk, e)) ||
        (rc = creds_dup(&out->session_token, tok, e))) {
        creds_release(out);
        goto out;
    }
    out->expires = t;
    *hit = true;
out:
    json_decref(root);
    wipe_buf(&text);
    buf_release(&path);
    return rc;
}

/* mkdir -p, each missing level 0700: the directory holds secrets. */
static bool mkdir_p(const char *dir)
{
    struct buf sub = BUF_INIT(8192);
    const char *p = dir;
    bool ok = true;

    while (ok) {
        p = strchr(p + 1, '/');
        buf_reset(&sub);
        ok = !buf_add(&sub, dir, p ? (size_t)(p - dir) : strlen(dir)) &&
             (mkdir(buf_cstr(&sub), 0700) == 0 || errno == EEXIST);
        if (!p)
            break;
    }
    buf_release(&sub);
    return ok;
}

void creds_cache_write(const char *dir, const char *key, json_t *entry)
{
    struct buf path = BUF_INIT(8192), tmp = BUF_INIT(8192);
    char *text = NULL, suffix[48];
    size_t len, done = 0;
    int fd = -1;

    if (!dir || !entry || !(text = json_dumps(entry, 0)))
        goto out;
    if (!mkdir_p(dir))
        goto out;
    snprintf(suffix, sizeof(suffix), ".tmp%ld", (long)getpid());
    if (!entry_path(&path, dir, key, "") || !entry_path(&tmp, dir, key, suffix))
        goto out;
    fd = open(buf_cstr(&tmp), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0600);
    if (fd < 0)
        goto out;
    len = strlen(text);
    while (done < len) {
        ssize_t n = write(fd, text + done, len - done);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break;
        done += (size_t)n;
    }
    if (close(fd) != 0 || done < len || rename(buf_cstr(&tmp), buf_cstr(&path)) != 0)
        unlink(buf_cstr(&tmp));
    fd = -1;
out:
    if (fd >= 0) {
        close(fd);
        unlink(buf_cstr(&tmp));
    }
    if (text) {
        explicit_bzero(text, strlen(text));
        free(text);
    }
    buf_release(&tmp);
    buf_release(&path);
}

json_t *creds_cache_entry(const struct creds *c, const char *expiration_text)
{
    json_t *root = json_object(), *cr = json_object();

    if (!root || !cr || !set_str(cr, "AccessKeyId", c->access_key) ||
        !set_str(cr, "SecretAccessKey", c->secret_key) ||
        !set_str(cr, "SessionToken", c->session_token) ||
        !set_str(cr, "Expiration", expiration_text) ||
        json_object_set(root, "Credentials", cr) != 0) {
        json_decref(cr);
        json_decref(root);
        return NULL;
    }
    json_decref(cr);
    return root;
}
