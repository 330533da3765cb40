/*
 * ini: the INI dialect of the AWS shared config and credentials files, read
 * exactly as botocore reads it (Python's RawConfigParser plus botocore's
 * one level of nested sub-sections). What it is:
 *
 *   - "[name]" starts a section. The name is kept verbatim (not trimmed);
 *     mapping "[profile dev]" to a profile is the caller's job
 *     (ini_profile_name()). A section named exactly "DEFAULT" is
 *     RawConfigParser's defaults section: its keys show through in every
 *     other section (ini_get()) and it is not a section itself.
 *   - "key = value" or "key: value", split at the first '=' or ':'. Keys are
 *     trimmed and lower-cased; values are trimmed. There are no inline
 *     comments: "a = b # c" has the value "b # c".
 *   - Lines whose first non-blank character is '#' or ';' are comments,
 *     wherever they are (even inside a value).
 *   - A line indented deeper than the key line above it continues that
 *     key's value; blank lines inside a value are kept. A value that begins
 *     with a line break ("s3 =" followed by indented lines) is a nested
 *     sub-section: each non-blank line is "key = value", split at the first
 *     '=' and trimmed (keys keep their case, as botocore does).
 *   - A repeated section or a repeated key inside one section is an error,
 *     as is any line that is none of the above, or text before the first
 *     section. Errors name the file (the label given) and the line.
 *
 * What it is not: it does not know profiles, precedence or value types;
 * config.c does. Nothing here prints or reads the environment.
 */
#ifndef S3C_CFG_INI_H
#define S3C_CFG_INI_H

#include <stdbool.h>
#include <stddef.h>

#include "base/err.h"
#include "base/str.h"

/* Files larger than this are refused: a config file is a few KB. */
#define INI_MAX_BYTES ((size_t)4 << 20)

/* One "key = value" line of a nested sub-section. */
struct ini_pair {
    char *key;          /* trimmed, case kept */
    char *value;        /* trimmed */
    unsigned line;      /* 1-based line number in the file */
};

/* One key of a section. */
struct ini_entry {
    char *key;              /* trimmed, lower-cased */
    char *value;            /* trimmed; continuation lines joined with '\n' */
    bool nested;            /* value was a sub-section: see sub[] */
    struct ini_pair *sub;   /* the sub-section's lines, in file order */
    size_t n_sub;
    unsigned line;          /* line of the key */
};

struct ini_section {
    char *name;                 /* between the brackets, verbatim */
    unsigned line;              /* line of the header */
    struct ini_entry *entries;  /* in file order */
    size_t n_entries;
    size_t cap_entries;
};

struct ini {
    struct ini_section *sections;   /* in file order, "DEFAULT" included */
    size_t n_sections;
    size_t cap_sections;
    const struct ini_section *defaults;  /* the "DEFAULT" section, or NULL */
};

#define INI_INIT { NULL, 0, 0, NULL }

/*
 * Parse 'text' into 'ini' (which must be INI_INIT or released). 'label'
 * names the file in error messages, e.g. "config file ~/.aws/config".
 * Fails with S3C_EPARSE ("LABEL, line N: why") or S3C_ENOMEM; on failure
 * 'ini' is still safe to ini_release().
 */
enum s3c_err ini_parse(struct ini *ini, struct sv text, const char *label, struct s3c_error *e);

/*
 * Read and parse the file at 'path'. A file that does not exist (or is a
 * directory, which botocore also skips) is not an error: *found is set to
 * false and 'ini' stays empty. Other read failures are S3C_ECONFIG, files
 * over INI_MAX_BYTES are S3C_ECONFIG, and parse errors S3C_EPARSE; all
 * messages start with 'label'.
 */
enum s3c_err ini_load_file(struct ini *ini, const char *path, const char *label, bool *found,
                           struct s3c_error *e);

/* The last section (not "DEFAULT") named exactly 'name', or NULL. */
const struct ini_section *ini_section_find(const struct ini *ini, const char *name);

/*
 * The entry 'key' (lower-case) of section 's', falling back to the DEFAULT
 * section as RawConfigParser does. 's' may be NULL (then only DEFAULT is
 * not consulted either: NULL means "no such section"). Returns NULL if absent.
 */
const struct ini_entry *ini_get(const struct ini *ini, const struct ini_section *s,
                                const char *key);

/* The value of 'key' in a nested entry (last one wins), or NULL. */
const struct ini_pair *ini_sub_get(const struct ini_entry *en, const char *key);

/*
 * botocore's reading of a config-file section header: if 'name' starts with
 * 'kind' ("profile", "services") and splits like a POSIX shell (shlex.split)
 * into exactly two words, copy the second into out (out_size bytes) and
 * return true. "[profile  dev ]" and "[profile \"my dev\"]" name "dev" and
 * "my dev". Like botocore, only the prefix of the first word is checked.
 * False for anything else, including a name too long for 'out'.
 */
bool ini_kind_name(const char *name, const char *kind, char *out, size_t out_size);

/* Free everything; 'ini' becomes INI_INIT. */
void ini_release(struct ini *ini);

#endif
