/* The unit-test runner: runs every registered test, or those whose name contains argv[1]. */
#include "t.h"

#include <stdarg.h>
#include <stdlib.h>

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

int main(int argc, char **argv)
{
    int passed = 0, failed = 0, i;

    for (i = 0; i < n_tests; i++) {
        if (argc > 1 && !strstr(tests[i].name, argv[1]))
            continue;
        cur_name = tests[i].name;
        cur_failed = 0;
        tests[i].fn();
        if (cur_failed)
            failed++;
        else
            passed++;
    }
    printf("unit: %d passed, %d failed\n", passed, failed);
    return failed ? 1 : 0;
}
