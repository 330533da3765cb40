/*
 * libFuzzer target for the hosts file of --hosts-file / S3C_HOSTS_FILE
 * (http/resolve): the input is the file. It is read as the resolver reads
 * it (http_resolver_new) and looked up (http_hosts_lookup) for the first
 * name it mentions, a name it cannot have and an empty one. Checks, beyond
 * "no crash, no leak, no UB": no more addresses than asked for, each a
 * NUL-terminated IP literal that fits its slot.
 */
#include <arpa/inet.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "http/resolve.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char path[64];

static void lookup(const char *text, const char *host)
{
    char out[HTTP_RESOLVE_MAX_ADDRS][64];
    int n, i;

    memset(out, 'x', sizeof(out));
    n = http_hosts_lookup(text, host, out, HTTP_RESOLVE_MAX_ADDRS);
    if (n < 0 || n > HTTP_RESOLVE_MAX_ADDRS)
        abort();
    for (i = 0; i < n; i++) {
        unsigned char a[16];
        const char *s = out[i];
        size_t len = strnlen(s, 64);
        char bare[64];

        if (len == 64)
            abort();
        /* IPv6 may come in brackets. */
        if (s[0] == '[' && len > 2 && s[len - 1] == ']') {
            memcpy(bare, s + 1, len - 2);
            bare[len - 2] = '\0';
        } else {
            memcpy(bare, s, len + 1);
        }
        if (inet_pton(AF_INET, bare, a) != 1 && inet_pton(AF_INET6, bare, a) != 1)
            abort();
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct s3c_error e = S3C_ERROR_INIT;
    struct http_resolver *r;
    char *text = malloc(size + 1), host[256] = "";
    FILE *f;

    if (!text)
        return 0;
    memcpy(text, data, size);
    text[size] = '\0';
    if (!path[0])
        snprintf(path, sizeof(path), "/tmp/s3c-fuzz-hosts.%d", (int)getpid());
    if (!(f = fopen(path, "wb")))
        abort();
    if (size && fwrite(data, 1, size, f) != size)
        abort();
    fclose(f);

    r = http_resolver_new(path, &e);
    if (!r && (!e.msg[0] || strlen(e.msg) >= sizeof(e.msg)))
        abort();
    http_resolver_free(r);

    /* The second word of the first line: where a name would be. */
    (void)sscanf(text, "%*s %255s", host);
    lookup(text, host);
    lookup(text, "no-such-name.invalid");
    lookup(text, "");
    free(text);
    return 0;
}
