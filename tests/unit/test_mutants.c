/*
 * Tests that kill the mutants the other unit tests let live (issue 28): each
 * names the change to the code it exists to catch. tests/mutate.sh makes
 * such changes one at a time and says which ones no test notices.
 */
#include "t.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "auth/creds_impl.h"
#include "auth/keyring.h"
#include "auth/sigv4.h"
#include "xfer/engine.h"
#include "xfer/journal.h"
#include "xfer/xfer.h"

#define MiB ((uint64_t)1 << 20)

/*
 * The 10,000-part floor: the part size is the least whole MiB that cuts the
 * object in 10,000 parts or fewer. Kills: the ceiling's "+ PARTS_MAX - 1"
 * turned into "- ..." or "+ ... + 1" or "- 2" (one part too many, or a MiB
 * too much), the MiB rounding's "+ MIB - 1" likewise, and "p < min" turned
 * into "p <= min" (a configured size exactly at the floor is kept as it is).
 */
TEST(mutant_part_size_floor_is_10000_parts_exactly)
{
    uint64_t exact = 10000 * 80 * MiB, odd = 5 * MiB + 1;

    /* 80 MiB x 10,000 exactly: 80 MiB, and one byte more needs 81 MiB. */
    CHECK_INT(xfer_part_size(exact, 0), 80 * MiB);
    CHECK_INT(xfer_part_size(exact + 1, 0), 81 * MiB);
    CHECK(xfer_part_size(exact + 1, 0) * 10000 >= exact + 1);
    CHECK_INT(xfer_part_size(exact - 1, 0), 80 * MiB);
    /* The floor in bytes is a MiB and a bit: rounded up to 2 MiB, but the default 8 MiB wins. */
    CHECK_INT(xfer_part_size(10000 * MiB + 1, 0), 8 * MiB);
    /* A configured size that is exactly the floor (not whole MiB) stays as configured. */
    CHECK_INT(xfer_part_size(10000 * odd, odd), odd);
    CHECK_INT(xfer_part_size(10000 * odd + 1, odd), 6 * MiB);
    /* The fitted size never goes under the floor either. */
    CHECK(xfer_part_size_fit(exact + 1, 0, NULL) * 10000 >= exact + 1);
}

/*
 * Repeated query names: SigV4 sorts the canonical query by name and, for
 * the same name, by value (as botocore does: sorted((name, value))). Kills
 * a comparator that looks at names only (order of the request kept).
 */
TEST(mutant_sigv4_repeated_query_names_sort_by_value)
{
    const struct sigv4_header h[] = { { "Host", "h" } };
    const struct sigv4_request r1 = { "GET", "/", "b=1&a=2&a=10&a=1", h, 1, "UNSIGNED-PAYLOAD" };
    const struct sigv4_request r2 = { "GET", "/", "a=1&a=10&b=1&a=2", h, 1, "UNSIGNED-PAYLOAD" };
    struct buf a = BUF_INIT(4096), b = BUF_INIT(4096);

    CHECK_INT(sigv4_canonical_request(&r1, &a, NULL), S3C_OK);
    CHECK_INT(sigv4_canonical_request(&r2, &b, NULL), S3C_OK);
    CHECK_STR(buf_cstr(&a), "GET\n/\na=1&a=10&a=2&b=1\nhost:h\n\nhost\nUNSIGNED-PAYLOAD");
    CHECK_STR(buf_cstr(&a), buf_cstr(&b));
    buf_release(&a);
    buf_release(&b);
}

/*
 * The exact multipart threshold: an object of exactly the threshold goes in
 * parts, as the AWS CLI's s3transfer does (it uploads in one request only
 * when size < multipart_threshold). Kills ">= threshold" turned into "> threshold".
 */
TEST(mutant_multipart_threshold_is_inclusive)
{
    static struct engine g;

    memset(&g, 0, sizeof(g));
    CHECK(!wants_multipart(&g, 8 * MiB - 1));
    CHECK(wants_multipart(&g, 8 * MiB)); /* the default threshold, 8 MiB */
    g.opts.multipart_threshold = 5 * MiB + 7;
    CHECK(!wants_multipart(&g, 5 * MiB + 6));
    CHECK(wants_multipart(&g, 5 * MiB + 7));
    CHECK(!wants_multipart(&g, 0));
    /* Over 5 GiB always goes in parts, whatever the threshold. */
    g.opts.multipart_threshold = (uint64_t)10 << 30;
    CHECK(!wants_multipart(&g, (uint64_t)5 << 30));
    CHECK(wants_multipart(&g, ((uint64_t)5 << 30) + 1));
}

/*
 * The keyring's background refresh: inside the advisory window (after half
 * the keys' life for short-lived ones, before the mandatory third) the
 * current keys are handed out at once and fresh ones fetched on the side;
 * a later call, still before the mandatory window, gets them. Kills the
 * advisory branch removed (keys then change only in the mandatory window,
 * with the signer waiting).
 */
TEST(mutant_keyring_refreshes_in_the_background_before_it_must)
{
    const struct s3c_config cfg = S3C_CONFIG_INIT;
    char *envp[] = { NULL };
    struct creds_ctx x = { .cfg = &cfg, .envp = envp };
    struct creds_src *src = creds_src_new(&x, CREDS_KIND_STATIC, "test", NULL);
    struct creds first = CREDS_INIT;
    struct s3c_error e = S3C_ERROR_INIT;
    const struct creds *c;
    struct keyring *k;
    time_t t0 = time(NULL);
    unsigned gen = 99;
    int i;

    CHECK(src != NULL);
    if (!src)
        return;
    /* Keys that live 100 s: advisory from 50 s left, mandatory from 33 s left. */
    CHECK_INT(creds_dup(&src->keys.access_key, "AKIDNEWKEYS", &e), S3C_OK);
    CHECK_INT(creds_dup(&src->keys.secret_key, "new-secret", &e), S3C_OK);
    src->keys.expires = t0 + 3600;
    CHECK_INT(creds_dup(&first.access_key, "AKIDOLDKEYS", &e), S3C_OK);
    CHECK_INT(creds_dup(&first.secret_key, "old-secret", &e), S3C_OK);
    first.expires = t0 + 100;
    k = keyring_new(src, &first, NULL, NULL);
    CHECK(k != NULL);
    if (!k) {
        creds_src_free(src);
        return;
    }
    /* Before the advisory window: the first keys, no refresh. */
    c = keyring_get(k, t0 + 10, &gen, &e);
    CHECK(c && !strcmp(c->access_key, "AKIDOLDKEYS"));
    CHECK_INT(gen, 0);
    /* In it: still the old keys now, and the new ones on a later call. */
    c = keyring_get(k, t0 + 60, &gen, &e);
    CHECK(c && !strcmp(c->access_key, "AKIDOLDKEYS"));
    for (i = 0; i < 200 && keyring_refreshes(k) == 0; i++) {
        c = keyring_get(k, t0 + 61, &gen, &e);
        if (keyring_refreshes(k) == 0)
            usleep(10000);
    }
    CHECK_INT(keyring_refreshes(k), 1);
    c = keyring_get(k, t0 + 62, &gen, &e);
    CHECK(c && !strcmp(c->access_key, "AKIDNEWKEYS"));
    CHECK_INT(gen, 1);
    keyring_free(k);
    creds_src_free(src);
}

/*
 * The journal's part-count bound: a download record names at most 10,000
 * parts (S3's limit); one that adds up to more is malformed, not a resume.
 * Kills "n <= 10000" turned into "n < 10000" or "n <= 10001", and the bound
 * dropped.
 */
static void journal_parts(const char *dir, uint32_t n, uint64_t size, int want)
{
    struct s3c_error e = S3C_ERROR_INIT;
    uint8_t *done = calloc(n, 1);
    struct journal_download j = { "/d/big.bin", "bkt", "big", "", "\"abc\"", size, 1700000000,
                                  5 * MiB, "/d/.s3c-big.bin.tmp", n, done };
    struct journal_download got;

    CHECK(done != NULL);
    if (!done)
        return;
    done[0] = done[n - 1] = 1;
    CHECK_INT(journal_download_save(dir, &j, &e), S3C_OK);
    CHECK_INT(journal_download_load(dir, j.dest, &got, &e), want);
    if (want == 1) {
        CHECK_INT(got.n_parts, n);
        CHECK(got.n_parts == n && got.done[0] == 1 && got.done[n - 1] == 1 && got.done[1] == 0);
        journal_download_release(&got);
    }
    journal_download_remove(dir, j.dest);
    free(done);
}

TEST(mutant_journal_holds_at_most_10000_parts)
{
    char tmpl[] = "/tmp/s3c-unit-mutant.XXXXXX";
    char *dir = mkdtemp(tmpl);
    char cmd[256];

    CHECK(dir != NULL);
    if (!dir)
        return;
    journal_parts(dir, 10000, 10000 * 5 * MiB, 1);
    journal_parts(dir, 10000, 9999 * 5 * MiB + 1, 1);
    journal_parts(dir, 10001, 10000 * 5 * MiB + 1, -1);
    snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
    CHECK_INT(system(cmd), 0);
}

/*
 * Found by tests/mutate.sh on src/xfer/part.c: the ranges of a small object
 * written to stdout are an eighth of it rounded up to whole MiB. Kills the
 * ceiling's "+ 8 - 1" turned into "- 8 - 1", "+ 8 + 1" or "+ 8 - 2".
 */
TEST(mutant_stdout_ranges_round_an_eighth_up)
{
    CHECK_INT(xfer_stdout_part_size(24 * MiB, 0), 3 * MiB);     /* an eighth exactly */
    CHECK_INT(xfer_stdout_part_size(24 * MiB + 1, 0), 4 * MiB); /* a byte more: the next MiB */
    CHECK_INT(xfer_stdout_part_size(24 * MiB - 8, 0), 3 * MiB);
}

/* A keyring whose keys expire at t0 + 100, from a provider that hands out 'ak'. */
static struct keyring *short_keyring(struct creds_src **src, const char *ak, time_t t0)
{
    static const struct s3c_config cfg = S3C_CONFIG_INIT;
    static char *envp[] = { NULL };
    struct creds_ctx x = { .cfg = &cfg, .envp = envp };
    struct creds first = CREDS_INIT;
    struct s3c_error e = S3C_ERROR_INIT;

    *src = creds_src_new(&x, CREDS_KIND_STATIC, "test", NULL);
    if (!*src || creds_dup(&(*src)->keys.access_key, ak, &e) ||
        creds_dup(&(*src)->keys.secret_key, "s", &e) || creds_dup(&first.access_key, "AKIDOLDKEYS", &e) ||
        creds_dup(&first.secret_key, "s", &e))
        return NULL;
    (*src)->keys.expires = t0 + 3600;
    first.expires = t0 + 100;
    return keyring_new(*src, &first, NULL, NULL);
}

/*
 * Found by tests/mutate.sh on src/auth/keyring.c (16% killed before): inside
 * the mandatory window the caller waits for fresh keys; keys refused as
 * expired (keyring_expired) are refreshed on the next call; a refusal of a
 * signature of an older generation asks for none (the new keys may do); keys
 * past their expiry with a provider that cannot refresh are an error.
 */
TEST(mutant_keyring_mandatory_window_and_expired_keys)
{
    struct s3c_error e = S3C_ERROR_INIT;
    struct creds_src *src = NULL;
    time_t t0 = time(NULL);
    struct keyring *k = short_keyring(&src, "AKIDNEWKEYS", t0);
    const struct creds *c;
    unsigned gen = 99;

    CHECK(k != NULL);
    if (!k) {
        creds_src_free(src);
        return;
    }
    /* 30 s left of 100: mandatory (a third), so fresh keys at once. */
    c = keyring_get(k, t0 + 70, &gen, &e);
    CHECK(c && !strcmp(c->access_key, "AKIDNEWKEYS"));
    CHECK_INT(gen, 1);
    CHECK_INT(keyring_refreshes(k), 1);
    /* An older generation's refusal: no refresh asked, the new keys may do. */
    CHECK(keyring_expired(k, 0));
    c = keyring_get(k, t0 + 71, &gen, &e);
    CHECK_INT(keyring_refreshes(k), 1);
    /* This generation's refusal: refreshed on the next call, before any window. */
    CHECK(keyring_expired(k, gen));
    c = keyring_get(k, t0 + 72, &gen, &e);
    CHECK(c && !strcmp(c->access_key, "AKIDNEWKEYS"));
    CHECK_INT(gen, 2);
    CHECK_INT(keyring_refreshes(k), 2);
    keyring_free(k);
    creds_src_free(src);

    /* A provider that fails: past expiry, no keys and a reason. */
    src = NULL;
    k = short_keyring(&src, "AKIDNEWKEYS", t0);
    CHECK(k != NULL);
    if (!k) {
        creds_src_free(src);
        return;
    }
    src->kind = CREDS_KIND_PROCESS;
    src->command = strdup("false");
    s3c_error_clear(&e);
    c = keyring_get(k, t0 + 101, &gen, &e);
    CHECK(c == NULL);
    CHECK(e.code != S3C_OK && e.msg[0]);
    keyring_free(k);
    creds_src_free(src);
}
