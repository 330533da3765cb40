#!/usr/bin/env bash
# scripts/deps-arm64.sh
#
# Installs, with apt-get, what `make ARCH=arm64` (a cross build with Debian's
# multiarch), tests/arm64/run.sh (the arm64 build under qemu-user) and
# `dpkg-buildpackage -a arm64` need on a Debian 12 x86-64 machine: the arm64
# architecture in dpkg, crossbuild-essential-arm64, qemu-user-static and the
# :arm64 -dev packages of the libraries s3c links. Run as root. Idempotent:
# when everything is there it asks no registry (one dpkg-query call).
#
# Not libisal-dev:arm64: bookworm's libisal2 and libisal-dev are not
# Multi-Arch: same, so installing the arm64 ones removes the native ones;
# s3c links ISA-L on x86-64 only (src/base/crc.h).
set -euo pipefail

PKGS=(crossbuild-essential-arm64 qemu-user-static dpkg-dev debhelper lintian fakeroot
      libcurl4-openssl-dev:arm64 libssl-dev:arm64 libexpat1-dev:arm64 libjansson-dev:arm64
      zlib1g-dev:arm64)

case ${1:-} in
    "") ;;
    -h|--help) sed -n '2,13p' "$0"; exit 0 ;;
    *) echo "deps-arm64.sh: unknown argument '$1'" >&2; exit 2 ;;
esac

# missing PKG...: the names dpkg does not report as installed (arch-qualified
# names are matched with their architecture).
missing() {
    local have p
    have=$(dpkg-query -W -f='${Package}:${Architecture} ${db:Status-Status}\n' "$@" 2>/dev/null |
           awk '$2 == "installed" { print $1 }' || true)
    for p in "$@"; do
        case $p in
            *:*) grep -qxF "$p" <<<"$have" || echo "$p" ;;
            *) grep -qE "^$p:" <<<"$have" || echo "$p" ;;
        esac
    done
}

need_arch=0
dpkg --print-foreign-architectures | grep -qx arm64 || need_arch=1
mapfile -t need < <(missing "${PKGS[@]}")
if [ "$need_arch" = 0 ] && [ ${#need[@]} -eq 0 ]; then
    echo "deps-arm64: all installed"
    exit 0
fi
if [ "$(id -u)" != 0 ]; then
    echo "deps-arm64: missing ${need[*]}$( [ "$need_arch" = 1 ] && echo " (and dpkg's arm64 architecture)"): run this script as root" >&2
    exit 1
fi

export DEBIAN_FRONTEND=noninteractive
t0=$SECONDS
[ "$need_arch" = 1 ] && dpkg --add-architecture arm64
echo "deps-arm64: installing ${need[*]}"
apt-get update -q
apt-get -y -q --no-install-recommends -o Dpkg::Options::=--force-confdef -o Dpkg::Options::=--force-confold \
    install "${need[@]}" </dev/null
echo "deps-arm64: done in $((SECONDS - t0)) s"
