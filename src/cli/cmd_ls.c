/*
 * ls: buckets, or objects and common prefixes, printed as `aws s3 ls` prints
 * them (same columns, local time, PRE lines, --summarize footer), or as JSON
 * lines with --json. Pages are printed as they arrive: memory stays flat
 * however many keys the prefix holds.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli/args.h"
#include "cli/cmd.h"
#include "cli/output.h"
#include "s3/uri.h"
#include "s3/xml.h"

struct ls_state {
    bool recursive, human, summarize, json;
    const char *bucket;
    uint64_t total_objects, total_bytes;
    uint64_t shown;             /* objects and prefixes printed */
};

/* "2024-01-31 17:08:50" in local time, as the AWS CLI prints LastModified. */
static void local_time(int64_t epoch, char out[32])
{
    time_t t = (time_t)epoch;
    struct tm tm;

    localtime_r(&t, &tm);
    strftime(out, 32, "%Y-%m-%d %H:%M:%S", &tm);
}

void cli_human_size(uint64_t v, char out[32])
{
    static const char *suffix[] = { "KiB", "MiB", "GiB", "TiB", "PiB", "EiB" };
    double b = (double)v, unit = 1024.0 * 1024.0;
    int i;

    if (v == 1) {
        snprintf(out, 32, "1 Byte");
        return;
    }
    if (v < 1024) {
        snprintf(out, 32, "%" PRIu64 " Bytes", v);
        return;
    }
    for (i = 0; i < 6; i++, unit *= 1024.0) {
        /* Python's round() is banker's rounding; at these magnitudes ties do not arise. */
        if (b / unit * 1024.0 + 0.5 < 1024.0 || i == 5) {
            snprintf(out, 32, "%.1f %s", 1024.0 * b / unit, suffix[i]);
            return;
        }
    }
}

static void size_col(const struct ls_state *st, uint64_t size, char out[32])
{
    char tmp[32];

    if (st->human)
        cli_human_size(size, tmp);
    else
        snprintf(tmp, sizeof(tmp), "%" PRIu64, size);
    snprintf(out, 32, "%10s", tmp);
}

/* The last path segment of a common prefix, "a/b/" -> "b" (components[-2] in the CLI). */
static struct sv prefix_name(const char *p)
{
    size_t n = strlen(p), start;

    if (n && p[n - 1] == '/')
        n--;
    start = n;
    while (start > 0 && p[start - 1] != '/')
        start--;
    return (struct sv){ p + start, n - start };
}

static void print_page(struct ls_state *st, const struct s3_list_objects *page)
{
    struct buf line = BUF_INIT(1 << 20);
    char when[32], size[32];
    size_t i;

    for (i = 0; i < page->n_prefixes; i++) {
        struct sv name = prefix_name(page->prefixes[i]);

        st->shown++;
        if (st->json) {
            struct json j = JSON_INIT;
            struct buf k = BUF_INIT(1 << 16);

            buf_addf(&k, "s3://%s/%s", st->bucket, page->prefixes[i]);
            json_str(&j, "key", buf_cstr(&k));
            json_str(&j, "type", "directory");
            json_end(&j);
            buf_release(&k);
            continue;
        }
        buf_reset(&line);
        buf_addf(&line, "%30s %.*s/\n", "PRE", (int)name.n, name.p);
        out_text(buf_cstr(&line));
    }
    for (i = 0; i < page->n_objects; i++) {
        const struct s3_object *o = &page->objects[i];
        const char *name = o->key;

        st->shown++;
        st->total_objects++;
        st->total_bytes += o->size;
        if (st->json) {
            struct json j = JSON_INIT;
            struct buf k = BUF_INIT(1 << 16);

            buf_addf(&k, "s3://%s/%s", st->bucket, o->key);
            json_str(&j, "key", buf_cstr(&k));
            json_str(&j, "type", "file");
            json_u64(&j, "size", o->size);
            json_str(&j, "last_modified", o->last_modified);
            json_str(&j, "etag", o->etag);
            json_str(&j, "storage_class", o->storage_class);
            json_end(&j);
            buf_release(&k);
            continue;
        }
        if (!st->recursive) {
            const char *slash = strrchr(name, '/');
            if (slash)
                name = slash + 1;
        }
        local_time(o->mtime_epoch, when);
        size_col(st, o->size, size);
        buf_reset(&line);
        buf_addf(&line, "%s %s %s\n", when, size, name);
        out_text(buf_cstr(&line));
    }
    buf_release(&line);
}

static void print_summary(const struct ls_state *st)
{
    char size[32];

    if (st->json) {
        struct json j = JSON_INIT;
        json_u64(&j, "total_objects", st->total_objects);
        json_u64(&j, "total_size", st->total_bytes);
        json_end(&j);
        return;
    }
    if (st->human)
        cli_human_size(st->total_bytes, size);
    else
        snprintf(size, sizeof(size), "%" PRIu64, st->total_bytes);
    printf("\nTotal Objects: %" PRIu64 "\n   Total Size: %s\n", st->total_objects, size);
}

static enum s3c_err list_buckets(struct store_s3 *s, struct ls_state *st, const char *op)
{
    struct s3_list_buckets page = S3_LIST_BUCKETS_INIT;
    struct s3c_error e = S3C_ERROR_INIT;
    char *token = NULL;
    enum s3c_err rc;
    size_t i;

    do {
        rc = store_s3_list_buckets(s, token, &page, &e);
        free(token);
        token = NULL;
        if (rc)
            break;
        for (i = 0; i < page.n_buckets; i++) {
            const struct s3_bucket *b = &page.buckets[i];
            char when[32];

            if (st->json) {
                struct json j = JSON_INIT;
                json_str(&j, "name", b->name);
                json_str(&j, "created_at", b->creation_date);
                json_end(&j);
                continue;
            }
            local_time(b->creation_epoch, when);
            printf("%s %s\n", when, b->name);
        }
        if (page.continuation_token[0])
            token = strdup(page.continuation_token);
    } while (token);
    if (rc)
        out_error(op, &e);
    s3_list_buckets_release(&page);
    return rc;
}

static enum s3c_err list_objects(struct store_s3 *s, struct ls_state *st, const struct s3_uri *u,
                                 int page_size, const char *op)
{
    struct s3_list_objects page = S3_LIST_OBJECTS_INIT;
    struct s3c_error e = S3C_ERROR_INIT;
    struct store_s3_list_args a = { u->bucket, u->key, st->recursive ? NULL : "/", NULL, NULL, page_size };
    char *token = NULL;
    enum s3c_err rc;

    st->bucket = u->bucket;
    do {
        a.token = token;
        rc = store_s3_list_objects(s, &a, &page, &e);
        free(token);
        token = NULL;
        if (rc)
            break;
        print_page(st, &page);
        if (page.is_truncated) {
            if (!page.next_continuation_token[0]) {
                rc = s3c_fail(&e, S3C_EPARSE, "ListObjectsV2: truncated page without a continuation token");
                break;
            }
            token = strdup(page.next_continuation_token);
        }
    } while (token);
    if (rc)
        out_error(op, &e);
    s3_list_objects_release(&page);
    return rc;
}

enum s3c_err cmd_ls(struct cli_ctx *c, int argc, char **argv)
{
    struct ls_state st = { 0 };
    const char *page_size_s = NULL, *request_payer = NULL;
    const struct arg_spec specs[] = {
        { "--recursive", "-r", ARG_BOOL, &st.recursive },
        { "--human-readable", NULL, ARG_BOOL, &st.human },
        { "--summarize", NULL, ARG_BOOL, &st.summarize },
        { "--page-size", NULL, ARG_STR, &page_size_s },
        { "--request-payer", NULL, ARG_STR, &request_payer },
        { NULL, NULL, 0, NULL },
    };
    const char *pos[1];
    struct s3_uri u = S3_URI_INIT;
    struct s3c_error e = S3C_ERROR_INIT;
    struct store_s3 *s;
    char op[1024];
    int n_pos = 0, page_size = 0;
    enum s3c_err rc;

    rc = args_parse("ls", specs, argc, argv, pos, 1, &n_pos, &e);
    if (!rc && page_size_s) {
        char *end;
        long v = strtol(page_size_s, &end, 10);
        if (*end || v < 1 || v > 1000)
            rc = s3c_fail(&e, S3C_EUSAGE, "ls: --page-size must be 1..1000, not \"%s\"", page_size_s);
        page_size = (int)v;
    }
    if (!rc && n_pos == 1)
        rc = s3_uri_parse(pos[0], &u, &e);
    if (rc) {
        out_usage_error(&e);
        return rc;
    }
    st.json = out_opts()->json;
    cli_op_name(op, sizeof(op), "ls", n_pos, pos);
    s = cli_s3(c, &e);
    if (!s) {
        out_error(op, &e);
        s3_uri_release(&u);
        return e.code;
    }
    if (n_pos == 0 || !u.bucket[0]) {
        rc = list_buckets(s, &st, op);
        s3_uri_release(&u);
        return rc;
    }
    rc = list_objects(s, &st, &u, page_size, op);
    if (!rc && st.summarize)
        print_summary(&st);
    /* As the AWS CLI: a prefix that matches nothing exits 1, silently. */
    if (!rc && u.key[0] && st.shown == 0)
        rc = S3C_ENOTFOUND;
    s3_uri_release(&u);
    return rc;
}
