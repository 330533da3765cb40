/*
 * config.c: resolve struct s3c_config from flags, an injected environment
 * and the two shared files. The order of the steps in cfg_load() is the
 * precedence table in config.h; each step reads one setting from its
 * sources, strongest first, and validates what it takes.
 */
#include "cfg/config.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/buf.h"
#include "cfg/ini.h"

#define PATH_MAX_BYTES 4096
#define PROFILE_MAX_BYTES 256

/* Everything cfg_load() consults, so helpers take one pointer. */
struct cfg_ctx {
    const struct cfg_flags *flags;
    char *const *envp;
    struct s3c_config *out;
    struct s3c_error *e;
    const struct ini_section *cfg_sec;      /* the profile's section in each, or NULL */
    const struct ini_section *cred_sec;
};

#define CFG_CTX_INIT { NULL, NULL, NULL, NULL, NULL, NULL }

/* Where a value came from, for error messages. */
struct origin {
    char text[PATH_MAX_BYTES + PROFILE_MAX_BYTES + 64];
};

/* ---- small parsers (exported for tests and the CLI) ---- */

static bool mul_ok(uint64_t a, uint64_t b, uint64_t *out)
{
    if (b && a > UINT64_MAX / b)
        return false;
    *out = a * b;
    return true;
}

bool cfg_parse_size(struct sv s, uint64_t *out_bytes)
{
    static const struct {
        const char *suffix;
        unsigned shift;
    } suffixes[] = {
        { "kib", 10 }, { "mib", 20 }, { "gib", 30 }, { "tib", 40 },
        { "kb", 10 },  { "mb", 20 },  { "gb", 30 },  { "tb", 40 },
    };
    size_t i;

    s = sv_trim(s);
    for (i = 0; i < sizeof(suffixes) / sizeof(suffixes[0]); i++) {
        size_t n = strlen(suffixes[i].suffix);
        uint64_t v;

        if (s.n > n && sv_ieqs((struct sv){ s.p + s.n - n, n }, suffixes[i].suffix)) {
            struct sv num = sv_trim((struct sv){ s.p, s.n - n });
            return sv_to_u64(num, &v) && mul_ok(v, (uint64_t)1 << suffixes[i].shift, out_bytes);
        }
    }
    return sv_to_u64(s, out_bytes);
}

bool cfg_parse_rate(struct sv s, uint64_t *out_bytes_per_s)
{
    uint64_t v;

    s = sv_trim(s);
    if (s.n > 3 && sv_eqs((struct sv){ s.p + s.n - 3, 3 }, "B/s")) {
        /* "1024B/s" is plain bytes; "10MB/s" is the size "10MB" a second. */
        struct sv num = { s.p, s.n - 3 };
        if (sv_to_u64(sv_trim(num), out_bytes_per_s))
            return true;
        return cfg_parse_size((struct sv){ s.p, s.n - 2 }, out_bytes_per_s);
    }
    if (s.n > 3 && sv_eqs((struct sv){ s.p + s.n - 3, 3 }, "b/s")) {
        struct sv num = { s.p, s.n - 3 };
        if (!sv_to_u64(sv_trim(num), &v) && !cfg_parse_size((struct sv){ s.p, s.n - 2 }, &v))
            return false;
        *out_bytes_per_s = v / 8;
        return true;
    }
    return sv_to_u64(s, out_bytes_per_s);
}

bool cfg_parse_bool(struct sv s, bool *out)
{
    s = sv_trim(s);
    if (sv_ieqs(s, "true")) {
        *out = true;
        return true;
    }
    if (sv_ieqs(s, "false")) {
        *out = false;
        return true;
    }
    return false;
}

/* ---- sources ---- */

const char *cfg_env_get(char *const *envp, const char *name)
{
    size_t n = strlen(name);

    for (; envp && *envp; envp++)
        if (strncmp(*envp, name, n) == 0 && (*envp)[n] == '=')
            return (*envp)[n + 1] ? *envp + n + 1 : NULL;
    return NULL;
}

static void origin_env(struct origin *o, const char *var)
{
    snprintf(o->text, sizeof(o->text), "environment variable %s", var);
}

static void origin_flag(struct origin *o, const char *flag)
{
    snprintf(o->text, sizeof(o->text), "%s", flag);
}

static void origin_file(struct origin *o, const struct cfg_ctx *x, bool in_creds)
{
    snprintf(o->text, sizeof(o->text), "%s file %s, profile \"%s\"",
             in_creds ? "credentials" : "config",
             in_creds ? x->out->credentials_file : x->out->config_file, x->out->profile);
}

/*
 * The profile's entry for 'key': the credentials file's section first,
 * then the config file's, as botocore's merged profile map has it.
 */
static const struct ini_entry *prof_get(const struct cfg_ctx *x, const char *key,
                                        struct origin *o)
{
    const struct ini_entry *en = ini_get(&x->out->credentials_ini, x->cred_sec, key);
    bool in_creds = en != NULL;

    if (!en)
        en = ini_get(&x->out->config_ini, x->cfg_sec, key);
    if (en && o)
        origin_file(o, x, in_creds);
    return en;
}

/* One clear line: "WHERE: KEY: \"VALUE\" PROBLEM". 'key' may be NULL. */
static enum s3c_err bad(struct cfg_ctx *x, const struct origin *o, const char *key,
                        const char *value, const char *problem)
{
    return s3c_fail(x->e, S3C_ECONFIG, "%s: %s%s\"%.200s\" %s", o->text, key ? key : "",
                    key ? ": " : "", value, problem);
}

static enum s3c_err set_str(struct cfg_ctx *x, char **dst, const char *value)
{
    free(*dst);
    *dst = strdup(value);
    if (!*dst)
        return s3c_fail(x->e, S3C_ENOMEM, "configuration: out of memory");
    return S3C_OK;
}

/* A value as a C string and its origin, from the strongest source that has it. */
struct pick {
    const char *value;      /* NULL: nowhere */
    struct origin where;
    const char *key;        /* key name for messages, NULL for flags and env */
};

/* Environment variable 'var' (may be NULL), else profile key 'key' (may be NULL). */
static void pick_env_prof(const struct cfg_ctx *x, const char *var, const char *key,
                          struct pick *p)
{
    const struct ini_entry *en;

    p->value = NULL;
    p->key = NULL;
    if (var && (p->value = cfg_env_get(x->envp, var))) {
        origin_env(&p->where, var);
        return;
    }
    if (key && (en = prof_get(x, key, &p->where))) {
        p->value = en->value;
        p->key = key;
    }
}

static enum s3c_err take_positive(struct cfg_ctx *x, const struct pick *p, struct cfg_u64 *dst)
{
    uint64_t v;

    if (!p->value)
        return S3C_OK;
    if (!sv_to_u64(sv_trim(sv_from(p->value)), &v) || v == 0)
        return bad(x, &p->where, p->key, p->value, "is not a positive integer");
    dst->value = v;
    dst->set = true;
    return S3C_OK;
}

/* A timeout: the flag's value, else the profile's 'key'. Whole seconds, 0 for
 * none (as the AWS CLI); at most a year. */
static enum s3c_err take_seconds(struct cfg_ctx *x, const char *flag_value, const char *flag, const char *key,
                                 struct cfg_u64 *dst)
{
    struct pick p = { NULL, { "" }, NULL };
    uint64_t v;

    if (flag_value) {
        p.value = flag_value;
        origin_flag(&p.where, flag);
    } else {
        pick_env_prof(x, NULL, key, &p);
    }
    if (!p.value)
        return S3C_OK;
    if (!sv_to_u64(sv_trim(sv_from(p.value)), &v) || v > 365u * 86400) {
        bad(x, &p.where, p.key, p.value, "is not a number of seconds (0: no timeout)");
        /* A bad flag is a bad command line (252), a bad file a bad configuration (253). */
        if (flag_value && x->e)
            x->e->code = S3C_EUSAGE;
        return flag_value ? S3C_EUSAGE : S3C_ECONFIG;
    }
    dst->value = v;
    dst->set = true;
    return S3C_OK;
}

/* ---- the steps ---- */

/*
 * The path of a shared file: the variable's value, else ~/.aws/NAME under
 * HOME. 'display' is what messages show: the path as given, or "~/.aws/NAME".
 * Without HOME there is no default file (tests never read the real one).
 */
static enum s3c_err file_path(struct cfg_ctx *x, const char *var, const char *name,
                              char **display, struct buf *path)
{
    /* s5cmd's --credentials-file beats the variable, as a flag does. */
    const char *flag = !strcmp(var, "AWS_SHARED_CREDENTIALS_FILE") ? x->flags->credentials_file : NULL;
    const char *given = flag && flag[0] ? flag : cfg_env_get(x->envp, var);
    const char *home = cfg_env_get(x->envp, "HOME");
    char dflt[64];
    enum s3c_err rc;

    snprintf(dflt, sizeof(dflt), "~/.aws/%s", name);
    if ((rc = set_str(x, display, given ? given : dflt)))
        return rc;
    if (!given)
        given = dflt;
    if (given[0] == '~' && (given[1] == '/' || given[1] == '\0')) {
        if (!home)
            return S3C_OK;                  /* path stays empty: no file */
        if (buf_adds(path, home) || buf_adds(path, given + 1))
            goto toolong;
        return S3C_OK;
    }
    if (buf_adds(path, given))
        goto toolong;
    return S3C_OK;
toolong:
    return s3c_fail(x->e, S3C_ECONFIG, "%s %.200s: path too long", var, *display);
}

static enum s3c_err load_file(struct cfg_ctx *x, struct ini *ini, const char *var,
                              const char *name, const char *kind, char **display)
{
    struct buf path = BUF_INIT(PATH_MAX_BYTES);
    char label[PATH_MAX_BYTES + 32];
    bool found = false;
    enum s3c_err rc;

    rc = file_path(x, var, name, display, &path);
    if (rc || path.len == 0)
        goto out;
    snprintf(label, sizeof(label), "%s file %s", kind, *display);
    rc = ini_load_file(ini, buf_cstr(&path), label, &found, x->e);
    if (rc == S3C_EPARSE) {
        rc = S3C_ECONFIG;                   /* a broken file is a configuration error */
        if (x->e)
            x->e->code = rc;
    }
out:
    buf_release(&path);
    return rc;
}

/* The config file's section for the profile: [default] or [profile NAME], last wins. */
static const struct ini_section *config_profile_section(const struct ini *ini, const char *profile)
{
    const struct ini_section *found = NULL;
    char name[PROFILE_MAX_BYTES];
    size_t i;

    for (i = 0; i < ini->n_sections; i++) {
        const struct ini_section *s = &ini->sections[i];
        if (s == ini->defaults)
            continue;
        if ((strcmp(profile, "default") == 0 && strcmp(s->name, "default") == 0) ||
            (ini_kind_name(s->name, "profile", name, sizeof(name)) && strcmp(name, profile) == 0))
            found = s;
    }
    return found;
}

static enum s3c_err resolve_profile(struct cfg_ctx *x)
{
    const char *name = NULL;
    enum s3c_err rc;

    if (x->flags->profile && x->flags->profile[0])
        name = x->flags->profile;
    else if (!(name = cfg_env_get(x->envp, "AWS_DEFAULT_PROFILE")))
        name = cfg_env_get(x->envp, "AWS_PROFILE");
    x->out->profile_explicit = name != NULL;
    x->out->profile_flag = x->flags->profile && x->flags->profile[0];
    if (!name)
        name = "default";
    if (strlen(name) >= PROFILE_MAX_BYTES)
        return s3c_fail(x->e, S3C_ECONFIG, "profile name longer than %d bytes",
                        PROFILE_MAX_BYTES - 1);
    if ((rc = set_str(x, &x->out->profile, name)))
        return rc;

    if ((rc = load_file(x, &x->out->config_ini, "AWS_CONFIG_FILE", "config", "config",
                        &x->out->config_file)))
        return rc;
    if ((rc = load_file(x, &x->out->credentials_ini, "AWS_SHARED_CREDENTIALS_FILE", "credentials",
                        "credentials", &x->out->credentials_file)))
        return rc;
    x->cfg_sec = config_profile_section(&x->out->config_ini, name);
    x->cred_sec = ini_section_find(&x->out->credentials_ini, name);
    x->out->profile_found = x->cfg_sec || x->cred_sec;
    if (x->out->profile_explicit && !x->out->profile_found)
        return s3c_fail(x->e, S3C_ECONFIG, "The config profile (%s) could not be found", name);
    return S3C_OK;
}

/* A region must be a DNS label: it becomes part of a host name. */
bool cfg_region_ok(const char *r)
{
    size_t i, n = strlen(r);

    if (n == 0 || n > 63 || r[0] == '-')
        return false;
    for (i = 0; i < n; i++) {
        char c = r[i];
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
              c == '-'))
            return false;
    }
    return true;
}

static enum s3c_err resolve_region(struct cfg_ctx *x)
{
    struct pick p = { NULL, { "" }, NULL };

    if (x->flags->region && x->flags->region[0]) {
        p.value = x->flags->region;
        origin_flag(&p.where, "--region");
    } else {
        pick_env_prof(x, "AWS_REGION", NULL, &p);
        if (!p.value)
            pick_env_prof(x, "AWS_DEFAULT_REGION", "region", &p);
    }
    if (p.value && !p.value[0])
        p.value = NULL;                     /* "region =" in a file: not set */
    x->out->region_set = p.value != NULL;
    if (!p.value)
        return set_str(x, &x->out->region, CFG_DEFAULT_REGION);
    if (!cfg_region_ok(p.value))
        return bad(x, &p.where, p.key, p.value, "is not a valid region name");
    return set_str(x, &x->out->region, p.value);
}

static enum s3c_err resolve_misc(struct cfg_ctx *x)
{
    struct pick p = { NULL, { "" }, NULL };
    enum s3c_err rc;

    if (x->flags->ca_bundle && x->flags->ca_bundle[0]) {
        if ((rc = set_str(x, &x->out->ca_bundle, x->flags->ca_bundle)))
            return rc;
    } else {
        pick_env_prof(x, "AWS_CA_BUNDLE", "ca_bundle", &p);
        if (p.value && p.value[0] && (rc = set_str(x, &x->out->ca_bundle, p.value)))
            return rc;
    }

    if ((rc = take_seconds(x, x->flags->read_timeout, "--cli-read-timeout", "cli_read_timeout",
                           &x->out->read_timeout_s)) ||
        (rc = take_seconds(x, x->flags->connect_timeout, "--cli-connect-timeout", "cli_connect_timeout",
                           &x->out->connect_timeout_s)))
        return rc;

    pick_env_prof(x, "AWS_MAX_ATTEMPTS", "max_attempts", &p);
    if ((rc = take_positive(x, &p, &x->out->max_attempts)))
        return rc;
    if (x->flags->retry_count) {
        /* s5cmd's --retry-count counts the tries after the first (the CLI checked it is 0..1000). */
        x->out->max_attempts.value = strtoull(x->flags->retry_count, NULL, 10) + 1;
        x->out->max_attempts.set = true;
    }

    pick_env_prof(x, "AWS_RETRY_MODE", "retry_mode", &p);
    if (p.value) {
        struct sv v = sv_trim(sv_from(p.value));
        if (sv_eqs(v, "standard"))
            x->out->retry_mode = CFG_RETRY_STANDARD;
        else if (sv_eqs(v, "legacy"))
            x->out->retry_mode = CFG_RETRY_LEGACY;
        else if (sv_eqs(v, "adaptive"))
            x->out->retry_mode = CFG_RETRY_ADAPTIVE;
        else
            return bad(x, &p.where, p.key, p.value,
                       "is not a retry mode (standard, legacy or adaptive)");
        x->out->retry_mode_set = true;
        /* Without max_attempts, the mode's own count, as botocore's: 3 tries
         * in standard and adaptive, 5 in legacy. With neither key, s3c's 5. */
        if (!x->out->max_attempts.set)
            x->out->max_attempts.value = x->out->retry_mode == CFG_RETRY_LEGACY ? 5 : 3;
    }

    {
        static const struct {
            const char *var, *key;
            size_t field;       /* which of the two settings */
        } when[] = {
            { "AWS_REQUEST_CHECKSUM_CALCULATION", "request_checksum_calculation", 0 },
            { "AWS_RESPONSE_CHECKSUM_VALIDATION", "response_checksum_validation", 1 },
        };
        size_t i;

        for (i = 0; i < 2; i++) {
            enum cfg_checksum_when *dst = when[i].field ? &x->out->response_checksum_validation
                                                        : &x->out->request_checksum_calculation;
            bool *set = when[i].field ? &x->out->response_checksum_validation_set
                                      : &x->out->request_checksum_calculation_set;
            struct sv v;

            pick_env_prof(x, when[i].var, when[i].key, &p);
            if (!p.value)
                continue;
            v = sv_trim(sv_from(p.value));
            if (sv_ieqs(v, "when_supported"))
                *dst = CFG_WHEN_SUPPORTED;
            else if (sv_ieqs(v, "when_required"))
                *dst = CFG_WHEN_REQUIRED;
            else
                return bad(x, &p.where, p.key, p.value,
                           "is not when_supported or when_required");
            *set = true;
        }
    }
    return S3C_OK;
}

/* The profile's `s3 =` sub-section. */
static enum s3c_err resolve_s3(struct cfg_ctx *x)
{
    struct cfg_s3 *s3 = &x->out->s3;
    struct origin where;
    const struct ini_entry *en = prof_get(x, "s3", &where);
    const struct ini_pair *kv;
    struct pick p = { NULL, { "" }, NULL };
    size_t i;

    static const struct {
        const char *key;
        size_t offset;
        int kind;           /* 0 positive integer, 1 size, 2 rate */
    } nums[] = {
        { "max_concurrent_requests", offsetof(struct cfg_s3, max_concurrent_requests), 0 },
        { "multipart_threshold", offsetof(struct cfg_s3, multipart_threshold), 1 },
        { "multipart_chunksize", offsetof(struct cfg_s3, multipart_chunksize), 1 },
        { "max_bandwidth", offsetof(struct cfg_s3, max_bandwidth), 2 },
    };
    static const struct {
        const char *key;
        size_t offset;
    } bools[] = {
        { "payload_signing_enabled", offsetof(struct cfg_s3, payload_signing_enabled) },
        { "use_accelerate_endpoint", offsetof(struct cfg_s3, use_accelerate_endpoint) },
        { "use_dualstack_endpoint", offsetof(struct cfg_s3, use_dualstack_endpoint) },
    };

    if (en && !en->nested && en->value[0])
        return s3c_fail(x->e, S3C_ECONFIG,
                        "%s: s3: \"%.100s\" is not a sub-section (write \"s3 =\" and then "
                        "indented \"key = value\" lines)",
                        where.text, en->value);

    for (i = 0; en && i < sizeof(nums) / sizeof(nums[0]); i++) {
        struct cfg_u64 *dst = (struct cfg_u64 *)((char *)s3 + nums[i].offset);
        char key[64];
        uint64_t v = 0;
        bool ok;

        if (!(kv = ini_sub_get(en, nums[i].key)))
            continue;
        snprintf(key, sizeof(key), "s3.%s", nums[i].key);
        ok = nums[i].kind == 0   ? sv_to_u64(sv_trim(sv_from(kv->value)), &v)
             : nums[i].kind == 1 ? cfg_parse_size(sv_from(kv->value), &v)
                                 : cfg_parse_rate(sv_from(kv->value), &v);
        if (!ok)
            return bad(x, &where, key, kv->value,
                       nums[i].kind == 0   ? "is not a positive integer"
                       : nums[i].kind == 1 ? "is not a size"
                                           : "is not a rate (bytes per second, e.g. 50MB/s)");
        if (v == 0)
            return bad(x, &where, key, kv->value, "must be greater than zero");
        dst->value = v;
        dst->set = true;
    }

    if (en && (kv = ini_sub_get(en, "addressing_style"))) {
        struct sv v = sv_trim(sv_from(kv->value));
        if (sv_eqs(v, "auto"))
            s3->addressing_style = CFG_ADDRESSING_AUTO;
        else if (sv_eqs(v, "path"))
            s3->addressing_style = CFG_ADDRESSING_PATH;
        else if (sv_eqs(v, "virtual"))
            s3->addressing_style = CFG_ADDRESSING_VIRTUAL;
        else
            return bad(x, &where, "s3.addressing_style", kv->value,
                       "is not auto, path or virtual");
        s3->addressing_style_set = true;
    }

    for (i = 0; en && i < sizeof(bools) / sizeof(bools[0]); i++) {
        struct cfg_bool *dst = (struct cfg_bool *)((char *)s3 + bools[i].offset);
        char key[64];

        if (!(kv = ini_sub_get(en, bools[i].key)))
            continue;
        snprintf(key, sizeof(key), "s3.%s", bools[i].key);
        if (!cfg_parse_bool(sv_from(kv->value), &dst->value))
            return bad(x, &where, key, kv->value, "is not true or false");
        dst->set = true;
    }

    /* Dual-stack also has a profile-wide key and variable (botocore: s3 section first). */
    if (!s3->use_dualstack_endpoint.set) {
        pick_env_prof(x, "AWS_USE_DUALSTACK_ENDPOINT", "use_dualstack_endpoint", &p);
        if (p.value) {
            if (!cfg_parse_bool(sv_from(p.value), &s3->use_dualstack_endpoint.value))
                return bad(x, &p.where, p.key, p.value, "is not true or false");
            s3->use_dualstack_endpoint.set = true;
        }
    }
    /* S3 Express: a profile-wide key and its variable, as botocore reads them. */
    pick_env_prof(x, "AWS_S3_DISABLE_EXPRESS_SESSION_AUTH", "s3_disable_express_session_auth", &p);
    if (p.value) {
        if (!cfg_parse_bool(sv_from(p.value), &x->out->s3_disable_express_session_auth.value))
            return bad(x, &p.where, p.key, p.value, "is not true or false");
        x->out->s3_disable_express_session_auth.set = true;
    }
    return S3C_OK;
}

/* Enough of a URL check to name the source of a typo; s3/endpoint parses fully. */
static bool url_ok(const char *u)
{
    size_t skip;

    if (strncasecmp(u, "http://", 7) == 0)
        skip = 7;
    else if (strncasecmp(u, "https://", 8) == 0)
        skip = 8;
    else
        return false;
    return u[skip] && u[skip] != '/' && u[skip] != ':' && !strpbrk(u, " \t\r\n");
}

static enum s3c_err resolve_endpoint(struct cfg_ctx *x)
{
    struct pick p = { NULL, { "" }, NULL };
    const struct ini_entry *en;
    bool ignore = false;
    enum s3c_err rc;

    if (x->flags->endpoint_url && x->flags->endpoint_url[0]) {
        p.value = x->flags->endpoint_url;
        origin_flag(&p.where, "--endpoint-url");
        goto check;
    }

    pick_env_prof(x, "AWS_IGNORE_CONFIGURED_ENDPOINT_URLS", "ignore_configured_endpoint_urls", &p);
    if (p.value && !cfg_parse_bool(sv_from(p.value), &ignore))
        return bad(x, &p.where, p.key, p.value, "is not true or false");
    p.value = NULL;
    if (ignore)
        return S3C_OK;

    pick_env_prof(x, "AWS_ENDPOINT_URL_S3", NULL, &p);
    if (!p.value)
        pick_env_prof(x, "AWS_ENDPOINT_URL", NULL, &p);
    if (p.value)
        goto check;

    /* services = NAME points at a [services NAME] section of the config file. */
    if ((en = prof_get(x, "services", &p.where)) && en->value[0]) {
        const struct ini_section *svc = NULL;
        char name[PROFILE_MAX_BYTES];
        const struct ini_pair *kv;
        size_t i;

        for (i = 0; i < x->out->config_ini.n_sections; i++) {
            const struct ini_section *s = &x->out->config_ini.sections[i];
            if (s != x->out->config_ini.defaults &&
                ini_kind_name(s->name, "services", name, sizeof(name)) &&
                strcmp(name, en->value) == 0)
                svc = s;
        }
        if (!svc)
            return s3c_fail(x->e, S3C_ECONFIG,
                            "%s: The profile is configured to use the services section but the "
                            "\"%.100s\" services configuration does not exist.",
                            p.where.text, en->value);
        if ((kv = ini_sub_get(ini_get(&x->out->config_ini, svc, "s3"), "endpoint_url")) &&
            kv->value[0]) {
            p.value = kv->value;
            p.key = "s3.endpoint_url";
            snprintf(p.where.text, sizeof(p.where.text), "config file %s, services \"%s\"",
                     x->out->config_file, en->value);
            goto check;
        }
    }

    /* s3c extension: endpoint_url in the profile's own s3 sub-section. */
    {
        const struct ini_pair *kv = ini_sub_get(prof_get(x, "s3", &p.where), "endpoint_url");
        if (kv && kv->value[0]) {
            p.value = kv->value;
            p.key = "s3.endpoint_url";
            goto check;
        }
    }

    if ((en = prof_get(x, "endpoint_url", &p.where)) && en->value[0]) {
        p.value = en->value;
        p.key = "endpoint_url";
        goto check;
    }
    return S3C_OK;

check:
    if (!url_ok(p.value))
        return bad(x, &p.where, p.key, p.value, "is not an http:// or https:// URL");
    rc = set_str(x, &x->out->endpoint_url, p.value);
    return rc;
}

/* ---- entry points ---- */

static void set_defaults(struct s3c_config *c)
{
    c->verify_ssl = true;
    c->s3.max_concurrent_requests.value = CFG_DEFAULT_MAX_CONCURRENT_REQUESTS;
    c->s3.multipart_threshold.value = CFG_DEFAULT_MULTIPART_THRESHOLD;
    c->s3.multipart_chunksize.value = CFG_DEFAULT_MULTIPART_CHUNKSIZE;
    c->max_attempts.value = CFG_DEFAULT_MAX_ATTEMPTS;
}

enum s3c_err cfg_load(struct s3c_config *out, const struct cfg_flags *flags, char *const *envp,
                      struct s3c_error *e)
{
    static const struct cfg_flags no_flags = CFG_FLAGS_INIT;
    struct cfg_ctx x = CFG_CTX_INIT;
    enum s3c_err rc;

    cfg_release(out);
    set_defaults(out);
    x.flags = flags ? flags : &no_flags;
    x.envp = envp;
    x.out = out;
    x.e = e;
    out->no_sign_request = x.flags->no_sign_request;
    out->verify_ssl = !x.flags->no_verify_ssl;
    out->debug = x.flags->debug;

    /* No credentials here: auth/creds.h resolves them from this struct. */
    if ((rc = resolve_profile(&x)) || (rc = resolve_region(&x)) || (rc = resolve_misc(&x)) ||
        (rc = resolve_s3(&x)) || (rc = resolve_endpoint(&x)))
        goto out;
out:
    if (rc)
        cfg_release(out);
    return rc;
}

const struct ini_section *cfg_config_profile(const struct s3c_config *c, const char *name)
{
    return config_profile_section(&c->config_ini, name);
}

const struct ini_section *cfg_credentials_profile(const struct s3c_config *c, const char *name)
{
    return ini_section_find(&c->credentials_ini, name);
}

bool cfg_profile_exists(const struct s3c_config *c, const char *name)
{
    return cfg_config_profile(c, name) || cfg_credentials_profile(c, name);
}

const struct ini_entry *cfg_profile_get(const struct s3c_config *c, const char *name,
                                        const char *key, bool *in_credentials)
{
    const struct ini_section *s = cfg_credentials_profile(c, name);
    const struct ini_entry *en = s ? ini_get(&c->credentials_ini, s, key) : NULL;

    if (in_credentials)
        *in_credentials = en != NULL;
    if (!en && (s = cfg_config_profile(c, name)))
        en = ini_get(&c->config_ini, s, key);
    return en;
}

const struct ini_section *cfg_kind_section(const struct s3c_config *c, const char *kind,
                                           const char *name)
{
    const struct ini_section *found = NULL;
    char got[PROFILE_MAX_BYTES];
    size_t i;

    for (i = 0; i < c->config_ini.n_sections; i++) {
        const struct ini_section *s = &c->config_ini.sections[i];
        if (s != c->config_ini.defaults && ini_kind_name(s->name, kind, got, sizeof(got)) &&
            strcmp(got, name) == 0)
            found = s;
    }
    return found;
}

void cfg_release(struct s3c_config *c)
{
    static const struct s3c_config init = S3C_CONFIG_INIT;

    free(c->profile);
    free(c->config_file);
    free(c->credentials_file);
    free(c->region);
    free(c->endpoint_url);
    free(c->ca_bundle);
    ini_release(&c->config_ini);
    ini_release(&c->credentials_ini);
    *c = init;
}
