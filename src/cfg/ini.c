/*
 * ini.c: a line-by-line port of RawConfigParser._read() (strict mode, '='
 * and ':' delimiters, '#' and ';' full-line comments, empty lines kept in
 * values) followed by botocore's _parse_nested() for values that start with
 * a line break. See ini.h for the dialect.
 */
#include "cfg/ini.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/buf.h"

/* Values may be secret keys: wipe them before they go back to the heap. */
static void free_wiped(char *p)
{
    if (p) {
        explicit_bzero(p, strlen(p));
        free(p);
    }
}

/* Python's str.strip() whitespace, ASCII part. */
static bool is_ws(char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}

static struct sv strip(struct sv s)
{
    while (s.n && is_ws(s.p[0])) {
        s.p++;
        s.n--;
    }
    while (s.n && is_ws(s.p[s.n - 1]))
        s.n--;
    return s;
}

/* A value under construction. */
struct value_lines {
    struct buf text;            /* lines joined with '\n' */
    bool open;                  /* an entry is accepting continuation lines */
    bool in_defaults;           /* the entry is in the DEFAULT section */
    unsigned bad_nested_line;   /* first DEFAULT key with a broken sub-section */
};

#define BAD_NESTED "a line of this sub-section has no '=' (want \"key = value\")"

static enum s3c_err parse_error(struct s3c_error *e, const char *label, unsigned line,
                                const char *why)
{
    return s3c_fail(e, S3C_EPARSE, "%s, line %u: %s", label, line, why);
}

static enum s3c_err oom(struct s3c_error *e, const char *label)
{
    return s3c_fail(e, S3C_ENOMEM, "%s: out of memory", label);
}

static struct ini_section *add_section(struct ini *ini, struct sv name, unsigned line)
{
    struct ini_section *s;

    if (ini->n_sections == ini->cap_sections) {
        size_t cap = ini->cap_sections ? 2 * ini->cap_sections : 8;
        struct ini_section *p = realloc(ini->sections, cap * sizeof(*p));
        if (!p)
            return NULL;
        ini->sections = p;
        ini->cap_sections = cap;
    }
    s = &ini->sections[ini->n_sections];
    memset(s, 0, sizeof(*s));
    s->name = sv_dup(name);
    if (!s->name)
        return NULL;
    s->line = line;
    ini->n_sections++;
    return s;
}

static struct ini_entry *add_entry(struct ini_section *s, char *key, unsigned line)
{
    struct ini_entry *en;

    if (s->n_entries == s->cap_entries) {
        size_t cap = s->cap_entries ? 2 * s->cap_entries : 8;
        struct ini_entry *p = realloc(s->entries, cap * sizeof(*p));
        if (!p)
            return NULL;
        s->entries = p;
        s->cap_entries = cap;
    }
    en = &s->entries[s->n_entries++];
    memset(en, 0, sizeof(*en));
    en->key = key;
    en->line = line;
    return en;
}

static struct ini_section *section_by_name(struct ini *ini, struct sv name)
{
    size_t i;

    for (i = 0; i < ini->n_sections; i++)
        if (sv_eqs(name, ini->sections[i].name))
            return &ini->sections[i];
    return NULL;
}

static const struct ini_entry *entry_in(const struct ini_section *s, const char *key)
{
    size_t i;

    for (i = 0; s && i < s->n_entries; i++)
        if (strcmp(s->entries[i].key, key) == 0)
            return &s->entries[i];
    return NULL;
}

/*
 * The value of 'en' is complete: trim the end (RawConfigParser's rstrip
 * after the join) and, if it starts with a line break, parse it as a
 * sub-section. 'first_line' is the key's line; continuation lines follow it
 * in the file but comments may sit between, so sub-section errors name the
 * key's line.
 */
static enum s3c_err finish_value(struct ini_entry *en, struct value_lines *v, const char *label,
                                 struct s3c_error *e)
{
    struct sv all = buf_sv(&v->text);
    size_t cap = 0;

    v->open = false;
    while (all.n && is_ws(all.p[all.n - 1]))
        all.n--;
    en->value = sv_dup(all);
    if (!en->value)
        return oom(e, label);
    if (all.n == 0 || all.p[0] != '\n')
        return S3C_OK;

    en->nested = true;
    while (all.n) {
        const char *nl = memchr(all.p, '\n', all.n);
        struct sv line = { all.p, nl ? (size_t)(nl - all.p) : all.n };
        const char *eq;
        struct ini_pair *pair;

        all.p += line.n + (nl ? 1 : 0);
        all.n -= line.n + (nl ? 1 : 0);
        line = strip(line);
        if (!line.n)
            continue;
        eq = memchr(line.p, '=', line.n);
        if (!eq) {
            /*
             * botocore parses sub-sections only when it reads a section's
             * options, and DEFAULT's only through another section: keep
             * the error for the end of the file (see ini_parse()).
             */
            size_t k;

            for (k = 0; k < en->n_sub; k++) { /* the good lines before it go too */
                free(en->sub[k].key);
                free_wiped(en->sub[k].value);
            }
            en->nested = false;
            en->n_sub = 0;
            v->bad_nested_line = v->bad_nested_line ? v->bad_nested_line : en->line;
            if (!v->in_defaults)
                return parse_error(e, label, en->line, BAD_NESTED);
            return S3C_OK;
        }
        if (en->n_sub == cap) {
            struct ini_pair *p;
            cap = cap ? 2 * cap : 8;
            p = realloc(en->sub, cap * sizeof(*p));
            if (!p)
                return oom(e, label);
            en->sub = p;
        }
        pair = &en->sub[en->n_sub];
        pair->key = sv_dup(strip((struct sv){ line.p, (size_t)(eq - line.p) }));
        pair->value = sv_dup(strip((struct sv){ eq + 1, line.n - (size_t)(eq - line.p) - 1 }));
        pair->line = en->line;
        if (!pair->key || !pair->value) {
            free(pair->key);
            free(pair->value);
            return oom(e, label);
        }
        en->n_sub++;
    }
    return S3C_OK;
}

enum s3c_err ini_parse(struct ini *ini, struct sv text, const char *label, struct s3c_error *e)
{
    struct value_lines v = { BUF_INIT(INI_MAX_BYTES), false, false, 0 };
    struct ini_section *cur = NULL;
    struct ini_entry *en = NULL;
    size_t indent_level = 0;
    unsigned lineno = 0;
    enum s3c_err rc = S3C_OK;

    if (text.n > INI_MAX_BYTES) {
        rc = s3c_fail(e, S3C_EPARSE, "%s: larger than %zu bytes", label, INI_MAX_BYTES);
        goto out;
    }
    /* A UTF-8 byte order mark is not part of the first line. */
    if (text.n >= 3 && memcmp(text.p, "\xEF\xBB\xBF", 3) == 0) {
        text.p += 3;
        text.n -= 3;
    }

    while (text.n) {
        /* Universal newlines, as Python reads text files: \n, \r\n, \r. */
        size_t len = 0, adv;
        struct sv raw, val;
        size_t indent = 0;

        while (len < text.n && text.p[len] != '\n' && text.p[len] != '\r')
            len++;
        adv = len;
        if (adv < text.n) {
            if (text.p[adv] == '\r' && adv + 1 < text.n && text.p[adv + 1] == '\n')
                adv++;
            adv++;
        }
        raw = (struct sv){ text.p, len };
        text.p += adv;
        text.n -= adv;
        lineno++;

        if (memchr(raw.p, '\0', raw.n)) {
            rc = parse_error(e, label, lineno, "contains a NUL byte");
            goto out;
        }
        val = strip(raw);
        if (val.n && (val.p[0] == '#' || val.p[0] == ';'))
            continue;                               /* comment: not even a blank value line */
        if (!val.n) {
            if (en && v.open && buf_addc(&v.text, '\n')) {
                rc = oom(e, label);
                goto out;
            }
            continue;
        }
        while (indent < raw.n && is_ws(raw.p[indent]))
            indent++;

        if (cur && en && v.open && indent > indent_level) {
            if (buf_addc(&v.text, '\n') || buf_addsv(&v.text, val)) {
                rc = oom(e, label);
                goto out;
            }
            continue;
        }

        /* A new header or key line ends the value before it. */
        if (en && v.open && (rc = finish_value(en, &v, label, e)))
            goto out;
        en = NULL;
        indent_level = indent;

        if (val.p[0] == '[') {
            /* Python: \[(?P<header>.+)\] matched greedily from the start. */
            const char *close = NULL;
            size_t i;
            struct sv name;

            for (i = 2; i < val.n; i++)
                if (val.p[i] == ']')
                    close = val.p + i;
            if (close) {
                name = (struct sv){ val.p + 1, (size_t)(close - val.p - 1) };
                cur = section_by_name(ini, name);
                if (cur && !sv_eqs(name, "DEFAULT")) {
                    char msg[160];
                    snprintf(msg, sizeof(msg), "section [%.*s] appears twice (first at line %u)",
                             (int)(name.n > 80 ? 80 : name.n), name.p, cur->line);
                    rc = parse_error(e, label, lineno, msg);
                    goto out;
                }
                if (!cur) {
                    cur = add_section(ini, name, lineno);
                    if (!cur) {
                        rc = oom(e, label);
                        goto out;
                    }
                }
                v.in_defaults = sv_eqs(name, "DEFAULT");
                continue;
            }
        }
        if (!cur) {
            rc = parse_error(e, label, lineno, "text before the first [section] header");
            goto out;
        }
        {
            /* Option line: key, then the first '=' or ':', then the value. */
            size_t d = 0;
            struct sv key;
            char *k;
            size_t i;

            while (d < val.n && val.p[d] != '=' && val.p[d] != ':')
                d++;
            key = strip((struct sv){ val.p, d });
            if (d == val.n || key.n == 0) {
                rc = parse_error(e, label, lineno,
                                 d == val.n ? "expected \"key = value\" or \"[section]\""
                                            : "a key is missing before '=' or ':'");
                goto out;
            }
            k = sv_dup(key);
            if (!k) {
                rc = oom(e, label);
                goto out;
            }
            for (i = 0; k[i]; i++)
                if (k[i] >= 'A' && k[i] <= 'Z')
                    k[i] = (char)(k[i] - 'A' + 'a');
            if (entry_in(cur, k)) {
                char msg[160];
                snprintf(msg, sizeof(msg), "key \"%.60s\" appears twice in section [%.60s]", k,
                         cur->name);
                free(k);
                rc = parse_error(e, label, lineno, msg);
                goto out;
            }
            en = add_entry(cur, k, lineno);
            if (!en) {
                free(k);
                rc = oom(e, label);
                goto out;
            }
            buf_reset(&v.text);
            if (buf_addsv(&v.text, strip((struct sv){ val.p + d + 1, val.n - d - 1 }))) {
                rc = oom(e, label);
                goto out;
            }
            v.open = true;
        }
    }
    if (en && v.open && (rc = finish_value(en, &v, label, e)))
        goto out;
    /* A broken DEFAULT sub-section matters once some section inherits it. */
    if (v.bad_nested_line && ini->n_sections > 1)
        rc = parse_error(e, label, v.bad_nested_line, BAD_NESTED);
out:
    /* Set last: growing the section array moves the sections. */
    ini->defaults = section_by_name(ini, SV("DEFAULT"));
    buf_release(&v.text);
    return rc;
}

enum s3c_err ini_load_file(struct ini *ini, const char *path, const char *label, bool *found,
                           struct s3c_error *e)
{
    struct buf text = BUF_INIT(INI_MAX_BYTES);
    struct stat st;
    enum s3c_err rc = S3C_OK;
    int fd = -1;

    *found = false;
    fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        if (errno == ENOENT || errno == ENOTDIR)
            goto out;                   /* no file: nothing configured here */
        rc = s3c_fail(e, S3C_ECONFIG, "%s: cannot open: %s", label, strerror(errno));
        if (e)
            e->sys_errno = errno;
        goto out;
    }
    if (fstat(fd, &st) == 0 && S_ISDIR(st.st_mode))
        goto out;                       /* botocore skips what is not a file */
    for (;;) {
        ssize_t n;

        if (buf_grow(&text, 65536)) {
            /* Over the cap, unless the file ends exactly at it. */
            char c;
            if (text.len == INI_MAX_BYTES && read(fd, &c, 1) == 0)
                break;
            rc = s3c_fail(e, S3C_ECONFIG, "%s: larger than %zu bytes", label, INI_MAX_BYTES);
            goto out;
        }
        n = read(fd, text.data + text.len, text.cap - text.len - 1);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0) {
            rc = s3c_fail(e, S3C_ECONFIG, "%s: cannot read: %s", label, strerror(errno));
            if (e)
                e->sys_errno = errno;
            goto out;
        }
        if (n == 0)
            break;
        text.len += (size_t)n;
        text.data[text.len] = '\0';
    }
    *found = true;
    rc = ini_parse(ini, buf_sv(&text), label, e);
out:
    if (fd >= 0)
        close(fd);
    if (text.data)
        explicit_bzero(text.data, text.len); /* the credentials file holds secret keys */
    buf_release(&text);
    return rc;
}

const struct ini_section *ini_section_find(const struct ini *ini, const char *name)
{
    size_t i;

    for (i = ini->n_sections; i-- > 0;)
        if (&ini->sections[i] != ini->defaults && strcmp(ini->sections[i].name, name) == 0)
            return &ini->sections[i];
    return NULL;
}

const struct ini_entry *ini_get(const struct ini *ini, const struct ini_section *s,
                                const char *key)
{
    const struct ini_entry *en;

    if (!s)
        return NULL;
    en = entry_in(s, key);
    if (!en && ini->defaults && s != ini->defaults)
        en = entry_in(ini->defaults, key);
    return en;
}

const struct ini_pair *ini_sub_get(const struct ini_entry *en, const char *key)
{
    size_t i;

    if (!en || !en->nested)
        return NULL;
    for (i = en->n_sub; i-- > 0;)
        if (strcmp(en->sub[i].key, key) == 0)
            return &en->sub[i];
    return NULL;
}

/*
 * shlex.split(name) in POSIX mode without comments: whitespace separates
 * words; '...' is literal; "..." is literal except \" and \\; a backslash
 * outside quotes escapes the next character. Returns the number of words
 * (up to 3 are reported; more count as 3), or -1 on an unclosed quote or a
 * trailing backslash. The second word goes to 'second' if it fits.
 */
static int shlex_two(const char *p, char *second, size_t second_size, bool *fits)
{
    int words = 0;
    size_t n = 0;

    *fits = true;
    while (*p) {
        bool in_word = false;

        while (*p && is_ws(*p))
            p++;
        if (!*p)
            break;
        n = 0;
        while (*p && !is_ws(*p)) {
            char c = *p++;
            in_word = true;
            if (c == '\\') {
                if (!*p)
                    return -1;
                c = *p++;
            } else if (c == '\'' || c == '"') {
                char q = c;
                for (;;) {
                    if (!*p)
                        return -1;
                    c = *p++;
                    if (c == q)
                        break;
                    if (q == '"' && c == '\\' && (*p == '"' || *p == '\\'))
                        c = *p++;
                    if (words == 1) {
                        if (n + 1 < second_size)
                            second[n++] = c;
                        else
                            *fits = false;
                    }
                }
                continue;
            }
            if (words == 1) {
                if (n + 1 < second_size)
                    second[n++] = c;
                else
                    *fits = false;
            }
        }
        if (in_word) {
            if (words == 1 && second_size)
                second[n] = '\0';
            if (words < 3)
                words++;
        }
    }
    return words;
}

bool ini_kind_name(const char *name, const char *kind, char *out, size_t out_size)
{
    bool fits;

    if (strncmp(name, kind, strlen(kind)) != 0 || out_size == 0)
        return false;
    return shlex_two(name, out, out_size, &fits) == 2 && fits;
}

void ini_release(struct ini *ini)
{
    size_t i, j, k;

    for (i = 0; i < ini->n_sections; i++) {
        struct ini_section *s = &ini->sections[i];
        for (j = 0; j < s->n_entries; j++) {
            struct ini_entry *en = &s->entries[j];
            for (k = 0; k < en->n_sub; k++) {
                free(en->sub[k].key);
                free_wiped(en->sub[k].value);
            }
            free(en->sub);
            free(en->key);
            free_wiped(en->value);
        }
        free(s->entries);
        free(s->name);
    }
    free(ini->sections);
    ini->sections = NULL;
    ini->n_sections = ini->cap_sections = 0;
    ini->defaults = NULL;
}
