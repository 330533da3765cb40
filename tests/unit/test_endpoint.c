/*
 * Request targets: AWS regional, dual-stack and accelerate host names,
 * virtual-hosted vs path style (auto, path, virtual), custom endpoints with
 * ports and base paths, and key encoding.
 */
#include "t.h"

#include <stdlib.h>

#include "s3/endpoint.h"

/* A configuration built by hand: strings are literals, never cfg_release()d. */
static struct s3c_config conf(const char *region, const char *endpoint_url)
{
    struct s3c_config c = S3C_CONFIG_INIT;

    c.region = (char *)region;
    c.endpoint_url = (char *)endpoint_url;
    c.verify_ssl = true;
    return c;
}

/* Resolve and compare url, host and path; "" for any of them skips the check. */
static void expect(const struct s3c_config *c, const char *bucket, const char *key,
                   const char *url, const char *host, const char *path, int line)
{
    struct s3_target t = S3_TARGET_INIT;
    struct s3c_error e = S3C_ERROR_INIT;
    enum s3c_err rc = s3_endpoint_resolve(c, bucket, key, &t, &e);

    if (rc) {
        t_fail(__FILE__, line, "resolve failed: %s", e.msg);
    } else {
        if (*url && strcmp(buf_cstr(&t.url), url) != 0)
            t_fail(__FILE__, line, "url\n  got  [%s]\n  want [%s]", buf_cstr(&t.url), url);
        if (*host && strcmp(buf_cstr(&t.host), host) != 0)
            t_fail(__FILE__, line, "host\n  got  [%s]\n  want [%s]", buf_cstr(&t.host), host);
        if (*path && strcmp(buf_cstr(&t.path), path) != 0)
            t_fail(__FILE__, line, "path\n  got  [%s]\n  want [%s]", buf_cstr(&t.path), path);
    }
    s3_target_release(&t);
}

#define EXPECT(c, b, k, url, host, path) expect(c, b, k, url, host, path, __LINE__)

TEST(endpoint_aws_virtual_hosted)
{
    struct s3c_config c = conf("us-east-1", NULL);
    struct s3_target t = S3_TARGET_INIT;

    /* The CLI v2 uses the regional endpoint for us-east-1 too. */
    EXPECT(&c, "mybucket", "a/b.txt", "https://mybucket.s3.us-east-1.amazonaws.com/a/b.txt",
           "mybucket.s3.us-east-1.amazonaws.com", "/a/b.txt");
    EXPECT(&c, "mybucket", NULL, "https://mybucket.s3.us-east-1.amazonaws.com/", "", "/");
    EXPECT(&c, "mybucket", "", "https://mybucket.s3.us-east-1.amazonaws.com/", "", "/");
    c.region = "eu-west-1";
    EXPECT(&c, "logs-2024", "x", "https://logs-2024.s3.eu-west-1.amazonaws.com/x",
           "logs-2024.s3.eu-west-1.amazonaws.com", "/x");
    c.region = "cn-north-1";
    EXPECT(&c, "mybucket", "k", "https://mybucket.s3.cn-north-1.amazonaws.com.cn/k", "", "");

    CHECK_INT(s3_endpoint_resolve(&c, "mybucket", "k", &t, NULL), S3C_OK);
    CHECK(t.tls && t.virtual_hosted);
    s3_target_release(&t);
}

TEST(endpoint_aws_service_root)
{
    struct s3c_config c = conf("us-west-2", NULL);

    EXPECT(&c, NULL, NULL, "https://s3.us-west-2.amazonaws.com/", "s3.us-west-2.amazonaws.com",
           "/");
    EXPECT(&c, "", NULL, "https://s3.us-west-2.amazonaws.com/", "", "/");
    c.s3.use_dualstack_endpoint.value = true;
    EXPECT(&c, NULL, NULL, "https://s3.dualstack.us-west-2.amazonaws.com/", "", "/");
    c.s3.use_accelerate_endpoint.value = true;  /* no bucket: accelerate does not apply */
    EXPECT(&c, NULL, NULL, "https://s3.dualstack.us-west-2.amazonaws.com/", "", "/");
}

TEST(endpoint_aws_path_style_for_non_dns_buckets)
{
    struct s3c_config c = conf("us-west-2", NULL);
    struct s3_target t = S3_TARGET_INIT;
    char long_name[65];

    EXPECT(&c, "my.bucket", "k", "https://s3.us-west-2.amazonaws.com/my.bucket/k",
           "s3.us-west-2.amazonaws.com", "/my.bucket/k");
    EXPECT(&c, "MyBucket", "k", "https://s3.us-west-2.amazonaws.com/MyBucket/k", "", "");
    EXPECT(&c, "my_bucket", "k", "https://s3.us-west-2.amazonaws.com/my_bucket/k", "", "");
    EXPECT(&c, "ab", "k", "https://s3.us-west-2.amazonaws.com/ab/k", "", "");
    EXPECT(&c, "-abc", NULL, "https://s3.us-west-2.amazonaws.com/-abc", "", "/-abc");
    EXPECT(&c, "abc-", NULL, "https://s3.us-west-2.amazonaws.com/abc-", "", "");
    EXPECT(&c, "192.168.1.1", NULL, "https://s3.us-west-2.amazonaws.com/192.168.1.1", "", "");
    memset(long_name, 'a', 64);
    long_name[64] = '\0';
    CHECK_INT(s3_endpoint_resolve(&c, long_name, NULL, &t, NULL), S3C_OK);
    CHECK(!t.virtual_hosted);
    long_name[63] = '\0';
    CHECK_INT(s3_endpoint_resolve(&c, long_name, NULL, &t, NULL), S3C_OK);
    CHECK(t.virtual_hosted);
    s3_target_release(&t);
}

TEST(endpoint_aws_addressing_style)
{
    struct s3c_config c = conf("ap-southeast-2", NULL);

    c.s3.addressing_style = CFG_ADDRESSING_PATH;
    EXPECT(&c, "mybucket", "k", "https://s3.ap-southeast-2.amazonaws.com/mybucket/k",
           "s3.ap-southeast-2.amazonaws.com", "/mybucket/k");
    EXPECT(&c, "mybucket", NULL, "https://s3.ap-southeast-2.amazonaws.com/mybucket", "",
           "/mybucket");
    c.s3.addressing_style = CFG_ADDRESSING_VIRTUAL;
    EXPECT(&c, "mybucket", "k", "https://mybucket.s3.ap-southeast-2.amazonaws.com/k", "", "");
    /* virtual cannot put an invalid name in a host: path style, as the rules do */
    EXPECT(&c, "My.Bucket", "k", "https://s3.ap-southeast-2.amazonaws.com/My.Bucket/k", "", "");
}

TEST(endpoint_aws_dualstack_and_accelerate)
{
    struct s3c_config c = conf("us-west-2", NULL);
    struct s3_target t = S3_TARGET_INIT;
    struct s3c_error e = S3C_ERROR_INIT;

    c.s3.use_dualstack_endpoint.value = true;
    EXPECT(&c, "mybucket", "k", "https://mybucket.s3.dualstack.us-west-2.amazonaws.com/k",
           "mybucket.s3.dualstack.us-west-2.amazonaws.com", "/k");
    EXPECT(&c, "my.bucket", "k", "https://s3.dualstack.us-west-2.amazonaws.com/my.bucket/k", "",
           "");

    c.s3.use_dualstack_endpoint.value = false;
    c.s3.use_accelerate_endpoint.value = true;
    EXPECT(&c, "mybucket", "k", "https://mybucket.s3-accelerate.amazonaws.com/k",
           "mybucket.s3-accelerate.amazonaws.com", "/k");
    c.s3.addressing_style = CFG_ADDRESSING_PATH;    /* accelerate wins, as botocore */
    EXPECT(&c, "mybucket", "k", "https://mybucket.s3-accelerate.amazonaws.com/k", "", "");
    c.s3.use_dualstack_endpoint.value = true;
    EXPECT(&c, "mybucket", "k", "https://mybucket.s3-accelerate.dualstack.amazonaws.com/k",
           "mybucket.s3-accelerate.dualstack.amazonaws.com", "/k");

    CHECK_INT(s3_endpoint_resolve(&c, "my.bucket", "k", &t, &e), S3C_ECONFIG);
    CHECK(strstr(e.msg, "cannot be used with S3 Accelerate") != NULL);
    c.region = "cn-north-1";
    CHECK_INT(s3_endpoint_resolve(&c, "mybucket", "k", &t, &e), S3C_ECONFIG);
    s3_target_release(&t);
}

TEST(endpoint_custom_is_path_style_under_auto)
{
    struct s3c_config c = conf("us-east-1", "http://127.0.0.1:9000");
    struct s3_target t = S3_TARGET_INIT;

    EXPECT(&c, "mybucket", "dir/file.txt", "http://127.0.0.1:9000/mybucket/dir/file.txt",
           "127.0.0.1:9000", "/mybucket/dir/file.txt");
    EXPECT(&c, "mybucket", NULL, "http://127.0.0.1:9000/mybucket", "", "/mybucket");
    EXPECT(&c, NULL, NULL, "http://127.0.0.1:9000/", "127.0.0.1:9000", "/");
    CHECK_INT(s3_endpoint_resolve(&c, "mybucket", "k", &t, NULL), S3C_OK);
    CHECK(!t.tls && !t.virtual_hosted);

    c.endpoint_url = "https://s3.example.com";
    EXPECT(&c, "mybucket", "k", "https://s3.example.com/mybucket/k", "s3.example.com",
           "/mybucket/k");
    CHECK_INT(s3_endpoint_resolve(&c, "mybucket", "k", &t, NULL), S3C_OK);
    CHECK(t.tls);

    /* Default ports are not written, as curl's Host header omits them. */
    c.endpoint_url = "http://localhost:80";
    EXPECT(&c, "b1b", "k", "http://localhost/b1b/k", "localhost", "/b1b/k");
    c.endpoint_url = "https://localhost:443/";
    EXPECT(&c, "b1b", "k", "https://localhost/b1b/k", "localhost", "/b1b/k");
    c.endpoint_url = "https://localhost:80";
    EXPECT(&c, "b1b", "k", "https://localhost:80/b1b/k", "localhost:80", "");

    /* Base paths. */
    c.endpoint_url = "http://localhost:8000/base";
    EXPECT(&c, "b1b", "k", "http://localhost:8000/base/b1b/k", "", "/base/b1b/k");
    EXPECT(&c, NULL, NULL, "http://localhost:8000/base", "", "/base");
    c.endpoint_url = "http://localhost:8000/base/";
    EXPECT(&c, "b1b", "k", "http://localhost:8000/base/b1b/k", "", "/base/b1b/k");

    /* IPv6 literal. */
    c.endpoint_url = "http://[::1]:7480";
    EXPECT(&c, "b1b", "k", "http://[::1]:7480/b1b/k", "[::1]:7480", "/b1b/k");
    s3_target_release(&t);
}

TEST(endpoint_custom_virtual_hosted)
{
    struct s3c_config c = conf("us-east-1", "http://s3.local:9000/base");

    c.s3.addressing_style = CFG_ADDRESSING_VIRTUAL;
    EXPECT(&c, "mybucket", "k", "http://mybucket.s3.local:9000/base/k", "mybucket.s3.local:9000",
           "/base/k");
    EXPECT(&c, "mybucket", NULL, "http://mybucket.s3.local:9000/base", "", "/base");
    /* Dotted names go in the host only over plain http (TLS certificates would not match). */
    EXPECT(&c, "my.bucket", "k", "http://my.bucket.s3.local:9000/base/k", "", "");
    c.endpoint_url = "https://s3.local";
    EXPECT(&c, "my.bucket", "k", "https://s3.local/my.bucket/k", "", "");
    EXPECT(&c, "mybucket", "k", "https://mybucket.s3.local/k", "mybucket.s3.local", "/k");
    /* IP hosts cannot carry a bucket label. */
    c.endpoint_url = "http://127.0.0.1:9000";
    EXPECT(&c, "mybucket", "k", "http://127.0.0.1:9000/mybucket/k", "", "");
    c.endpoint_url = "http://s3.local:9000";
    EXPECT(&c, "mybucket", NULL, "http://mybucket.s3.local:9000/", "", "/");
    /* Dual-stack never applies to a custom endpoint. */
    c.s3.addressing_style = CFG_ADDRESSING_AUTO;
    c.s3.use_dualstack_endpoint.value = true;
    EXPECT(&c, "mybucket", "k", "http://s3.local:9000/mybucket/k", "", "");
}

TEST(endpoint_bad_urls_and_buckets)
{
    static const char *bad[] = {
        "ftp://x",          "http://",          "http://:9000",   "http://h:0",
        "http://h:70000",   "http://u@h",       "http://h/?q=1",  "http://h:abc",
        "http://h:",        "http://[]:80",     "http://h#frag",  "localhost:9000",
        "http://h st",      "http://h!x",
    };
    struct s3c_config c = conf("us-east-1", NULL);
    struct s3_target t = S3_TARGET_INIT;
    struct s3c_error e = S3C_ERROR_INIT;
    size_t i;

    for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        c.endpoint_url = (char *)bad[i];
        if (s3_endpoint_resolve(&c, "b1b", "k", &t, &e) != S3C_ECONFIG)
            t_fail(__FILE__, __LINE__, "endpoint \"%s\" was accepted", bad[i]);
    }
    /* botocore: "A custom endpoint cannot be combined with S3 Accelerate". */
    c.endpoint_url = "http://127.0.0.1:9000";
    c.s3.use_accelerate_endpoint.value = true;
    CHECK_INT(s3_endpoint_resolve(&c, NULL, NULL, &t, &e), S3C_ECONFIG);
    CHECK_STR(e.msg, "A custom endpoint cannot be combined with S3 Accelerate");
    c.s3.use_accelerate_endpoint.value = false;
    c.endpoint_url = NULL;
    CHECK_INT(s3_endpoint_resolve(&c, "a/b", "k", &t, &e), S3C_EUSAGE);
    CHECK_STR(e.msg, "bucket name \"a/b\" contains '/'");
    s3_target_release(&t);
}

TEST(endpoint_key_encoding_round_trips)
{
    struct s3c_config c = conf("us-east-1", "http://127.0.0.1:9000");

    EXPECT(&c, "b1b", "a b/c+d%e#f?g~h_i.j-k", "", "", "/b1b/a%20b/c%2Bd%25e%23f%3Fg~h_i.j-k");
    EXPECT(&c, "b1b", "caf\xc3\xa9/\xe6\x97\xa5\xe6\x9c\xac.txt", "", "",
           "/b1b/caf%C3%A9/%E6%97%A5%E6%9C%AC.txt");
    EXPECT(&c, "b1b", "a//b/../c/./d/", "", "", "/b1b/a//b/../c/./d/");
    EXPECT(&c, "b1b", "=&;:@,$!*'()[]", "", "", "/b1b/%3D%26%3B%3A%40%2C%24%21%2A%27%28%29%5B%5D");
    EXPECT(&c, "b1b", "tab\there\nnl", "", "", "/b1b/tab%09here%0Anl");
    c.endpoint_url = NULL;
    EXPECT(&c, "mybucket", "a b", "https://mybucket.s3.us-east-1.amazonaws.com/a%20b", "",
           "/a%20b");
}

TEST(endpoint_uri_encode_and_bucket_rules)
{
    struct buf b = BUF_INIT(64);

    CHECK_INT(s3_uri_encode(SV("a/b c"), false, &b), S3C_OK);
    CHECK_STR(buf_cstr(&b), "a%2Fb%20c");
    buf_reset(&b);
    CHECK_INT(s3_uri_encode(SV("a/b c"), true, &b), S3C_OK);
    CHECK_STR(buf_cstr(&b), "a/b%20c");
    buf_release(&b);

    CHECK(s3_bucket_is_virtual_hostable("abc", false));
    CHECK(s3_bucket_is_virtual_hostable("a-b-c1", false));
    CHECK(!s3_bucket_is_virtual_hostable("a.b.c", false));
    CHECK(s3_bucket_is_virtual_hostable("ab.cd", true));
    CHECK(!s3_bucket_is_virtual_hostable("ab..cd", true));
    CHECK(!s3_bucket_is_virtual_hostable("ab.-cd", true));
    CHECK(!s3_bucket_is_virtual_hostable("10.0.0.1", true));
    CHECK(s3_bucket_is_virtual_hostable("10.0.0.1a", true));
    CHECK(!s3_bucket_is_virtual_hostable("Abc", false));
    CHECK(!s3_bucket_is_virtual_hostable("", false));
}

TEST(endpoint_target_reuse_and_cap)
{
    struct s3c_config c = conf("us-east-1", NULL);
    struct s3_target t = S3_TARGET_INIT;
    struct s3c_error e = S3C_ERROR_INIT;
    char *big = malloc(20000);

    CHECK_INT(s3_endpoint_resolve(&c, "first", "1", &t, NULL), S3C_OK);
    CHECK_INT(s3_endpoint_resolve(&c, "second", "2", &t, NULL), S3C_OK);
    CHECK_STR(buf_cstr(&t.url), "https://second.s3.us-east-1.amazonaws.com/2");
    if (big) {
        memset(big, ' ', 19999);        /* 3 bytes each once encoded */
        big[19999] = '\0';
        CHECK_INT(s3_endpoint_resolve(&c, "b1b", big, &t, &e), S3C_ENOMEM);
        CHECK(strstr(e.msg, "longer than") != NULL);
    }
    free(big);
    s3_target_release(&t);
}

/* Resolve for 'kind' and compare the URL and the "s3express" marker. */
static void expect_x(const struct s3c_config *c, const char *bucket, const char *key, enum s3_endpoint_kind kind,
                     const char *url, int line)
{
    struct s3_target t = S3_TARGET_INIT;
    struct s3c_error e = S3C_ERROR_INIT;

    if (s3_endpoint_resolve_kind(c, NULL, bucket, key, kind, &t, &e))
        t_fail(__FILE__, line, "resolve failed: %s", e.msg);
    else if (strcmp(buf_cstr(&t.url), url) != 0 || !t.express)
        t_fail(__FILE__, line, "url\n  got  [%s]%s\n  want [%s]", buf_cstr(&t.url),
               t.express ? "" : " (not express)", url);
    s3_target_release(&t);
}

#define EXPECT_X(c, b, k, kind, url) expect_x(c, b, k, kind, url, __LINE__)

TEST(endpoint_express_names)
{
    char z[32];

    CHECK(s3_express_zone("mybucket--usw2-az1--x-s3", z, sizeof(z)));
    CHECK_STR(z, "usw2-az1");
    CHECK(s3_express_zone("my--odd--name--use1-az4--x-s3", z, sizeof(z)));
    CHECK_STR(z, "use1-az4");
    CHECK(s3_express_zone("b--usw2-lax1-az1--x-s3", z, sizeof(z)));
    CHECK_STR(z, "usw2-lax1-az1");
    CHECK(s3_bucket_is_express("data--apne1-az4--x-s3"));
    CHECK(!s3_bucket_is_express("data--x-s3"));          /* no zone */
    CHECK(!s3_bucket_is_express("--use1-az4--x-s3"));    /* no base */
    CHECK(!s3_bucket_is_express("data--use1-az4----x-s3"));
    CHECK(!s3_bucket_is_express("data-use1-az4-x-s3"));
    CHECK(!s3_bucket_is_express("mybucket"));
    CHECK(!s3_bucket_is_express(NULL));
    CHECK(!s3_express_zone("b--usw2-az1--x-s3", z, 4)); /* does not fit */
}

TEST(endpoint_express_aws)
{
    struct s3c_config c = conf("us-west-2", NULL);
    struct s3_target t = S3_TARGET_INIT;
    struct s3c_error e = S3C_ERROR_INIT;

    /* Object requests: the zonal endpoint, virtual-hosted, whatever the addressing style. */
    EXPECT_X(&c, "b1--usw2-az1--x-s3", "a/k 1", S3_EP_OBJECT,
             "https://b1--usw2-az1--x-s3.s3express-usw2-az1.us-west-2.amazonaws.com/a/k%201");
    EXPECT_X(&c, "b1--usw2-az1--x-s3", NULL, S3_EP_OBJECT,
             "https://b1--usw2-az1--x-s3.s3express-usw2-az1.us-west-2.amazonaws.com/");
    c.s3.addressing_style = CFG_ADDRESSING_PATH;
    EXPECT_X(&c, "b1--usw2-az1--x-s3", "k", S3_EP_OBJECT,
             "https://b1--usw2-az1--x-s3.s3express-usw2-az1.us-west-2.amazonaws.com/k");
    /* Bucket management: the regional control endpoint, path style. */
    EXPECT_X(&c, "b1--usw2-az1--x-s3", NULL, S3_EP_CONTROL,
             "https://s3express-control.us-west-2.amazonaws.com/b1--usw2-az1--x-s3");
    EXPECT_X(&c, NULL, NULL, S3_EP_CONTROL, "https://s3express-control.us-west-2.amazonaws.com/");
    c.s3.use_dualstack_endpoint.value = true;
    EXPECT_X(&c, "b1--usw2-az1--x-s3", "k", S3_EP_OBJECT,
             "https://b1--usw2-az1--x-s3.s3express-usw2-az1.dualstack.us-west-2.amazonaws.com/k");
    EXPECT_X(&c, NULL, NULL, S3_EP_CONTROL, "https://s3express-control.dualstack.us-west-2.amazonaws.com/");
    /* The region of a bucket learnt elsewhere names its endpoints. */
    CHECK_INT(s3_endpoint_resolve_in(&c, "eu-north-1", "b--eun1-az1--x-s3", "k", &t, NULL), S3C_OK);
    CHECK_STR(buf_cstr(&t.host), "b--eun1-az1--x-s3.s3express-eun1-az1.dualstack.eu-north-1.amazonaws.com");
    /* No Accelerate; a name that cannot be virtual-hosted cannot be sent. */
    c.s3.use_dualstack_endpoint.value = false;
    c.s3.use_accelerate_endpoint.value = true;
    CHECK_INT(s3_endpoint_resolve(&c, "b1--usw2-az1--x-s3", "k", &t, &e), S3C_ECONFIG);
    c.s3.use_accelerate_endpoint.value = false;
    CHECK_INT(s3_endpoint_resolve(&c, "B1--usw2-az1--x-s3", "k", &t, &e), S3C_EUSAGE);
    /* A general-purpose bucket is untouched, and not express. */
    c.s3.addressing_style = CFG_ADDRESSING_AUTO;
    CHECK_INT(s3_endpoint_resolve(&c, "plain", "k", &t, NULL), S3C_OK);
    CHECK_STR(buf_cstr(&t.url), "https://plain.s3.us-west-2.amazonaws.com/k");
    CHECK(!t.express);
    s3_target_release(&t);
}

TEST(endpoint_express_custom)
{
    struct s3c_config c = conf("us-east-1", "http://127.0.0.1:9000");
    struct s3_target t = S3_TARGET_INIT;

    /* An IP endpoint: path style for both kinds (one emulator port serves both). */
    EXPECT_X(&c, "b--use1-az4--x-s3", "k", S3_EP_OBJECT, "http://127.0.0.1:9000/b--use1-az4--x-s3/k");
    EXPECT_X(&c, "b--use1-az4--x-s3", NULL, S3_EP_CONTROL, "http://127.0.0.1:9000/b--use1-az4--x-s3");
    EXPECT_X(&c, NULL, NULL, S3_EP_CONTROL, "http://127.0.0.1:9000/");
    /* A host name: zonal requests virtual-hosted on it, control ones path style. */
    c.endpoint_url = "http://localhost:9000/base";
    EXPECT_X(&c, "b--use1-az4--x-s3", "k", S3_EP_OBJECT, "http://b--use1-az4--x-s3.localhost:9000/base/k");
    EXPECT_X(&c, "b--use1-az4--x-s3", NULL, S3_EP_CONTROL, "http://localhost:9000/base/b--use1-az4--x-s3");
    c.s3.addressing_style = CFG_ADDRESSING_PATH;
    EXPECT_X(&c, "b--use1-az4--x-s3", "k", S3_EP_OBJECT, "http://localhost:9000/base/b--use1-az4--x-s3/k");
    /* General-purpose buckets as before. */
    c.s3.addressing_style = CFG_ADDRESSING_AUTO;
    CHECK_INT(s3_endpoint_resolve(&c, "plain", "k", &t, NULL), S3C_OK);
    CHECK_STR(buf_cstr(&t.url), "http://localhost:9000/base/plain/k");
    CHECK(!t.express);
    s3_target_release(&t);
}
