/*
 * cli/objsrc.h on local trees (no store): which entries a walk, a wildcard
 * and one file yield, by which relative names, in which order; the filters
 * and the shard; a missing root; a FIFO told as a bad entry.
 */
#include "t.h"

#include <sys/stat.h>
#include <unistd.h>

#include "cli/job.h"
#include "cli/objsrc.h"

/* Every entry of 'o' as "rel=size;" (bad ones as "!rel;") into 'out', and the kind
 * of source it was and the wildcard's matches into 'kind' and 'matched' (may be
 * NULL); the return of objsrc_open(). */
static enum s3c_err drain(const struct objsrc_opts *o, char *out, size_t n, enum objsrc_kind *kind,
                          uint64_t *matched)
{
    struct objsrc src = OBJSRC_INIT;
    struct s3c_error e = S3C_ERROR_INIT;
    const struct objsrc_entry *en;
    enum objsrc_next r;
    enum s3c_err rc = objsrc_open(&src, o, &e);
    size_t len = 0;

    out[0] = '\0';
    while (!rc && (r = objsrc_next(&src, &en, &e)) != OBJSRC_END && r != OBJSRC_FAILED && len < n) {
        if (r == OBJSRC_BAD)
            len += (size_t)snprintf(out + len, n - len, "!%.*s;", (int)en->rel.n, en->rel.p);
        else
            len += (size_t)snprintf(out + len, n - len, "%.*s=%llu;", (int)en->rel.n, en->rel.p,
                                    (unsigned long long)en->size);
    }
    if (kind)
        *kind = src.kind;
    if (matched)
        *matched = src.matched;
    objsrc_close(&src);
    return rc;
}

TEST(objsrc_walk_wildcard_filter_shard)
{
    char dir[4096], arg[4200], got[4096], a[4096], b[4096];
    struct job j;
    struct objsrc_opts o;
    struct filter f = FILTER_INIT;
    struct s3c_error e = S3C_ERROR_INIT;
    enum objsrc_kind kind;
    uint64_t matched = 0;

    t_tmpdir(dir, sizeof(dir));
    t_mk(dir, "a.log");
    t_mk(dir, "b.txt");
    t_mk(dir, "sub/c.log");
    t_mk(dir, "sub/deep/d.txt");
    memset(&j, 0, sizeof(j));
    memset(&o, 0, sizeof(o));
    o.job = &j;
    o.follow_symlinks = o.check_readable = true;

    /* A directory: every file, in byte order of the relative name. */
    o.arg = dir;
    o.recursive = true;
    CHECK_INT(drain(&o, got, sizeof(got), NULL, NULL), S3C_OK);
    CHECK_STR(got, "a.log=5;b.txt=5;sub/c.log=9;sub/deep/d.txt=14;");

    /* --exclude, against names relative to the directory. */
    CHECK_INT(filter_add(&f, FILTER_EXCLUDE, "sub/*", &e), S3C_OK);
    o.filter = &f;
    CHECK_INT(drain(&o, got, sizeof(got), NULL, NULL), S3C_OK);
    CHECK_STR(got, "a.log=5;b.txt=5;");
    o.filter = NULL;

    /* A wildcard: names relative to its literal directory; it counts its matches. A local '*'
     * stops at '/', as s5cmd's Glob: sub/c.log is not "*.log". */
    snprintf(arg, sizeof(arg), "%s/*.log", dir);
    o.arg = arg;
    o.recursive = false;
    CHECK_INT(drain(&o, got, sizeof(got), &kind, &matched), S3C_OK);
    CHECK(kind == OBJSRC_WALK);
    CHECK_INT(matched, 1);
    CHECK_STR(got, "a.log=5;");
    snprintf(arg, sizeof(arg), "%s/*/*.log", dir);
    CHECK_INT(drain(&o, got, sizeof(got), &kind, &matched), S3C_OK);
    CHECK_STR(got, "sub/c.log=9;");
    /* A directory it matches is taken whole. */
    snprintf(arg, sizeof(arg), "%s/s?b", dir);
    CHECK_INT(drain(&o, got, sizeof(got), &kind, &matched), S3C_OK);
    CHECK_INT(matched, 2);
    CHECK_STR(got, "sub/c.log=9;sub/deep/d.txt=14;");
    /* What it cannot match is never looked at: a dangling link beside it is not reported. */
    {
        char link[4200];
        snprintf(link, sizeof(link), "%s/sub/gone.log", dir);
        CHECK(symlink("/nonexistent/s3c-unit", link) == 0);
        snprintf(arg, sizeof(arg), "%s/*.log", dir);
        CHECK_INT(drain(&o, got, sizeof(got), &kind, &matched), S3C_OK);
        CHECK_STR(got, "a.log=5;");
        snprintf(arg, sizeof(arg), "%s/sub/*.log", dir);
        CHECK_INT(drain(&o, got, sizeof(got), &kind, &matched), S3C_OK);
        CHECK_STR(got, "c.log=9;!gone.log;");
        CHECK(unlink(link) == 0);
    }

    /* --raw: the same argument names one file, literally. */
    o.raw = true;
    CHECK_INT(drain(&o, got, sizeof(got), NULL, NULL), S3C_OK);
    CHECK_STR(got, "*.log=0;");
    o.raw = false;

    /* Two shards: disjoint, and together the whole tree, in the same order. */
    o.arg = dir;
    o.recursive = true;
    j.knobs.shard.n = 2;
    j.knobs.shard.k = 0;
    CHECK_INT(drain(&o, a, sizeof(a), NULL, NULL), S3C_OK);
    j.knobs.shard.k = 1;
    CHECK_INT(drain(&o, b, sizeof(b), NULL, NULL), S3C_OK);
    CHECK(strlen(a) + strlen(b) == strlen("a.log=5;b.txt=5;sub/c.log=9;sub/deep/d.txt=14;"));
    CHECK(!strstr(b, "a.log") || !strstr(a, "a.log"));
    CHECK(!strstr(b, "sub/c.log") || !strstr(a, "sub/c.log"));

    filter_release(&f);
    t_rm_tree(dir);
}

TEST(objsrc_one_missing_and_special)
{
    char dir[4096], arg[4200], got[4096];
    struct job j;
    struct objsrc_opts o;
    struct filter f = FILTER_INIT;
    struct s3c_error e = S3C_ERROR_INIT;
    enum objsrc_kind kind;

    t_tmpdir(dir, sizeof(dir));
    t_mk(dir, "d/one.txt");
    memset(&j, 0, sizeof(j));
    memset(&o, 0, sizeof(o));
    o.job = &j;
    o.follow_symlinks = o.check_readable = true;

    /* One file: named by its base name, yielded once; filtered only when asked (rm). */
    snprintf(arg, sizeof(arg), "%s/d/one.txt", dir);
    o.arg = arg;
    CHECK_INT(drain(&o, got, sizeof(got), &kind, NULL), S3C_OK);
    CHECK(kind == OBJSRC_ONE);
    CHECK_STR(got, "one.txt=0;");
    CHECK_INT(filter_add(&f, FILTER_EXCLUDE, "*.txt", &e), S3C_OK);
    o.filter = &f;
    CHECK_INT(drain(&o, got, sizeof(got), NULL, NULL), S3C_OK);
    CHECK_STR(got, "one.txt=0;");
    o.filter_one = true;
    CHECK_INT(drain(&o, got, sizeof(got), NULL, NULL), S3C_OK);
    CHECK_STR(got, "");
    o.filter = NULL;
    o.filter_one = false;

    /* A root that is not there: an error, or nothing (a sync's new destination). */
    snprintf(arg, sizeof(arg), "%s/none", dir);
    o.recursive = true;
    CHECK_INT(drain(&o, got, sizeof(got), NULL, NULL), S3C_ENOTFOUND);
    o.missing_is_empty = true;
    CHECK_INT(drain(&o, got, sizeof(got), &kind, NULL), S3C_OK);
    CHECK(kind == OBJSRC_EMPTY);
    CHECK_STR(got, "");
    o.missing_is_empty = false;

    /* A FIFO: a bad entry (special), and the walk goes on. */
    snprintf(arg, sizeof(arg), "%s/d/fifo", dir);
    CHECK(mkfifo(arg, 0644) == 0);
    snprintf(arg, sizeof(arg), "%s/d", dir);
    CHECK_INT(drain(&o, got, sizeof(got), NULL, NULL), S3C_OK);
    CHECK_STR(got, "!fifo;one.txt=9;");

    filter_release(&f);
    t_rm_tree(dir);
}
