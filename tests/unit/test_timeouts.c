/*
 * The read and connect timeouts (issue 22, item 12): --cli-read-timeout and
 * --cli-connect-timeout, the profile's cli_read_timeout / cli_connect_timeout
 * (as the AWS CLI's), 0 for none, and the defaults that end a 1 byte/s reply
 * within about a minute. Also the region check that region hints pass.
 */
#include "t.h"

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "cfg/config.h"
#include "http/http.h"

/* A config file of 'text' in a temp dir; its path in 'path'. */
static void config_file(char *path, size_t n, const char *text)
{
    FILE *f;
    int fd;

    snprintf(path, n, "/tmp/s3c-unit-timeouts.XXXXXX");
    fd = mkstemp(path);
    CHECK(fd >= 0);
    f = fdopen(fd, "w");
    CHECK(f != NULL);
    fputs(text, f);
    fclose(f);
}

TEST(timeouts_default_end_a_trickle_within_a_minute)
{
    struct s3c_config c = S3C_CONFIG_INIT;
    struct s3c_error e = S3C_ERROR_INIT;

    CHECK_INT(cfg_load(&c, NULL, NULL, &e), S3C_OK);
    /* Nothing configured: the HTTP loop's defaults apply. */
    CHECK(!c.read_timeout_s.set && !c.connect_timeout_s.set);
    CHECK_INT(HTTP_READ_TIMEOUT_MS, 60000);     /* the AWS CLI's read timeout */
    CHECK_INT(HTTP_CONNECT_TIMEOUT_MS, 10000);
    /* A reply at 1 byte a second moves 60 bytes in a 60 s window, under the
     * floor's 60 x HTTP_LOW_SPEED_BYTES_S: cut off at the window's end. */
    CHECK(1 * (HTTP_READ_TIMEOUT_MS / 1000) < HTTP_LOW_SPEED_BYTES_S * (HTTP_READ_TIMEOUT_MS / 1000));
    CHECK(HTTP_LOW_SPEED_BYTES_S > 1 && HTTP_LOW_SPEED_BYTES_S <= 1024);
    cfg_release(&c);
}

TEST(timeouts_flags_and_profile_keys)
{
    struct s3c_config c = S3C_CONFIG_INIT;
    struct s3c_error e = S3C_ERROR_INIT;
    struct cfg_flags f = CFG_FLAGS_INIT;
    char path[64], var[128];
    char *env[2] = { var, NULL };

    f.read_timeout = "5";
    f.connect_timeout = "0";
    CHECK_INT(cfg_load(&c, &f, NULL, &e), S3C_OK);
    CHECK(c.read_timeout_s.set && c.read_timeout_s.value == 5);
    CHECK(c.connect_timeout_s.set && c.connect_timeout_s.value == 0); /* 0: no timeout */

    config_file(path, sizeof(path), "[default]\ncli_read_timeout = 7\ncli_connect_timeout = 3\n");
    snprintf(var, sizeof(var), "AWS_CONFIG_FILE=%s", path);
    CHECK_INT(cfg_load(&c, NULL, env, &e), S3C_OK);
    CHECK(c.read_timeout_s.set && c.read_timeout_s.value == 7);
    CHECK(c.connect_timeout_s.set && c.connect_timeout_s.value == 3);
    /* The flag wins over the profile. */
    f.read_timeout = "2";
    f.connect_timeout = NULL;
    CHECK_INT(cfg_load(&c, &f, env, &e), S3C_OK);
    CHECK_INT(c.read_timeout_s.value, 2);
    CHECK_INT(c.connect_timeout_s.value, 3);
    unlink(path);

    /* A bad flag is a bad command line; a bad file a bad configuration. */
    f.read_timeout = "soon";
    CHECK_INT(cfg_load(&c, &f, NULL, &e), S3C_EUSAGE);
    CHECK_STR(e.msg, "--cli-read-timeout: \"soon\" is not a number of seconds (0: no timeout)");
    f.read_timeout = "-1";
    CHECK_INT(cfg_load(&c, &f, NULL, &e), S3C_EUSAGE);
    config_file(path, sizeof(path), "[default]\ncli_connect_timeout = 1.5\n");
    snprintf(var, sizeof(var), "AWS_CONFIG_FILE=%s", path);
    f.read_timeout = NULL;
    CHECK_INT(cfg_load(&c, &f, env, &e), S3C_ECONFIG);
    CHECK(strstr(e.msg, "cli_connect_timeout: \"1.5\" is not a number of seconds") != NULL);
    unlink(path);
    cfg_release(&c);
}

TEST(timeouts_region_hints_are_checked_as_region)
{
    CHECK(cfg_region_ok("us-west-2"));
    CHECK(cfg_region_ok("eu-central-1"));
    CHECK(!cfg_region_ok("evil.example/x?y"));
    CHECK(!cfg_region_ok(""));
    CHECK(!cfg_region_ok("us-east-1\r\nHost: x"));
    CHECK(!cfg_region_ok("-lead"));
}
