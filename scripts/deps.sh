#!/usr/bin/env bash
# scripts/deps.sh [--build-only] [--san] [--fuzz]
#
# Installs, with apt-get, exactly the Debian 12 packages that s3c needs and
# that are not installed yet. Run as root. When everything is already there it
# asks no registry and takes well under a second (one dpkg-query call).
#
#   default       build deps + test deps (Ceph RGW, AWS CLI, rclone, s3cmd, curl, jq, openssl,
#                 python3 and /usr/bin/time for the fault and hostile-server tests,
#                 valgrind for tests/valgrind) + packaging deps (debhelper,
#                 dpkg-dev, lintian, fakeroot, man-db, bash-completion, zsh
#                 and fish for tests/pkg/run.sh)
#   --build-only  build deps only
#   --san|--fuzz  also clang and its sanitizer/libFuzzer runtime (tests/fuzz)
#
# Environment: S3C_DEPS_SAN=1 is the same as --san. The test deps include a
# one-node Slurm (slurmctld slurmd slurm-client munge, for tests/slurm/run.sh)
# unless S3C_SLURM=0.
set -euo pipefail

BUILD=(gcc make libcurl4-openssl-dev libssl-dev libexpat1-dev libjansson-dev libisal-dev zlib1g-dev pkg-config)
# Ceph's daemons pull in many "recommended" packages that we do not need.
TEST_NORECS=(ceph-mon ceph-osd radosgw)
# media-types: /etc/mime.types, which the AWS CLI's Python reads and s3c too (the Content-Type test).
# rclone and s3cmd: peers that write and read the mtimes s3c records (tests/e2e/test_fattr.sh).
TEST=(awscli curl jq media-types openssl python3 python3-botocore time valgrind rclone s3cmd)
SAN=(clang libclang-rt-14-dev)
# tests/pkg/run.sh: build the .deb, lint it, read the man page, load the
# completions of the three shells. Without recommends (lintian's and
# debhelper's are not needed).
PKG=(debhelper dpkg-dev lintian fakeroot man-db bash-completion zsh fish)
# tests/slurm/run.sh: a job array on a one-node cluster (scripts/slurm-start.sh).
SLURM=(slurmctld slurmd slurm-client munge)

want_test=1
want_san=${S3C_DEPS_SAN:-0}
for a in "$@"; do
    case $a in
        --build-only) want_test=0 ;;
        --san|--fuzz) want_san=1 ;;
        -h|--help) sed -n '2,16p' "$0"; exit 0 ;;
        *) echo "deps.sh: unknown argument '$a'" >&2; exit 2 ;;
    esac
done

# missing PKG... -> prints the names that dpkg does not report as installed
# (one dpkg-query call; unknown packages are simply absent from its output).
missing() {
    [ $# -gt 0 ] || return 0
    local have
    have=$(dpkg-query -W -f='${Package} ${db:Status-Status}\n' "$@" 2>/dev/null |
           awk '$2 == "installed" { print $1 }' || true)
    local p
    for p in "$@"; do
        grep -qxF "$p" <<<"$have" || echo "$p"
    done
}

plain=("${BUILD[@]}")
norecs=()
if [ "$want_test" = 1 ]; then
    plain+=("${TEST[@]}")
    norecs+=("${TEST_NORECS[@]}" "${PKG[@]}")
    [ "${S3C_SLURM:-1}" = 1 ] && norecs+=("${SLURM[@]}")
fi
[ "$want_san" = 1 ] && plain+=("${SAN[@]}")

mapfile -t need_plain < <(missing "${plain[@]}")
mapfile -t need_norecs < <(missing "${norecs[@]+"${norecs[@]}"}")

if [ ${#need_plain[@]} -eq 0 ] && [ ${#need_norecs[@]} -eq 0 ]; then
    echo "deps: all installed"
    exit 0
fi

if [ "$(id -u)" != 0 ]; then
    echo "deps: missing ${need_plain[*]} ${need_norecs[*]}: run this script as root" >&2
    exit 1
fi

export DEBIAN_FRONTEND=noninteractive
APT=(apt-get -y -q -o Dpkg::Options::=--force-confdef -o Dpkg::Options::=--force-confold)
echo "deps: installing ${need_plain[*]} ${need_norecs[*]}"
t0=$SECONDS
apt-get update -q
if [ ${#need_plain[@]} -gt 0 ]; then
    "${APT[@]}" install "${need_plain[@]}" </dev/null
fi
if [ ${#need_norecs[@]} -gt 0 ]; then
    "${APT[@]}" install --no-install-recommends "${need_norecs[@]}" </dev/null
fi
echo "deps: done in $((SECONDS - t0)) s"
