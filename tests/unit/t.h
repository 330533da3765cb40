/*
 * t: the unit-test harness. A test is a function declared with TEST(name);
 * it registers itself before main(). CHECK* record a failure with file:line
 * and go on; the runner prints each failing test and a closing line
 * "unit: N passed, N failed" and exits non-zero on any failure.
 *
 *   TEST(buf_caps) { struct buf b = BUF_INIT(4); CHECK(buf_adds(&b, "12345")); }
 */
#ifndef S3C_TESTS_T_H
#define S3C_TESTS_T_H

#include <stdio.h>
#include <string.h>

typedef void (*t_fn)(void);
void t_register(const char *name, t_fn fn);
void t_fail(const char *file, int line, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

#define TEST(name)                                                           \
    static void test_##name(void);                                           \
    __attribute__((constructor)) static void register_##name(void)           \
    {                                                                        \
        t_register(#name, test_##name);                                      \
    }                                                                        \
    static void test_##name(void)

#define CHECK(cond)                                                          \
    do {                                                                     \
        if (!(cond))                                                         \
            t_fail(__FILE__, __LINE__, "CHECK(%s)", #cond);                  \
    } while (0)

#define CHECK_INT(a, b)                                                      \
    do {                                                                     \
        long long a_ = (long long)(a), b_ = (long long)(b);                  \
        if (a_ != b_)                                                        \
            t_fail(__FILE__, __LINE__, "%s == %lld, want %lld", #a, a_, b_); \
    } while (0)

#define CHECK_STR(a, b)                                                      \
    do {                                                                     \
        const char *a_ = (a), *b_ = (b);                                     \
        if (!a_ || !b_ || strcmp(a_, b_) != 0)                               \
            t_fail(__FILE__, __LINE__, "%s:\n  got  [%s]\n  want [%s]", #a,  \
                   a_ ? a_ : "(null)", b_ ? b_ : "(null)");                  \
    } while (0)

/* Path of a fixture under tests/fixtures (the runner is started from the repo root). */
const char *t_fixture(const char *name);

/* A fresh temporary directory under $TMPDIR (or /tmp) into 'dir'; removed by t_rm_tree(). */
void t_tmpdir(char *dir, size_t size);
void t_rm_tree(const char *dir);
/* Create 'rel' under 'dir', holding its own name (so its size is its length);
 * a trailing '/' makes a directory; parents are made. */
void t_mk(const char *dir, const char *rel);

#endif
