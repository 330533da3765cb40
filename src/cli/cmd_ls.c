/*
 * ls: buckets, or objects and common prefixes, printed as `aws s3 ls` prints
 * them (same columns, local time, PRE lines, --summarize footer), or as JSON
 * lines with --json. Pages are printed as they arrive: memory stays flat
 * however many keys the prefix holds.
 *
 * s5cmd's additions come as extra columns that only appear when asked for,
 * so the default output stays byte for byte the AWS CLI's:
 *
 *   DATE TIME [STORAGE-CLASS] [ETAG] SIZE [VERSION-ID] NAME
 *
 * --storage-class and --etag in s5cmd's order before the size (an archived
 * object's class with its restore status: GLACIER:restoring while a restore
 * runs, GLACIER:restored while its copy is readable; ListObjectsV2's
 * RestoreStatus, asked for with -s and with --json); with
 * --all-versions, the version id after it. The name stays last, so a key
 * with spaces is still "the rest of the line". A delete marker shows
 * DELETE in the size column, as a common prefix shows PRE.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "cli/args.h"
#include "cli/cmd.h"
#include "cli/listing.h"
#include "cli/objopts.h"
#include "cli/output.h"
#include "plan/wild.h"
#include "s3/endpoint.h"
#include "s3/uri.h"
#include "s3/xml.h"

#define LS_CLASS_WIDTH 12       /* "DEEP_ARCHIVE"; longer class names push the line */
#define LS_ETAG_WIDTH 38        /* an MD5 and "-10000" parts, as s5cmd pads it */
#define LS_VERSION_WIDTH 32     /* S3's version ids */

struct ls_state {
    bool recursive, human, summarize, json;
    bool show_etag, show_class, versions;
    bool fullpath;              /* --show-fullpath: each entry as its s3:// URL alone (s5cmd) */
    const char *bucket;
    const char *pattern;        /* the wildcard of the argument, or NULL */
    uint64_t total_objects, total_bytes;
    uint64_t shown;             /* entries printed */
    struct buf line;
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

const char *cli_storage_class(const char *listed)
{
    /* S3 lists a class for every object; a store that sends none stores STANDARD. */
    return listed && listed[0] ? listed : "STANDARD";
}

struct sv cli_etag_bare(const char *etag)
{
    size_t n = strlen(etag);

    if (n >= 2 && etag[0] == '"' && etag[n - 1] == '"')
        return (struct sv){ etag + 1, n - 2 };
    return (struct sv){ etag, n };
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

/*
 * The name column: the full key with --recursive; with a wildcard, the key
 * relative to the pattern's directory (as s5cmd prints it); else, as the
 * AWS CLI, what follows the last '/'.
 */
static struct sv object_name(const struct ls_state *st, const char *key)
{
    const char *slash;

    if (st->recursive)
        return sv_from(key);
    if (st->pattern)
        return wild_relative(st->pattern, sv_from(key));
    slash = strrchr(key, '/');
    return sv_from(slash ? slash + 1 : key);
}

/* Width of everything before the size column's end, for PRE lines. */
static int pre_width(const struct ls_state *st)
{
    int w = 19 + 1 + 10;

    if (st->show_class)
        w += LS_CLASS_WIDTH + 1;
    if (st->show_etag)
        w += LS_ETAG_WIDTH + 1;
    return w;
}

static void json_entry(struct ls_state *st, const struct listing_entry *en)
{
    struct json j = JSON_INIT;
    struct buf k = BUF_INIT(1 << 16);

    buf_addf(&k, "s3://%s/%s", st->bucket, en->key);
    json_str(&j, "key", buf_cstr(&k));
    buf_release(&k);
    if (en->kind == LISTING_PREFIX) {
        json_str(&j, "type", "directory");
        json_end(&j);
        return;
    }
    if (en->kind == LISTING_DELETE_MARKER) {
        json_str(&j, "type", "delete_marker");
        json_str(&j, "last_modified", en->last_modified);
    } else {
        struct buf etag = BUF_INIT(4096);

        buf_addsv(&etag, cli_etag_bare(en->etag));
        json_str(&j, "type", "file");
        json_u64(&j, "size", en->size);
        json_str(&j, "last_modified", en->last_modified);
        json_str(&j, "etag", buf_cstr(&etag));
        json_str(&j, "storage_class", cli_storage_class(en->storage_class));
        if (en->restore_in_progress && en->restore_in_progress[0])
            json_bool(&j, "restore_in_progress", !strcasecmp(en->restore_in_progress, "true"));
        if (en->restore_expiry && en->restore_expiry[0])
            json_str(&j, "restore_expiry", en->restore_expiry);
        buf_release(&etag);
    }
    if (st->versions) {
        json_str(&j, "version_id", en->version_id);
        json_bool(&j, "is_latest", en->is_latest);
    }
    json_end(&j);
}

/* A column of what the store sent (class, ETag, version id), escaped as a
 * name is and padded to 'width' bytes, then a space. */
static void add_column(struct buf *l, struct sv text, int width)
{
    size_t start = l->len;

    out_escape(l, text);
    while (l->len - start < (size_t)width)
        buf_addc(l, ' ');
    buf_addc(l, ' ');
}

static void text_entry(struct ls_state *st, const struct listing_entry *en)
{
    struct buf *l = &st->line;
    char when[32], size[32];
    struct sv name;

    buf_reset(l);
    if (st->fullpath) {
        /* s5cmd's ListMessage.String: the URL and nothing else, a prefix's too. */
        buf_adds(l, "s3://");
        out_escape(l, sv_from(st->bucket));
        buf_addc(l, '/');
        out_escape(l, sv_from(en->key));
        buf_addc(l, '\n');
        out_text(buf_cstr(l));
        return;
    }
    if (en->kind == LISTING_PREFIX) {
        name = prefix_name(en->key);
        buf_addf(l, "%*s ", pre_width(st), "PRE");
        if (st->versions)
            buf_addf(l, "%-*s ", LS_VERSION_WIDTH, "");
        out_escape(l, name);
        buf_adds(l, "/\n");
        out_text(buf_cstr(l));
        return;
    }
    local_time(en->mtime_epoch, when);
    buf_addf(l, "%s ", when);
    if (st->show_class) {
        char cls[64];
        const char *r = en->restore_in_progress;
        snprintf(cls, sizeof(cls), "%s%s", en->kind == LISTING_DELETE_MARKER ? "" : cli_storage_class(en->storage_class),
                 !r || !r[0] ? "" : !strcasecmp(r, "true") ? ":restoring" : ":restored");
        add_column(l, sv_from(cls), LS_CLASS_WIDTH);
    }
    if (st->show_etag)
        add_column(l, cli_etag_bare(en->etag), LS_ETAG_WIDTH);
    if (en->kind == LISTING_DELETE_MARKER)
        snprintf(size, sizeof(size), "DELETE");
    else if (st->human)
        cli_human_size(en->size, size);
    else
        snprintf(size, sizeof(size), "%" PRIu64, en->size);
    buf_addf(l, "%10s ", size);
    if (st->versions)
        add_column(l, sv_from(en->version_id), LS_VERSION_WIDTH);
    /* As out_escape() shows names: a key cannot forge a line or drive the terminal. */
    out_escape(l, object_name(st, en->key));
    buf_addc(l, '\n');
    out_text(buf_cstr(l));
}

static void print_entry(struct ls_state *st, const struct listing_entry *en)
{
    st->shown++;
    if (en->kind == LISTING_OBJECT) {
        st->total_objects++;
        st->total_bytes += en->size;
    }
    if (st->json)
        json_entry(st, en);
    else
        text_entry(st, en);
}

static void print_summary(const struct ls_state *st)
{
    char size[32], line[128];

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
    snprintf(line, sizeof(line), "\nTotal Objects: %" PRIu64 "\n   Total Size: %s\n", st->total_objects, size);
    out_text(line); /* (output.c's: stderr when stdout carries an object, in a run file) */
}

/* ListBuckets (general-purpose buckets, as `aws s3 ls`), or with 'directory'
 * ListDirectoryBuckets (S3 Express, from the control endpoint). */
static enum s3c_err list_buckets(struct store_s3 *s, struct ls_state *st, bool directory, const char *op)
{
    struct s3_list_buckets page = S3_LIST_BUCKETS_INIT;
    struct s3c_error e = S3C_ERROR_INIT;
    char *token = NULL;
    enum s3c_err rc;
    size_t i;

    do {
        rc = directory ? store_s3_list_directory_buckets(s, token, &page, &e)
                       : store_s3_list_buckets(s, token, &page, &e);
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
            buf_reset(&st->line);
            buf_addf(&st->line, "%s ", when);
            out_escape(&st->line, sv_from(b->name));
            buf_addc(&st->line, '\n');
            out_text(buf_cstr(&st->line));
        }
        if (page.continuation_token[0])
            token = strdup(page.continuation_token);
    } while (token);
    if (rc)
        out_aws_error(op, &e);
    s3_list_buckets_release(&page);
    return rc;
}

static enum s3c_err list_objects(struct store_s3 *s, struct ls_state *st, const struct listing_opts *o,
                                 const char *op)
{
    struct listing l;
    struct s3c_error e = S3C_ERROR_INIT;
    const struct listing_entry *en;
    int r;

    uint64_t skipped;

    listing_open(&l, s, o);
    while ((r = listing_next(&l, &en, &e)) > 0)
        print_entry(st, en);
    skipped = l.skipped;
    listing_close(&l);
    if (r < 0) {
        out_aws_error(op, &e);
        return e.code ? e.code : S3C_EHTTP;
    }
    /* Entries the store listed outside the prefix were warned of: exit 2, as skipped files. */
    return skipped ? S3C_ESKIPPED : S3C_OK;
}

/* --page-size N: 1..1000. */
enum s3c_err cli_page_size(const char *verb, const char *s, int *out, struct s3c_error *e)
{
    char *end;
    long v;

    if (!s)
        return S3C_OK;
    v = strtol(s, &end, 10);
    if (*end || end == s || v < 1 || v > 1000)
        return s3c_fail(e, S3C_EUSAGE, "%s: --page-size must be 1..1000, not \"%s\"", verb, s);
    *out = (int)v;
    return S3C_OK;
}

/* --exclude/--include into 'f' and the filter root of 'arg' into 'root' (usage errors). */
enum s3c_err cli_filters(const struct arg_list *list, const char *arg, struct filter *f,
                         struct buf *root, struct s3c_error *e)
{
    enum s3c_err rc;

    if (!list->n)
        return S3C_OK;
    rc = filter_add_list(f, list->flag, list->v, (size_t)list->n, e);
    if (!rc)
        rc = filter_root(arg, true, root, e);
    return rc;
}

enum s3c_err cmd_ls(struct cli_ctx *c, int argc, char **argv)
{
    struct ls_state st = { .line = BUF_INIT(1 << 20) };
    const char *page_size_s = NULL, *request_payer = c->g.request_payer; /* s5cmd's global, else the flag */
    bool humanize = false, directory = false;
    struct arg_list filters = { .n = 0 };
    const struct arg_spec specs[] = {
        { "--recursive", "-r", ARG_BOOL, &st.recursive },
        { "--human-readable", NULL, ARG_BOOL, &st.human },
        { "--humanize", "-H", ARG_BOOL, &humanize },
        { "--summarize", NULL, ARG_BOOL, &st.summarize },
        { "--etag", "-e", ARG_BOOL, &st.show_etag },
        { "--storage-class", "-s", ARG_BOOL, &st.show_class },
        { "--all-versions", NULL, ARG_BOOL, &st.versions },
        { "--show-fullpath", NULL, ARG_BOOL, &st.fullpath },
        { "--exclude", NULL, ARG_STR_LIST, &filters },
        { "--include", NULL, ARG_STR_LIST, &filters },
        { "--page-size", NULL, ARG_STR, &page_size_s },
        { "--request-payer", NULL, ARG_STR, &request_payer },
        { "--directory-buckets", "--x-s3", ARG_BOOL, &directory },
        { NULL, NULL, 0, NULL },
    };
    const char *pos[1];
    struct s3_uri u = S3_URI_INIT;
    struct s3c_error e = S3C_ERROR_INIT;
    struct listing_opts lo = { 0 };
    struct filter filter = FILTER_INIT;
    struct buf root = BUF_INIT(65536), prefix = BUF_INIT(65536);
    struct store_s3 *s;
    char op[1024];
    int n_pos = 0;
    enum s3c_err rc;

    rc = args_parse("ls", specs, argc, argv, pos, 1, &n_pos, &e);
    st.human = st.human || humanize;
    if (!rc)
        rc = cli_page_size("ls", page_size_s, &lo.page_size, &e);
    if (!rc)
        rc = cli_check_choice("ls", "--request-payer", request_payer, cli_request_payer_choices, &e);
    if (!rc && n_pos == 1)
        rc = s3_uri_parse(pos[0], &u, &e);
    if (!rc && (n_pos == 0 || !u.bucket[0]) && (st.versions || filters.n))
        rc = s3c_fail(&e, S3C_EUSAGE, "ls: --all-versions, --exclude and --include need s3://BUCKET[/PREFIX]");
    if (!rc && directory && n_pos == 1 && u.bucket[0])
        rc = s3c_fail(&e, S3C_EUSAGE, "ls: --directory-buckets lists buckets: give no s3://BUCKET");
    if (!rc && n_pos == 1 && s3_bucket_is_express(u.bucket))
        rc = cli_express_refuse("ls", st.versions ? "--all-versions" : request_payer ? "--request-payer" : NULL,
                                u.bucket, st.versions ? "no versioning" : NULL, &e);
    if (!rc && n_pos == 1 && u.bucket[0])
        rc = cli_filters(&filters, pos[0], &filter, &root, &e);
    if (!rc && n_pos == 1 && u.bucket[0])
        rc = listing_set_key(&lo, u.key, &prefix, &e);
    if (rc) {
        out_usage_error(&e);
        goto out;
    }
    st.json = out_opts()->json;
    cli_op_name(op, sizeof(op), "ls", n_pos, pos);
    cli_reads_only(c, true);
    s = cli_s3(c, &e);
    if (!s) {
        out_error(op, &e);
        rc = e.code;
        goto out;
    }
    if (n_pos == 0 || !u.bucket[0]) {
        rc = list_buckets(s, &st, directory, op);
        if (!rc && st.summarize)
            print_summary(&st); /* the AWS CLI's footer, of no object: 0 and 0 */
        goto out;
    }
    st.bucket = u.bucket;
    st.pattern = lo.pattern;
    lo.bucket = u.bucket;
    /* A wildcard crosses '/': it lists every key under its literal prefix. */
    lo.delimiter = st.recursive || lo.pattern ? NULL : "/";
    lo.versions = st.versions;
    lo.v1 = c->g.list_v1;
    lo.restore_status = st.show_class || st.json;
    lo.filter = &filter;
    lo.filter_root = buf_cstr(&root);
    /* A directory bucket lists in no order: shown sorted, as a general-purpose one. */
    lo.sorted = s3_bucket_is_express(u.bucket);
    rc = list_objects(s, &st, &lo, op);
    if ((!rc || rc == S3C_ESKIPPED) && st.summarize)
        print_summary(&st);
    /* As the AWS CLI: a prefix that matches nothing exits 1, silently. */
    if (!rc && u.key[0] && st.shown == 0)
        rc = S3C_ENOMATCH;
out:
    filter_release(&filter);
    buf_release(&root);
    buf_release(&prefix);
    buf_release(&st.line);
    s3_uri_release(&u);
    return rc;
}
