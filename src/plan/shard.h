/*
 * shard: which of N cooperating processes does an object. An object
 * belongs to shard FNV-1a-64(rel) mod N, where rel is its key (or path)
 * relative to the source root, as bytes: the same name on every machine and
 * in both directions of a sync, so N processes run with K = 0..N-1 do the
 * whole job, each object exactly once. Pure: the environment is passed in.
 */
#ifndef S3C_PLAN_SHARD_H
#define S3C_PLAN_SHARD_H

#include <stdbool.h>
#include <stdint.h>

#include "base/err.h"
#include "base/str.h"

#define SHARD_MAX 1000000u

struct shard {
    uint32_t k;     /* this process's shard, 0 <= k < n */
    uint32_t n;     /* how many; 0 or 1: no sharding, every object is ours */
};

#define SHARD_NONE { 0, 0 }

/* FNV-1a, 64 bits (offset basis 0xcbf29ce484222325, prime 0x100000001b3) of 'key'. */
uint64_t shard_hash(struct sv key);

/* True when the object named 'rel' belongs to shard 's'. */
bool shard_owns(const struct shard *s, struct sv rel);

/*
 * "K/N" (0 <= K < N <= SHARD_MAX), or "auto": from the environment 'envp'
 * (NULL-terminated "NAME=value" strings), in this order:
 *   Slurm job arrays   K = (SLURM_ARRAY_TASK_ID - SLURM_ARRAY_TASK_MIN) / SLURM_ARRAY_TASK_STEP,
 *                      N = SLURM_ARRAY_TASK_COUNT
 *   Kubernetes         K = JOB_COMPLETION_INDEX (Indexed Jobs), N = S3C_SHARD_COUNT
 *   anything else      K = S3C_SHARD_INDEX, N = S3C_SHARD_COUNT
 * S3C_EUSAGE with a message naming the variables when none is there or a
 * value is wrong.
 */
enum s3c_err shard_parse(const char *spec, char **envp, struct shard *out, struct s3c_error *e);

#endif
