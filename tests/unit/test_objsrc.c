/*
 * cli/objsrc.h on local trees (no store): which entries a walk, a wildcard
 * and one file yield, by which relative names, in which order; the filters
 * and the shard; a missing root; a FIFO told as a bad entry.
 */
#include "t.h"

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/job.h"
#include "cli/objsrc.h"

static void make_tmp(char *dir, size_t size)
{
    const char *t = getenv("TMPDIR");

    snprintf(dir, size, "%s/s3c-objsrc-XXXXXX", t && *t ? t : "/tmp");
    if (!mkdtemp(dir))
        t_fail(__FILE__, __LINE__, "mkdtemp: %s", strerror(errno));
}

static int rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st, (void)ftw;
    if (flag == FTW_DP || flag == FTW_D)
        return rmdir(path);
    return unlink(path);
}

/* Create the file 'rel' under 'dir' (parents made), holding its own name. */
static void mk(const char *dir, const char *rel)
{
    char path[4096];
    size_t i, n;
    int fd;

    n = (size_t)snprintf(path, sizeof(path), "%s/%s", dir, rel);
    for (i = strlen(dir) + 1; i < n; i++) {
        if (path[i] == '/') {
            path[i] = '\0';
            mkdir(path, 0755);
            path[i] = '/';
        }
    }
    fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0 || write(fd, rel, strlen(rel)) < 0)
        t_fail(__FILE__, __LINE__, "create %s: %s", rel, strerror(errno));
    if (fd >= 0)
        close(fd);
}

/* Every entry of 'o' as "rel=size;" (bad ones as "!rel;"); the return of objsrc_open(). */
static enum s3c_err drain(const struct objsrc_opts *o, char *out, size_t n, struct objsrc *keep)
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
    if (keep)
        *keep = src;
    else
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
    struct objsrc src;

    make_tmp(dir, sizeof(dir));
    mk(dir, "a.log");
    mk(dir, "b.txt");
    mk(dir, "sub/c.log");
    mk(dir, "sub/deep/d.txt");
    memset(&j, 0, sizeof(j));
    memset(&o, 0, sizeof(o));
    o.job = &j;
    o.follow_symlinks = o.check_readable = true;

    /* A directory: every file, in byte order of the relative name. */
    o.arg = dir;
    o.recursive = true;
    CHECK_INT(drain(&o, got, sizeof(got), NULL), S3C_OK);
    CHECK_STR(got, "a.log=5;b.txt=5;sub/c.log=9;sub/deep/d.txt=14;");

    /* --exclude, against names relative to the directory. */
    CHECK_INT(filter_add(&f, FILTER_EXCLUDE, "sub/*", &e), S3C_OK);
    o.filter = &f;
    CHECK_INT(drain(&o, got, sizeof(got), NULL), S3C_OK);
    CHECK_STR(got, "a.log=5;b.txt=5;");
    o.filter = NULL;

    /* A wildcard: names relative to its literal directory; it counts its matches. */
    snprintf(arg, sizeof(arg), "%s/*.log", dir);
    o.arg = arg;
    o.recursive = false;
    CHECK_INT(drain(&o, got, sizeof(got), &src), S3C_OK);
    CHECK(src.kind == OBJSRC_WALK);
    CHECK(src.pattern != NULL);
    CHECK_INT(src.matched, 2);
    objsrc_close(&src);
    CHECK_STR(got, "a.log=5;sub/c.log=9;");

    /* --raw: the same argument names one file, literally. */
    o.raw = true;
    CHECK_INT(drain(&o, got, sizeof(got), NULL), S3C_OK);
    CHECK_STR(got, "*.log=0;");
    o.raw = false;

    /* Two shards: disjoint, and together the whole tree, in the same order. */
    o.arg = dir;
    o.recursive = true;
    j.knobs.shard.n = 2;
    j.knobs.shard.k = 0;
    CHECK_INT(drain(&o, a, sizeof(a), NULL), S3C_OK);
    j.knobs.shard.k = 1;
    CHECK_INT(drain(&o, b, sizeof(b), NULL), S3C_OK);
    CHECK(strlen(a) + strlen(b) == strlen("a.log=5;b.txt=5;sub/c.log=9;sub/deep/d.txt=14;"));
    CHECK(!strstr(b, "a.log") || !strstr(a, "a.log"));
    CHECK(!strstr(b, "sub/c.log") || !strstr(a, "sub/c.log"));

    filter_release(&f);
    nftw(dir, rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

TEST(objsrc_one_missing_and_special)
{
    char dir[4096], arg[4200], got[4096];
    struct job j;
    struct objsrc_opts o;
    struct filter f = FILTER_INIT;
    struct s3c_error e = S3C_ERROR_INIT;
    struct objsrc src;

    make_tmp(dir, sizeof(dir));
    mk(dir, "d/one.txt");
    memset(&j, 0, sizeof(j));
    memset(&o, 0, sizeof(o));
    o.job = &j;
    o.follow_symlinks = o.check_readable = true;

    /* One file: named by its base name, yielded once; filtered only when asked (rm). */
    snprintf(arg, sizeof(arg), "%s/d/one.txt", dir);
    o.arg = arg;
    CHECK_INT(drain(&o, got, sizeof(got), &src), S3C_OK);
    CHECK(src.kind == OBJSRC_ONE);
    objsrc_close(&src);
    CHECK_STR(got, "one.txt=0;");
    CHECK_INT(filter_add(&f, FILTER_EXCLUDE, "*.txt", &e), S3C_OK);
    o.filter = &f;
    CHECK_INT(drain(&o, got, sizeof(got), NULL), S3C_OK);
    CHECK_STR(got, "one.txt=0;");
    o.filter_one = true;
    CHECK_INT(drain(&o, got, sizeof(got), NULL), S3C_OK);
    CHECK_STR(got, "");
    o.filter = NULL;
    o.filter_one = false;

    /* A root that is not there: an error, or nothing (a sync's new destination). */
    snprintf(arg, sizeof(arg), "%s/none", dir);
    o.recursive = true;
    CHECK_INT(drain(&o, got, sizeof(got), NULL), S3C_ENOTFOUND);
    o.missing_is_empty = true;
    CHECK_INT(drain(&o, got, sizeof(got), &src), S3C_OK);
    CHECK(src.kind == OBJSRC_EMPTY);
    objsrc_close(&src);
    CHECK_STR(got, "");
    o.missing_is_empty = false;

    /* A FIFO: a bad entry (special), and the walk goes on. */
    snprintf(arg, sizeof(arg), "%s/d/fifo", dir);
    CHECK(mkfifo(arg, 0644) == 0);
    snprintf(arg, sizeof(arg), "%s/d", dir);
    CHECK_INT(drain(&o, got, sizeof(got), NULL), S3C_OK);
    CHECK_STR(got, "!fifo;one.txt=9;");

    filter_release(&f);
    nftw(dir, rm_one, 16, FTW_DEPTH | FTW_PHYS);
}
