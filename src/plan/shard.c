#include "plan/shard.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

uint64_t shard_hash(struct sv key)
{
    return str_fnv1a(STR_FNV1A_BASIS, key.p, key.n);
}

bool shard_owns(const struct shard *s, struct sv rel)
{
    if (!s || s->n <= 1)
        return true;
    return shard_hash(rel) % s->n == s->k;
}

/* A whole number from 'lo' to 'hi'; false otherwise (empty, sign, junk, range). */
static bool whole(const char *v, uint64_t lo, uint64_t hi, uint64_t *out)
{
    char *end;
    unsigned long long n;

    if (!v || *v < '0' || *v > '9')
        return false;
    errno = 0;
    n = strtoull(v, &end, 10);
    if (errno || *end || n < lo || n > hi)
        return false;
    *out = n;
    return true;
}

static const char *env_get(char **envp, const char *name)
{
    size_t n = strlen(name);

    for (; envp && *envp; envp++)
        if (!strncmp(*envp, name, n) && (*envp)[n] == '=')
            return *envp + n + 1;
    return NULL;
}

static enum s3c_err from_slurm(char **envp, struct shard *out, struct s3c_error *e)
{
    const char *id = env_get(envp, "SLURM_ARRAY_TASK_ID"), *min = env_get(envp, "SLURM_ARRAY_TASK_MIN");
    const char *count = env_get(envp, "SLURM_ARRAY_TASK_COUNT"), *step = env_get(envp, "SLURM_ARRAY_TASK_STEP");
    uint64_t i, m, n, st = 1;

    if (!whole(id, 0, UINT32_MAX, &i) || !whole(min, 0, UINT32_MAX, &m) || !whole(count, 1, SHARD_MAX, &n) ||
        (step && !whole(step, 1, UINT32_MAX, &st)) || i < m || (i - m) % st || (i - m) / st >= n)
        return s3c_fail(e, S3C_EUSAGE,
                        "--shard auto: this Slurm array task's SLURM_ARRAY_TASK_ID=%s, _MIN=%s, _STEP=%s, "
                        "_COUNT=%s give no shard (an array of evenly spaced ids is needed)",
                        id ? id : "", min ? min : "", step ? step : "", count ? count : "");
    out->k = (uint32_t)((i - m) / st);
    out->n = (uint32_t)n;
    return S3C_OK;
}

static enum s3c_err from_index(char **envp, const char *index_var, struct shard *out, struct s3c_error *e)
{
    const char *k = env_get(envp, index_var), *n = env_get(envp, "S3C_SHARD_COUNT");
    uint64_t kv, nv;

    if (!n)
        return s3c_fail(e, S3C_EUSAGE, "--shard auto: %s=%s is set but S3C_SHARD_COUNT (how many shards) is not",
                        index_var, k);
    if (!whole(n, 1, SHARD_MAX, &nv) || !whole(k, 0, nv - 1, &kv))
        return s3c_fail(e, S3C_EUSAGE, "--shard auto: %s=%s and S3C_SHARD_COUNT=%s give no shard (want 0 <= index < count)",
                        index_var, k, n);
    out->k = (uint32_t)kv;
    out->n = (uint32_t)nv;
    return S3C_OK;
}

enum s3c_err shard_parse(const char *spec, char **envp, struct shard *out, struct s3c_error *e)
{
    const char *slash;
    char num[16];
    uint64_t k, n;

    *out = (struct shard)SHARD_NONE;
    if (!spec)
        return S3C_OK;
    if (!strcmp(spec, "auto")) {
        if (env_get(envp, "SLURM_ARRAY_TASK_ID"))
            return from_slurm(envp, out, e);
        if (env_get(envp, "JOB_COMPLETION_INDEX"))
            return from_index(envp, "JOB_COMPLETION_INDEX", out, e);
        if (env_get(envp, "S3C_SHARD_INDEX"))
            return from_index(envp, "S3C_SHARD_INDEX", out, e);
        return s3c_fail(e, S3C_EUSAGE,
                        "--shard auto: no shard in the environment: neither a Slurm job array "
                        "(SLURM_ARRAY_TASK_ID, _MIN, _COUNT), nor a Kubernetes Indexed Job "
                        "(JOB_COMPLETION_INDEX with S3C_SHARD_COUNT), nor S3C_SHARD_INDEX with S3C_SHARD_COUNT");
    }
    slash = strchr(spec, '/');
    if (slash && (size_t)(slash - spec) < sizeof(num)) {
        memcpy(num, spec, (size_t)(slash - spec));
        num[slash - spec] = '\0';
        if (whole(slash + 1, 1, SHARD_MAX, &n) && whole(num, 0, n - 1, &k)) {
            out->k = (uint32_t)k;
            out->n = (uint32_t)n;
            return S3C_OK;
        }
    }
    return s3c_fail(e, S3C_EUSAGE, "--shard must be K/N with 0 <= K < N <= %u, or auto, not \"%s\"", SHARD_MAX, spec);
}
