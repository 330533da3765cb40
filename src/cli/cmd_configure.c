/*
 * configure list: the table `aws configure list` prints (Name, Value,
 * Type, Location for profile, access_key, secret_key, region), with the
 * keys masked as the AWS CLI masks them and the credential provider's
 * method as their Type. It resolves credentials exactly as a transfer
 * would, so it shows which provider s3c picked; the differential tests
 * compare it with the AWS CLI's. Only the last 4 characters of each key show.
 */
#include <stdio.h>
#include <string.h>

#include "auth/creds.h"
#include "cli/cmd.h"
#include "cli/output.h"

extern char **environ;

#define NOT_SET "<not set>"

static void row(const char *name, const char *value, const char *type, const char *where)
{
    out_line("%10s %24s %16s    %s", name, value, type, where);
}

/* The CLI's mask_value(): 16 stars and the last 4 characters. */
static void row_masked(const char *name, const char *key, const char *type)
{
    char masked[32];
    size_t n = strlen(key);

    snprintf(masked, sizeof(masked), "****************%s", key + (n > 4 ? n - 4 : 0));
    row(name, masked, type, "");
}

enum s3c_err cmd_configure(struct cli_ctx *c, int argc, char **argv)
{
    struct s3c_error e = S3C_ERROR_INIT;
    struct creds_src *src = NULL;
    struct creds keys = CREDS_INIT;
    const struct ini_entry *reg;
    const char *v;
    enum s3c_err rc;

    if (argc != 1 || strcmp(argv[0], "list") != 0) {
        s3c_fail(&e, S3C_EUSAGE, "usage: s3c configure list [--profile NAME]");
        out_usage_error(&e);
        return S3C_EUSAGE;
    }
    row("Name", "Value", "Type", "Location");
    row("----", "-----", "----", "--------");
    if (c->cfg.profile_flag)
        row("profile", c->cfg.profile, "manual", "--profile");
    else if (c->cfg.profile_explicit)
        row("profile", c->cfg.profile, "env", "['AWS_PROFILE', 'AWS_DEFAULT_PROFILE']");
    else
        row("profile", NOT_SET, "None", "None");

    rc = creds_resolve(&c->cfg, environ, &src, &keys, &e);
    if (rc == S3C_EAUTH && !strcmp(e.msg, CREDS_NO_CREDENTIALS)) {
        row("access_key", NOT_SET, "None", "None");
        row("secret_key", NOT_SET, "None", "None");
        rc = S3C_OK;
    } else if (rc) {
        out_error("configure list", &e);
        return rc;
    } else {
        row_masked("access_key", keys.access_key, keys.method);
        row_masked("secret_key", keys.secret_key, keys.method);
    }

    /* Region as the CLI looks it up: environment, then the profile, then IMDS; not --region. */
    if ((v = cfg_env_get(environ, "AWS_REGION")) || (v = cfg_env_get(environ, "AWS_DEFAULT_REGION")))
        row("region", v, "env", "['AWS_REGION', 'AWS_DEFAULT_REGION']");
    else if ((reg = cfg_profile_get(&c->cfg, c->cfg.profile, "region", NULL)))
        row("region", reg->value, "config-file", c->cfg.config_file);
    else if ((v = creds_src_region(src)))
        row("region", v, "imds", "");
    else
        row("region", NOT_SET, "None", "None");
    creds_release(&keys);
    creds_src_free(src);
    return S3C_OK;
}
