/*
 * The unit-test runner: runs every registered test, or those whose name
 * contains argv[1]. T_TIMES=1 prints each test's wall time on stderr (to
 * find the slow ones, as under qemu).
 */
#include "t.h"

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdarg.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define T_MAX 1024

static struct {
    const char *name;
    t_fn fn;
} tests[T_MAX];
static int n_tests;
static int cur_failed;
static const char *cur_name;

void t_register(const char *name, t_fn fn)
{
    if (n_tests < T_MAX) {
        tests[n_tests].name = name;
        tests[n_tests].fn = fn;
        n_tests++;
    }
}

void t_fail(const char *file, int line, const char *fmt, ...)
{
    va_list ap;

    fprintf(stderr, "FAIL %s (%s:%d): ", cur_name, file, line);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    cur_failed = 1;
}

const char *t_fixture(const char *name)
{
    static char path[4096];
    const char *dir = getenv("S3C_FIXTURES");

    snprintf(path, sizeof(path), "%s/%s", dir ? dir : "tests/fixtures", name);
    return path;
}

/* ---- temporary trees (t.h) ---- */

void t_tmpdir(char *dir, size_t size)
{
    const char *t = getenv("TMPDIR");

    snprintf(dir, size, "%s/s3c-unit-XXXXXX", t && *t ? t : "/tmp");
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

void t_rm_tree(const char *dir)
{
    nftw(dir, rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

void t_mk(const char *dir, const char *rel)
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
    if (path[n - 1] == '/')
        return;
    fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0) {
        t_fail(__FILE__, __LINE__, "create %s: %s", rel, strerror(errno));
        return;
    }
    if (write(fd, rel, strlen(rel)) < 0) /* size = length of the name */
        t_fail(__FILE__, __LINE__, "write %s", rel);
    close(fd);
}

int main(int argc, char **argv)
{
    const char *times = getenv("T_TIMES");
    int passed = 0, failed = 0, i;

    for (i = 0; i < n_tests; i++) {
        struct timespec t0, t1;

        if (argc > 1 && !strstr(tests[i].name, argv[1]))
            continue;
        cur_name = tests[i].name;
        cur_failed = 0;
        clock_gettime(CLOCK_MONOTONIC, &t0);
        tests[i].fn();
        clock_gettime(CLOCK_MONOTONIC, &t1);
        if (times && *times == '1')
            fprintf(stderr, "time %s %.0f ms\n", cur_name,
                    (double)(t1.tv_sec - t0.tv_sec) * 1e3 + (double)(t1.tv_nsec - t0.tv_nsec) / 1e6);
        if (cur_failed)
            failed++;
        else
            passed++;
    }
    printf("unit: %d passed, %d failed\n", passed, failed);
    return failed ? 1 : 0;
}
