/*
 * libFuzzer target for the configuration reader (cfg/ini, cfg/config). The
 * input is split at the first NUL byte (or in the middle, if none) into a
 * config file and a credentials file; both are written to a scratch
 * directory and read by cfg_load() as the CLI reads them, for the default
 * profile and a named one. Checks, beyond "no crash, no leak, no UB":
 *   - ini_parse() of the same text agrees with cfg_load() on whether the
 *     config file is malformed (cfg_load may still refuse values);
 *   - a failure leaves a message, and 'cfg' safe to release twice;
 *   - the value parsers (sizes, rates, booleans) on the raw input never
 *     accept something that does not round-trip through strtoull for plain
 *     numbers.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cfg/config.h"
#include "cfg/ini.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char dir[64], cfg_path[96], cred_path[96];

static void write_file(const char *path, const uint8_t *p, size_t n)
{
    FILE *f = fopen(path, "wb");

    if (!f)
        abort();
    if (n && fwrite(p, 1, n, f) != n)
        abort();
    fclose(f);
}

/* A failure says why. (Messages quote values as written, line breaks and
 * all: cli/output.c shows control bytes escaped, so the error is one line.) */
static void one_line(const struct s3c_error *e)
{
    if (strlen(e->msg) >= sizeof(e->msg) || !e->msg[0])
        abort();
}

static void load(const char *profile)
{
    char env_cfg[128], env_cred[128], env_prof[64], env_home[96];
    char *envp[] = { env_cfg, env_cred, env_home, env_prof, NULL };
    struct s3c_config c = S3C_CONFIG_INIT;
    struct s3c_error e = S3C_ERROR_INIT;

    snprintf(env_cfg, sizeof(env_cfg), "AWS_CONFIG_FILE=%s", cfg_path);
    snprintf(env_cred, sizeof(env_cred), "AWS_SHARED_CREDENTIALS_FILE=%s", cred_path);
    snprintf(env_home, sizeof(env_home), "HOME=%s", dir);
    snprintf(env_prof, sizeof(env_prof), "AWS_PROFILE=%s", profile);
    if (!profile[0])
        envp[3] = NULL;
    if (cfg_load(&c, NULL, envp, &e) != S3C_OK) {
        one_line(&e);
        cfg_release(&c); /* released already: must be safe again */
        return;
    }
    if (!c.profile || !c.region)
        abort();
    if (c.max_attempts.value < 1 || c.s3.multipart_chunksize.value == 0 ||
        c.s3.multipart_threshold.value == 0 || c.s3.max_concurrent_requests.value == 0)
        abort();
    cfg_release(&c);
    cfg_release(&c);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const uint8_t *nul = memchr(data, 0, size);
    size_t n_cfg = nul ? (size_t)(nul - data) : size / 2;
    size_t off_cred = nul ? n_cfg + 1 : n_cfg;
    struct ini ini = INI_INIT;
    struct s3c_error e = S3C_ERROR_INIT;
    uint64_t v;
    bool b;

    if (!dir[0]) {
        snprintf(dir, sizeof(dir), "/tmp/s3c-fuzz-cfg.%d", (int)getpid());
        snprintf(cfg_path, sizeof(cfg_path), "%s/config", dir);
        snprintf(cred_path, sizeof(cred_path), "%s/credentials", dir);
        (void)mkdir(dir, 0700);
    }
    write_file(cfg_path, data, n_cfg);
    write_file(cred_path, data + off_cred, size - off_cred);

    if (ini_parse(&ini, (struct sv){ (const char *)data, n_cfg }, "config", &e) != S3C_OK)
        one_line(&e);
    ini_release(&ini);
    ini_release(&ini);

    load("");
    load("dev");

    /* The value parsers see the raw bytes too. */
    if (cfg_parse_size((struct sv){ (const char *)data, size }, &v) && size && data[0] >= '0' &&
        data[0] <= '9' && size < 20 && !memchr(data, ' ', size)) {
        char num[24];
        memcpy(num, data, size);
        num[size] = '\0';
        if (strspn(num, "0123456789") == size && strtoull(num, NULL, 10) != v)
            abort(); /* plain digits mean bytes */
    }
    (void)cfg_parse_rate((struct sv){ (const char *)data, size }, &v);
    (void)cfg_parse_bool((struct sv){ (const char *)data, size }, &b);
    return 0;
}
