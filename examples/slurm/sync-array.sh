#!/usr/bin/env bash
#SBATCH --job-name=s3c-sync
#SBATCH --array=0-3
#SBATCH --cpus-per-task=1
#SBATCH --output=s3c-sync-%A_%a.out
#
# One `s3c sync` split over a Slurm job array: each array task syncs its own
# shard of SRC to DST (`--shard auto` reads SLURM_ARRAY_TASK_ID, _MIN, _STEP
# and _COUNT), so the tasks together copy (and with --delete, delete) every
# object exactly once, and a task that failed can be run again alone
# (sbatch --array=2 ...) without touching the other shards' objects.
#
#   sbatch --array=0-15 examples/slurm/sync-array.sh s3://src/data/ s3://dst/data/ [sync flags]
#
# The credentials and endpoint come from the usual places (AWS_* variables,
# which sbatch passes on, or ~/.aws on the nodes). S3C names the binary
# (default: s3c on PATH). Each task ends its output with one JSON line
# ({"stat": [...], "skipped": N, "shard": K, "shards": N}); add them up with
#   cat s3c-sync-JOBID_*.out | jq -s -f examples/shard-stat.jq
set -euo pipefail
[ $# -ge 2 ] || { echo "usage: sbatch [--array=0-N] $0 SRC DST [sync flags]" >&2; exit 2; }
exec "${S3C:-s3c}" --json sync --shard auto --no-progress --stat "$@"
