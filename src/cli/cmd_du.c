/*
 * du: total objects and bytes under a prefix or wildcard pattern, as s5cmd's
 * du prints them (examples below, as line comments: a pattern cannot sit in
 * this one).
 *
 * Unlike s5cmd, a plain prefix counts every key under it (s5cmd counts only
 * the keys at its level unless the argument has a '*'): what `du` of a
 * directory means, and what `aws s3 ls --recursive --summarize` totals.
 * --recursive (-r) is taken, and says so; docs/MIGRATING.md has the choice.
 * One listing page is held at a time; the groups are the few storage
 * classes, capped. --version-id (s5cmd's) counts one version of one key,
 * found in the key's versions listing, as s5cmd finds it.
 */
//   4096 bytes in 3 objects: s3://bucket/logs/*
//   1.5K bytes in 2 objects: s3://bucket/logs/* [STANDARD_IA]     (--humanize --group)
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/args.h"
#include "cli/cmd.h"
#include "cli/listing.h"
#include "cli/objopts.h"
#include "cli/output.h"
#include "plan/wild.h"
#include "s3/uri.h"

/* S3 has about a dozen classes; a store inventing more gets its extra ones lumped together. */
#define DU_MAX_CLASSES 64
#define DU_OTHER_CLASS "OTHER"

struct du_total {
    char storage_class[64];
    uint64_t count, bytes;
};

struct du_state {
    const char *only_key;           /* --version-id: the key, and its version, counted alone; NULL */
    const char *only_version;
    struct du_total all;
    struct du_total classes[DU_MAX_CLASSES];
    size_t n_classes;
};

void cli_humanize_s5(uint64_t v, char out[32])
{
    static const struct {
        const char *suffix;
        uint64_t div;
    } units[] = { { "K", 1ull << 10 }, { "M", 1ull << 20 }, { "G", 1ull << 30 }, { "T", 1ull << 40 } };
    size_t i, pick = SIZE_MAX;

    /* s5cmd's strutil.HumanizeBytes: the largest unit strictly below the value. */
    for (i = 0; i < sizeof(units) / sizeof(units[0]); i++)
        if (v > units[i].div)
            pick = i;
    if (pick == SIZE_MAX)
        snprintf(out, 32, "%" PRIu64, v);
    else
        snprintf(out, 32, "%.1f%s", (double)v / (double)units[pick].div, units[pick].suffix);
}

static struct du_total *class_total(struct du_state *st, const char *cls)
{
    size_t i;

    for (i = 0; i < st->n_classes; i++)
        if (!strcmp(st->classes[i].storage_class, cls))
            return &st->classes[i];
    if (st->n_classes == DU_MAX_CLASSES - 1)
        cls = DU_OTHER_CLASS;
    else if (st->n_classes == DU_MAX_CLASSES)
        return class_total(st, DU_OTHER_CLASS);
    str_copy(st->classes[st->n_classes].storage_class, sizeof(st->classes[0].storage_class), cls);
    return &st->classes[st->n_classes++];
}

static int by_class(const void *a, const void *b)
{
    return strcmp(((const struct du_total *)a)->storage_class, ((const struct du_total *)b)->storage_class);
}

static void print_total(const struct du_total *t, const char *source, bool grouped, bool human)
{
    struct buf line = BUF_INIT(1 << 20);
    char size[32];

    if (out_opts()->json) {
        struct json j = JSON_INIT;
        json_str(&j, "source", source);
        if (grouped)
            json_str(&j, "storage_class", t->storage_class);
        json_u64(&j, "count", t->count);
        json_u64(&j, "size", t->bytes);
        json_end(&j);
        return;
    }
    if (human)
        cli_humanize_s5(t->bytes, size);
    else
        snprintf(size, sizeof(size), "%" PRIu64, t->bytes);
    /* The names as out_escape() shows them: one line each, whatever they hold. */
    buf_addf(&line, "%s bytes in %" PRIu64 " objects: ", size, t->count);
    out_escape(&line, sv_from(source));
    if (grouped) {
        buf_adds(&line, " [");
        out_escape(&line, sv_from(t->storage_class));
        buf_addc(&line, ']');
    }
    buf_addc(&line, '\n');
    out_text(buf_cstr(&line));
    buf_release(&line);
}

static enum s3c_err du_walk(struct store_s3 *s, const struct listing_opts *o, struct du_state *st,
                            const char *op)
{
    struct s3c_error e = S3C_ERROR_INIT;
    const struct listing_entry *en;
    struct listing l;
    uint64_t skipped;
    int r;

    listing_open(&l, s, o);
    while ((r = listing_next(&l, &en, &e)) > 0) {
        struct du_total *t;

        /* A delete marker holds no bytes and is no object. */
        if (en->kind != LISTING_OBJECT)
            continue;
        if (st->only_version && (strcmp(en->key, st->only_key) || strcmp(en->version_id, st->only_version)))
            continue;
        t = class_total(st, cli_storage_class(en->storage_class));
        t->count++;
        t->bytes += en->size;
        st->all.count++;
        st->all.bytes += en->size;
    }
    skipped = l.skipped;
    listing_close(&l);
    if (r < 0) {
        out_error(op, &e);
        return e.code ? e.code : S3C_EHTTP;
    }
    /* Keys the store listed outside the prefix were warned of, not counted: exit 2. */
    return skipped ? S3C_ESKIPPED : S3C_OK;
}

enum s3c_err cmd_du(struct cli_ctx *c, int argc, char **argv)
{
    bool humanize = false, human_readable = false, group = false, versions = false, recursive = false;
    const char *page_size_s = NULL, *version_id = NULL;
    struct arg_list filters = { .n = 0 };
    const struct arg_spec specs[] = {
        { "--humanize", "-H", ARG_BOOL, &humanize },
        { "--human-readable", NULL, ARG_BOOL, &human_readable },
        { "--group", "-g", ARG_BOOL, &group },
        { "--all-versions", NULL, ARG_BOOL, &versions },
        { "--version-id", NULL, ARG_STR, &version_id },
        { "--exclude", NULL, ARG_STR_LIST, &filters },
        { "--include", NULL, ARG_STR_LIST, &filters },
        { "--page-size", NULL, ARG_STR, &page_size_s },
        { "--recursive", "-r", ARG_BOOL, &recursive }, /* what a plain prefix counts anyway (above) */
        { NULL, NULL, 0, NULL },
    };
    const char *pos[1];
    struct s3_uri u = S3_URI_INIT;
    struct s3c_error e = S3C_ERROR_INIT;
    struct listing_opts lo = { 0 };
    struct filter filter = FILTER_INIT;
    struct buf root = BUF_INIT(65536), prefix = BUF_INIT(65536);
    struct du_state *st = NULL;
    struct store_s3 *s;
    char op[1024];
    int n_pos = 0;
    enum s3c_err rc;
    bool skipped = false;
    size_t i;

    rc = args_parse("du", specs, argc, argv, pos, 1, &n_pos, &e);
    if (!rc)
        rc = cli_page_size("du", page_size_s, &lo.page_size, &e);
    if (!rc && n_pos != 1)
        rc = s3c_fail(&e, S3C_EUSAGE, "du: expected one argument, s3://BUCKET[/PREFIX]");
    if (!rc)
        rc = s3_uri_parse(pos[0], &u, &e);
    if (!rc && !u.bucket[0])
        rc = s3c_fail(&e, S3C_EUSAGE, "du: \"%s\" names no bucket", pos[0]);
    if (!rc && versions && version_id)
        rc = s3c_fail(&e, S3C_EUSAGE, "du: --version-id and --all-versions do not go together");
    if (!rc)
        rc = cli_version_check("du", version_id, u.bucket, u.key[0] && !wild_has(u.key), &e);
    if (!rc && versions && s3_bucket_is_express(u.bucket))
        rc = cli_express_refuse("du", "--all-versions", u.bucket, "no versioning", &e);
    if (!rc)
        rc = cli_filters(&filters, pos[0], &filter, &root, &e);
    if (!rc)
        rc = listing_set_key(&lo, u.key, &prefix, &e);
    if (rc) {
        out_usage_error(&e);
        goto out;
    }
    cli_op_name(op, sizeof(op), "du", n_pos, pos);
    st = calloc(1, sizeof(*st));
    cli_reads_only(c, true);
    s = cli_s3(c, &e);
    if (!st || !s) {
        if (!st)
            s3c_fail(&e, S3C_ENOMEM, "out of memory");
        out_error(op, &e);
        rc = e.code;
        goto out;
    }
    lo.bucket = u.bucket;
    lo.versions = versions || version_id;
    lo.v1 = c->g.list_v1;
    st->only_key = version_id ? lo.prefix : NULL; /* the key, its escapes removed (listing_set_key) */
    st->only_version = version_id;
    lo.filter = &filter;
    lo.filter_root = buf_cstr(&root);
    rc = du_walk(s, &lo, st, op);
    if (rc == S3C_ESKIPPED) {
        skipped = true;         /* warned of already: the totals still print */
        rc = S3C_OK;
    }
    if (rc)
        goto out;
    /* A wildcard that matched nothing is an error (exit 1), as ls and cp say. */
    if (lo.pattern && st->all.count == 0) {
        rc = s3c_fail(&e, S3C_ENOMATCH, "no object matches %s", pos[0]);
        out_error(op, &e);
        goto out;
    }
    /* A version the key does not have (or a delete marker's, which holds nothing) is an error, as s5cmd's. */
    if (version_id && st->all.count == 0) {
        rc = s3c_fail(&e, S3C_ENOMATCH, "no version %s of %s", version_id, pos[0]);
        out_error(op, &e);
        goto out;
    }
    if (!group) {
        print_total(&st->all, pos[0], false, humanize || human_readable);
        goto out;
    }
    /* s5cmd prints its groups in map order; sorted reads (and tests) better. */
    qsort(st->classes, st->n_classes, sizeof(st->classes[0]), by_class);
    for (i = 0; i < st->n_classes; i++)
        print_total(&st->classes[i], pos[0], true, humanize || human_readable);
out:
    free(st);
    filter_release(&filter);
    buf_release(&root);
    buf_release(&prefix);
    s3_uri_release(&u);
    return !rc && skipped ? S3C_ESKIPPED : rc;
}
