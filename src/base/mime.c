/*
 * mime: the Content-Type of an upload guessed from its file name as the AWS
 * CLI guesses it (awscli's guess_content_type: Python's
 * mimetypes.guess_type(path)[0]), so that the same file gets the same type
 * from either tool. Calls nothing of s3c's but buf.
 */
#include "base/mime.h"

#include <ctype.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

struct mime_pair {
    const char *ext;    /* without its '.' */
    const char *type;
};

/* CPython 3.11's mimetypes._types_map_default (strict), 149 entries. */
static const struct mime_pair builtin[] = {
    { "3g2", "audio/3gpp2" }, { "3gp", "audio/3gpp" }, { "3gpp", "audio/3gpp" }, { "3gpp2", "audio/3gpp2" },
    { "a", "application/octet-stream" }, { "aac", "audio/aac" }, { "adts", "audio/aac" },
    { "ai", "application/postscript" }, { "aif", "audio/x-aiff" }, { "aifc", "audio/x-aiff" },
    { "aiff", "audio/x-aiff" }, { "ass", "audio/aac" }, { "au", "audio/basic" }, { "avi", "video/x-msvideo" },
    { "avif", "image/avif" }, { "bat", "text/plain" }, { "bcpio", "application/x-bcpio" },
    { "bin", "application/octet-stream" }, { "bmp", "image/bmp" }, { "c", "text/plain" },
    { "cdf", "application/x-netcdf" }, { "cpio", "application/x-cpio" }, { "csh", "application/x-csh" },
    { "css", "text/css" }, { "csv", "text/csv" }, { "dll", "application/octet-stream" },
    { "doc", "application/msword" }, { "dot", "application/msword" }, { "dvi", "application/x-dvi" },
    { "eml", "message/rfc822" }, { "eps", "application/postscript" }, { "etx", "text/x-setext" },
    { "exe", "application/octet-stream" }, { "gif", "image/gif" }, { "gtar", "application/x-gtar" },
    { "h", "text/plain" }, { "h5", "application/x-hdf5" }, { "hdf", "application/x-hdf" },
    { "heic", "image/heic" }, { "heif", "image/heif" }, { "htm", "text/html" }, { "html", "text/html" },
    { "ico", "image/vnd.microsoft.icon" }, { "ief", "image/ief" }, { "jpe", "image/jpeg" },
    { "jpeg", "image/jpeg" }, { "jpg", "image/jpeg" }, { "js", "application/javascript" },
    { "json", "application/json" }, { "ksh", "text/plain" }, { "latex", "application/x-latex" },
    { "loas", "audio/aac" }, { "m1v", "video/mpeg" }, { "m3u", "application/vnd.apple.mpegurl" },
    { "m3u8", "application/vnd.apple.mpegurl" }, { "man", "application/x-troff-man" },
    { "me", "application/x-troff-me" }, { "mht", "message/rfc822" }, { "mhtml", "message/rfc822" },
    { "mif", "application/x-mif" }, { "mjs", "application/javascript" }, { "mov", "video/quicktime" },
    { "movie", "video/x-sgi-movie" }, { "mp2", "audio/mpeg" }, { "mp3", "audio/mpeg" },
    { "mp4", "video/mp4" }, { "mpa", "video/mpeg" }, { "mpe", "video/mpeg" }, { "mpeg", "video/mpeg" },
    { "mpg", "video/mpeg" }, { "ms", "application/x-troff-ms" }, { "n3", "text/n3" },
    { "nc", "application/x-netcdf" }, { "nq", "application/n-quads" }, { "nt", "application/n-triples" },
    { "nws", "message/rfc822" }, { "o", "application/octet-stream" }, { "obj", "application/octet-stream" },
    { "oda", "application/oda" }, { "opus", "audio/opus" }, { "p12", "application/x-pkcs12" },
    { "p7c", "application/pkcs7-mime" }, { "pbm", "image/x-portable-bitmap" }, { "pdf", "application/pdf" },
    { "pfx", "application/x-pkcs12" }, { "pgm", "image/x-portable-graymap" }, { "pl", "text/plain" },
    { "png", "image/png" }, { "pnm", "image/x-portable-anymap" }, { "pot", "application/vnd.ms-powerpoint" },
    { "ppa", "application/vnd.ms-powerpoint" }, { "ppm", "image/x-portable-pixmap" },
    { "pps", "application/vnd.ms-powerpoint" }, { "ppt", "application/vnd.ms-powerpoint" },
    { "ps", "application/postscript" }, { "pwz", "application/vnd.ms-powerpoint" }, { "py", "text/x-python" },
    { "pyc", "application/x-python-code" }, { "pyo", "application/x-python-code" },
    { "qt", "video/quicktime" }, { "ra", "audio/x-pn-realaudio" }, { "ram", "application/x-pn-realaudio" },
    { "ras", "image/x-cmu-raster" }, { "rdf", "application/xml" }, { "rgb", "image/x-rgb" },
    { "roff", "application/x-troff" }, { "rtx", "text/richtext" }, { "sgm", "text/x-sgml" },
    { "sgml", "text/x-sgml" }, { "sh", "application/x-sh" }, { "shar", "application/x-shar" },
    { "snd", "audio/basic" }, { "so", "application/octet-stream" }, { "src", "application/x-wais-source" },
    { "srt", "text/plain" }, { "sv4cpio", "application/x-sv4cpio" }, { "sv4crc", "application/x-sv4crc" },
    { "svg", "image/svg+xml" }, { "swf", "application/x-shockwave-flash" }, { "t", "application/x-troff" },
    { "tar", "application/x-tar" }, { "tcl", "application/x-tcl" }, { "tex", "application/x-tex" },
    { "texi", "application/x-texinfo" }, { "texinfo", "application/x-texinfo" }, { "tif", "image/tiff" },
    { "tiff", "image/tiff" }, { "tr", "application/x-troff" }, { "trig", "application/trig" },
    { "tsv", "text/tab-separated-values" }, { "txt", "text/plain" }, { "ustar", "application/x-ustar" },
    { "vcf", "text/x-vcard" }, { "vtt", "text/vtt" }, { "wasm", "application/wasm" },
    { "wav", "audio/x-wav" }, { "webm", "video/webm" }, { "webmanifest", "application/manifest+json" },
    { "wiz", "application/msword" }, { "wsdl", "application/xml" }, { "xbm", "image/x-xbitmap" },
    { "xlb", "application/vnd.ms-excel" }, { "xls", "application/vnd.ms-excel" }, { "xml", "text/xml" },
    { "xpdl", "application/xml" }, { "xpm", "image/x-xpixmap" }, { "xsl", "application/xml" },
    { "xwd", "image/x-xwindowdump" }, { "zip", "application/zip" },
};

/* Python's mimetypes.knownfiles, read in this order, each entry over those before it. */
static const char *const known_files[] = {
    "/etc/mime.types", "/etc/httpd/mime.types", "/etc/httpd/conf/mime.types", "/etc/apache/mime.types",
    "/etc/apache2/mime.types", "/usr/local/etc/httpd/conf/mime.types", "/usr/local/lib/netscape/mime.types",
    "/usr/local/etc/httpd/conf/mime.types", "/usr/local/etc/mime.types",
};

/* _suffix_map_default: a suffix that stands for two ('.tgz' is '.tar.gz'); looked up in lower case. */
static const struct mime_pair suffix_map[] = {
    { "svgz", ".svg.gz" }, { "tgz", ".tar.gz" }, { "taz", ".tar.gz" },
    { "tz", ".tar.gz" },   { "tbz2", ".tar.bz2" }, { "txz", ".tar.xz" },
};

/* _encodings_map_default's suffixes, case-sensitive: an encoding, not a type ("a.tar.gz" is a tar). */
static const char *const encodings[] = { "gz", "Z", "bz2", "xz", "br" };

#define MAP_SLOTS 16384         /* a power of two, well above any mime.types (Debian's: ~2,000) */
#define MAP_MAX (MAP_SLOTS / 2)

struct slot {
    char *ext;
    char *type;
};

static struct slot *map;        /* the files' entries over the built-in ones; NULL: not loaded */
static size_t map_n;
static pthread_once_t load_once = PTHREAD_ONCE_INIT;

static size_t hash(const char *s, size_t n)
{
    size_t h = 1469598103934665603ull;

    while (n--)
        h = (h ^ (unsigned char)*s++) * 1099511628211ull;
    return h;
}

/* The slot of 'ext' (n bytes): its own, or the empty one where it would go. */
static struct slot *find(struct slot *m, const char *ext, size_t n)
{
    size_t i = hash(ext, n) & (MAP_SLOTS - 1);

    while (m[i].ext && (strlen(m[i].ext) != n || memcmp(m[i].ext, ext, n) != 0))
        i = (i + 1) & (MAP_SLOTS - 1);
    return &m[i];
}

/* add_type: 'type' for 'ext', over any type before it. False when full or out of memory. */
static bool put(struct slot *m, const char *ext, size_t n, const char *type, size_t tn)
{
    struct slot *s = find(m, ext, n);
    char *t = strndup(type, tn);

    if (!t)
        return false;
    if (!s->ext) {
        if (map_n >= MAP_MAX || !(s->ext = strndup(ext, n))) {
            free(t);
            return false;
        }
        map_n++;
    }
    free(s->type);
    s->type = t;
    return true;
}

/* readfp: "type ext ext ...", a word starting with '#' ends its line. */
static void read_file(struct slot *m, const char *path)
{
    FILE *f = fopen(path, "r");
    char line[4096];

    if (!f)
        return;
    while (fgets(line, sizeof(line), f)) {
        const char *p = line, *type = NULL;
        size_t tn = 0;

        for (;;) {
            const char *w;
            size_t n;

            while (*p && isspace((unsigned char)*p))
                p++;
            if (!*p || *p == '#')
                break;
            w = p;
            while (*p && !isspace((unsigned char)*p))
                p++;
            n = (size_t)(p - w);
            if (!type) {
                type = w;
                tn = n;
            } else if (!put(m, w, n, type, tn)) {
                break;
            }
        }
    }
    fclose(f);
}

static void load(void)
{
    struct slot *m = calloc(MAP_SLOTS, sizeof(*m));
    size_t i;

    if (!m)
        return;
    for (i = 0; i < sizeof(builtin) / sizeof(builtin[0]); i++)
        put(m, builtin[i].ext, strlen(builtin[i].ext), builtin[i].type, strlen(builtin[i].type));
    for (i = 0; i < sizeof(known_files) / sizeof(known_files[0]); i++)
        read_file(m, known_files[i]);
    map = m;
}

void mime_load(void)
{
    pthread_once(&load_once, load);
}

/* posixpath.splitext: where the extension of the last name in p[0..n) starts (its '.'), or n. */
static size_t ext_at(const char *p, size_t n)
{
    size_t base = n, dot = n, i;

    while (base > 0 && p[base - 1] != '/')
        base--;
    for (i = n; i > base; i--)
        if (p[i - 1] == '.') {
            dot = i - 1;
            break;
        }
    if (dot == n)
        return n;
    for (i = base; i < dot; i++)
        if (p[i] != '.')
            return dot; /* a name of leading dots only (".bashrc") has none */
    return n;
}

/* The built-in type of 'ext' (lower case, without its '.'), for a lookup before mime_load. */
static const char *builtin_type(const char *ext)
{
    size_t i;

    for (i = 0; i < sizeof(builtin) / sizeof(builtin[0]); i++)
        if (!strcmp(builtin[i].ext, ext))
            return builtin[i].type;
    return NULL;
}

const char *mime_guess(const char *path)
{
    char b[4096], low[256];
    const char *colon = strchr(path, ':'), *slash = strchr(path, '/');
    size_t n, e, i, rounds;

    /* urllib's _splittype: "scheme:rest" before any '/' is a URL's scheme; "data:" is no file. */
    if (colon && colon != path && (!slash || colon < slash)) {
        if (colon - path == 4 && !strncasecmp(path, "data", 4))
            return NULL;
        path = colon + 1;
    }
    n = strlen(path);
    if (n >= sizeof(b))
        return NULL;
    memcpy(b, path, n + 1);
    for (rounds = 0;; rounds++) {
        const struct mime_pair *sm = NULL;

        e = ext_at(b, n);
        for (i = 0; e < n && n - e - 1 < sizeof(low) && i < sizeof(suffix_map) / sizeof(suffix_map[0]); i++)
            if (!strncasecmp(b + e + 1, suffix_map[i].ext, n - e - 1) && !suffix_map[i].ext[n - e - 1])
                sm = &suffix_map[i];
        if (!sm || rounds > 8)
            break;
        if (e + strlen(sm->type) >= sizeof(b))
            return NULL;
        memcpy(b + e, sm->type, strlen(sm->type) + 1);
        n = strlen(b);
    }
    for (i = 0; e < n && i < sizeof(encodings) / sizeof(encodings[0]); i++) {
        if (!strcmp(b + e + 1, encodings[i])) {
            n = e;
            b[n] = '\0';
            e = ext_at(b, n);
            break;
        }
    }
    if (e >= n || n - e - 1 >= sizeof(low))
        return NULL;
    for (i = 0; i + e + 1 < n; i++)
        low[i] = (char)tolower((unsigned char)b[e + 1 + i]);
    low[i] = '\0';
    if (!map)
        return builtin_type(low); /* not loaded: never a file read here (the loop's thread) */
    {
        struct slot *s = find(map, low, i);
        return s->ext ? s->type : NULL;
    }
}
