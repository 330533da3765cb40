#include "t.h"

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "http/resolve.h"

TEST(resolve_hosts_file_lines)
{
    const char *text = "# a hosts file\n"
                       "127.0.0.2 s3.test  other\n"
                       "  127.0.0.3\tS3.TEST # a comment s3.test\n"
                       "::1 s3.test\r\n"
                       "not-an-address s3.test\n"
                       "127.0.0.4 s3.test.example\n"
                       "127.0.0.5 #s3.test\n"
                       "127.0.0.6 s3.test";
    char out[8][64];

    CHECK_INT(http_hosts_lookup(text, "s3.test", out, 8), 4);
    CHECK_STR(out[0], "127.0.0.2");
    CHECK_STR(out[1], "127.0.0.3");
    CHECK_STR(out[2], "[::1]");
    CHECK_STR(out[3], "127.0.0.6");
    CHECK_INT(http_hosts_lookup(text, "s3.test", out, 2), 2);
    CHECK_INT(http_hosts_lookup(text, "other", out, 8), 1);
    CHECK_INT(http_hosts_lookup(text, "nothing", out, 8), 0);
    CHECK_INT(http_hosts_lookup("", "s3.test", out, 8), 0);
}

/* Requests go to the address with the fewest in flight; a refusing one rests. */
TEST(resolve_spreads_and_rests)
{
    char path[] = "/tmp/s3c-unit-hosts.XXXXXX", addr[64];
    struct s3c_error e = S3C_ERROR_INIT;
    struct http_resolve_addr *a[6];
    struct http_resolver *r;
    int fd = mkstemp(path), i, n2 = 0;
    const char *text = "127.0.0.2 s3.test\n127.0.0.3 s3.test\n127.0.0.4 one.test\n";

    CHECK(fd >= 0);
    CHECK(write(fd, text, strlen(text)) == (ssize_t)strlen(text));
    close(fd);
    r = http_resolver_new(path, &e);
    unlink(path);
    CHECK(r != NULL);
    if (!r)
        return;
    for (i = 0; i < 4; i++) {
        a[i] = http_resolver_pick(r, "s3.test", addr, sizeof(addr));
        CHECK(a[i] != NULL);
        n2 += strcmp(addr, "127.0.0.2") == 0;
    }
    CHECK_INT(n2, 2); /* two in flight on each */
    http_resolver_put(r, a[0], false);
    http_resolver_put(r, a[2], false);
    a[4] = http_resolver_pick(r, "s3.test", addr, sizeof(addr));
    CHECK(a[4] == a[0] || a[4] == a[2]);
    /* A hosts-file name is pinned even with one address; IP literals never are. */
    a[5] = http_resolver_pick(r, "one.test", addr, sizeof(addr));
    CHECK(a[5] != NULL);
    CHECK_STR(addr, "127.0.0.4");
    CHECK(http_resolver_pick(r, "127.0.0.1", addr, sizeof(addr)) == NULL);
    /* Refused: that address rests, the other takes every request. */
    http_resolver_put(r, a[5], true);
    CHECK(http_resolver_pick(r, "one.test", addr, sizeof(addr)) == NULL);
    http_resolver_put(r, a[1], true);
    for (i = 0; i < 3; i++) {
        struct http_resolve_addr *p = http_resolver_pick(r, "s3.test", addr, sizeof(addr));
        CHECK(p != NULL && p != a[1]);
    }
    http_resolver_free(r);
    CHECK(http_resolver_new("/nonexistent/hosts", &e) == NULL);
    CHECK(strstr(e.msg, "S3C_HOSTS_FILE") != NULL);
}
