/* Part sizing and content types: small pure functions of the engine. */
#include <string.h>
#include <strings.h>

#include "xfer/xfer.h"

#define MIB ((uint64_t)1 << 20)
#define PART_MIN (8 * MIB)
#define PART_MAX ((uint64_t)5 << 30)
#define PARTS_MAX 10000

uint64_t xfer_part_size(uint64_t size, uint64_t configured)
{
    uint64_t p = configured ? configured : PART_MIN, min_for_count;

    /* A configured size may be smaller than 8 MiB (the store's floor is 5 MiB). */
    if (!configured && p < PART_MIN)
        p = PART_MIN;
    min_for_count = (size + PARTS_MAX - 1) / PARTS_MAX;
    if (p < min_for_count) {
        /* Round up to whole MiB so parts stay aligned. */
        p = (min_for_count + MIB - 1) / MIB * MIB;
    }
    if (p > PART_MAX)
        p = PART_MAX;
    return p;
}

static const struct {
    const char *ext;
    const char *type;
} mime_types[] = {
    { "txt", "text/plain" },       { "log", "text/plain" },          { "csv", "text/csv" },
    { "html", "text/html" },       { "htm", "text/html" },           { "css", "text/css" },
    { "js", "text/javascript" },   { "mjs", "text/javascript" },     { "json", "application/json" },
    { "xml", "application/xml" },  { "pdf", "application/pdf" },     { "zip", "application/zip" },
    { "gz", "application/gzip" },  { "tgz", "application/gzip" },    { "tar", "application/x-tar" },
    { "bz2", "application/x-bzip2" }, { "xz", "application/x-xz" },  { "zst", "application/zstd" },
    { "png", "image/png" },        { "jpg", "image/jpeg" },          { "jpeg", "image/jpeg" },
    { "gif", "image/gif" },        { "svg", "image/svg+xml" },       { "webp", "image/webp" },
    { "ico", "image/vnd.microsoft.icon" }, { "mp4", "video/mp4" },   { "webm", "video/webm" },
    { "mp3", "audio/mpeg" },       { "wav", "audio/x-wav" },         { "md", "text/markdown" },
    { "yaml", "application/yaml" }, { "yml", "application/yaml" },   { "wasm", "application/wasm" },
    { "parquet", "application/vnd.apache.parquet" }, { "avro", "application/avro" },
    { NULL, NULL },
};

const char *xfer_guess_mime(const char *name)
{
    const char *slash = strrchr(name, '/'), *dot = strrchr(name, '.');
    int i;

    if (!dot || (slash && dot < slash) || !dot[1])
        return "binary/octet-stream";
    for (i = 0; mime_types[i].ext; i++)
        if (strcasecmp(dot + 1, mime_types[i].ext) == 0)
            return mime_types[i].type;
    return "binary/octet-stream";
}
