/*
 * `s3c version` (and --version): what a bug report needs. The version comes
 * from the VERSION file only (the Makefile passes it as S3C_VERSION; the
 * Debian changelog is checked against it by tests/pkg/run.sh), then the
 * libraries as loaded at run time and the CPU features their fast paths use.
 */
#include "cli/cli.h"

#include <curl/curl.h>
#include <expat.h>
#include <openssl/crypto.h>
#include <stdbool.h>
#include <stdio.h>

#include "base/crc.h"
#include "base/md5.h"

#if defined(__x86_64__)
#include <isa-l.h>
#endif
#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#elif defined(__aarch64__)
#include <sys/auxv.h>
#endif

#ifndef S3C_VERSION
#error "S3C_VERSION is set by the Makefile from the VERSION file"
#endif

const char *cli_version(void)
{
    return S3C_VERSION;
}

#if defined(__x86_64__) || defined(__i386__)
/* SHA extensions: CPUID leaf 7, EBX bit 29 (no __builtin_cpu_supports name in clang 14). */
static bool cpu_has_sha(void)
{
    unsigned a, b, c, d;

    return __get_cpuid_count(7, 0, &a, &b, &c, &d) && (b & (1u << 29));
}
#endif

/*
 * The CPU features the hot paths dispatch on, present ones plain and absent
 * ones with a '-': on x86-64 ISA-L's CRC32/CRC32C and the folded CRC64NVME
 * (sse4.2, pclmul, avx512f + vpclmulqdq), the lane MD5s (avx2, avx512vl:
 * base/md5.h), OpenSSL's SHA-256 and TLS ciphers (sha-ni, aes-ni); on
 * aarch64 the CRC kernels (crc32, pmull: base/crc.h), the lane MD5s (asimd)
 * and OpenSSL's (sha2, aes). The "kernels:" line after it says which ones
 * base/crc.c and base/md5.c picked.
 */
static void print_cpu(void)
{
#if defined(__x86_64__) || defined(__i386__)
    struct {
        const char *name;
        bool has;
    } f[8];
    int i, n = 0;

    __builtin_cpu_init();
#define CPU_FEATURE(label, test) f[n].name = (label), f[n].has = (test), n++
    CPU_FEATURE("sse4.2", __builtin_cpu_supports("sse4.2"));
    CPU_FEATURE("pclmul", __builtin_cpu_supports("pclmul"));
    CPU_FEATURE("aes-ni", __builtin_cpu_supports("aes"));
    CPU_FEATURE("avx2", __builtin_cpu_supports("avx2"));
    CPU_FEATURE("avx512f", __builtin_cpu_supports("avx512f"));
    CPU_FEATURE("avx512vl", __builtin_cpu_supports("avx512vl"));
    CPU_FEATURE("vpclmulqdq", __builtin_cpu_supports("vpclmulqdq"));
    CPU_FEATURE("sha-ni", cpu_has_sha());
#undef CPU_FEATURE
    printf("cpu: %s", sizeof(void *) == 8 ? "x86_64" : "i386");
    for (i = 0; i < n; i++)
        printf(" %s%s", f[i].has ? "" : "-", f[i].name);
    printf("\n");
#elif defined(__aarch64__)
    unsigned long hw = getauxval(AT_HWCAP);

    printf("cpu: aarch64 %sasimd %scrc32 %spmull %ssha2 %saes\n", hw & HWCAP_ASIMD ? "" : "-",
           hw & HWCAP_CRC32 ? "" : "-", hw & HWCAP_PMULL ? "" : "-", hw & HWCAP_SHA2 ? "" : "-",
           hw & HWCAP_AES ? "" : "-");
#else
    printf("cpu: unknown architecture\n");
#endif
}

void cli_version_print(void)
{
    const curl_version_info_data *cv = curl_version_info(CURLVERSION_NOW);

    printf("s3c %s\n", S3C_VERSION);
    printf("libcurl: %s (%s)\n", cv->version, cv->ssl_version ? cv->ssl_version : "no TLS");
    printf("openssl: %s\n", OpenSSL_version(OPENSSL_VERSION));
    printf("expat: %s\n", XML_ExpatVersion());
#if defined(__x86_64__)
    printf("isa-l: %d.%d.%d (built with)\n", ISAL_MAJOR_VERSION, ISAL_MINOR_VERSION, ISAL_PATCH_VERSION);
#endif
    print_cpu();
    printf("kernels: crc %s, md5 lanes %s\n", crc_kernel_name(crc_kernel()), md5_kernel_name(md5_kernel()));
}
