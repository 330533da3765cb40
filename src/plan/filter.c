#include "plan/filter.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "plan/wild.h"
#include "s3/uri.h"

enum s3c_err filter_add(struct filter *f, enum filter_kind kind, const char *pattern,
                        struct s3c_error *e)
{
    struct filter_rule *r;
    size_t cap;

    if (f->n >= FILTER_MAX)
        return s3c_fail(e, S3C_ENOMEM, "too many --exclude/--include filters (at most %d)", FILTER_MAX);
    if (f->n == f->cap) {
        cap = f->cap ? 2 * f->cap : 8;
        r = realloc(f->rules, cap * sizeof(*r));
        if (!r)
            return s3c_fail(e, S3C_ENOMEM, "out of memory");
        f->rules = r;
        f->cap = cap;
    }
    r = &f->rules[f->n];
    r->pattern = strdup(pattern);
    if (!r->pattern)
        return s3c_fail(e, S3C_ENOMEM, "out of memory");
    r->kind = kind;
    r->len = strlen(pattern);
    r->absolute = pattern[0] == '/';
    f->n++;
    return S3C_OK;
}

enum s3c_err filter_add_list(struct filter *f, const char *const *flag, const char *const *value,
                             size_t n, struct s3c_error *e)
{
    enum s3c_err rc = S3C_OK;
    size_t i;

    for (i = 0; i < n && !rc; i++) {
        if (strcmp(flag[i], "--exclude") == 0)
            rc = filter_add(f, FILTER_EXCLUDE, value[i], e);
        else if (strcmp(flag[i], "--include") == 0)
            rc = filter_add(f, FILTER_INCLUDE, value[i], e);
    }
    return rc;
}

bool filter_empty(const struct filter *f)
{
    return f->n == 0;
}

static bool rule_matches(const struct filter_rule *r, const char *root, struct sv rel)
{
    struct sv pat = { r->pattern, r->len }, rt;

    if (!r->absolute)
        return wild_fnmatch(pat, rel);
    if (!root)
        return false;
    /* os.path.join(root, rel): one '/' between, none added after a '/'. */
    rt = sv_from(root);
    if (rt.n && rt.p[rt.n - 1] == '/')
        return wild_fnmatch3(pat, rt, SV_NULL, rel);
    return wild_fnmatch3(pat, rt, SV("/"), rel);
}

bool filter_accept(const struct filter *f, const char *root, struct sv rel)
{
    size_t i = f->n;

    /* The last matching filter decides: look from the end, stop at the first hit. */
    while (i-- > 0)
        if (rule_matches(&f->rules[i], root, rel))
            return f->rules[i].kind == FILTER_INCLUDE;
    return true;
}

/* Append 'path' (absolute) to 'out' normalised: ".", "..", "//" folded; no trailing '/'. */
static enum s3c_err add_normalised(struct buf *out, const char *path)
{
    size_t base = out->len, i = 0, len;
    enum s3c_err rc = S3C_OK;

    while (path[i] && !rc) {
        while (path[i] == '/')
            i++;
        len = strcspn(path + i, "/");
        if (len == 0 || (len == 1 && path[i] == '.')) {
            /* nothing */
        } else if (len == 2 && path[i] == '.' && path[i + 1] == '.') {
            while (out->len > base && out->data[out->len - 1] != '/')
                out->len--;
            if (out->len > base)
                out->len--;     /* the '/' too; at the root this stays the root */
            if (out->data)
                out->data[out->len] = '\0';
        } else {
            rc = buf_addc(out, '/');
            if (!rc)
                rc = buf_add(out, path + i, len);
        }
        i += len;
    }
    if (!rc && out->len == base)
        rc = buf_addc(out, '/');
    return rc;
}

enum s3c_err filter_root(const char *arg, bool dir_op, struct buf *out, struct s3c_error *e)
{
    struct s3_uri u = S3_URI_INIT;
    struct buf abs = BUF_INIT(BUF_MAX_DEFAULT);
    char cwd[4096];
    const char *slash;
    enum s3c_err rc;

    if (s3_uri_is(arg)) {
        rc = s3_uri_parse(arg, &u, e);
        if (rc)
            goto out;
        slash = strrchr(u.key, '/');
        if (!dir_op && !(slash && slash[1] == '\0'))
            u.key[slash ? (size_t)(slash - u.key) : 0] = '\0';  /* drop the object's name */
        rc = buf_addf(out, "%s/%s", u.bucket, u.key);
        goto out;
    }
    if (arg[0] != '/') {
        if (!getcwd(cwd, sizeof(cwd))) {
            rc = s3c_fail_errno(e, errno, "cannot read the working directory");
            goto out;
        }
        rc = buf_adds(&abs, cwd);
        if (!rc)
            rc = buf_addc(&abs, '/');
        if (rc)
            goto out;
    }
    rc = buf_adds(&abs, arg);
    if (rc)
        goto out;
    if (!dir_op) {
        /* os.path.dirname: cut after the last '/' (a leading "/" stays). */
        while (abs.len > 0 && abs.data[abs.len - 1] != '/')
            abs.len--;
        abs.data[abs.len] = '\0';
    }
    rc = add_normalised(out, buf_cstr(&abs));
out:
    if (rc == S3C_ENOMEM)
        s3c_fail(e, rc, "path too long or out of memory");
    buf_release(&abs);
    s3_uri_release(&u);
    return rc;
}

void filter_release(struct filter *f)
{
    size_t i;

    for (i = 0; i < f->n; i++)
        free(f->rules[i].pattern);
    free(f->rules);
    f->rules = NULL;
    f->n = f->cap = 0;
}
