/*
 * wild: wildcard patterns in source arguments, as s5cmd reads them, and the
 * fnmatch-style matcher that --exclude/--include use (plan/filter.h).
 * Pure functions: no I/O, no allocation except into a caller's buf.
 *
 * The s5cmd pattern language (wild_has, wild_prefix, wild_match,
 * wild_relative), chosen after s5cmd's storage/url:
 *
 *   *     any run of characters, '/' included ("d*.txt" matches
 *         "dir/a/b.txt"): s5cmd turns '*' into the regexp ".*?".
 *   **    the same as '*' (s5cmd gives it no meaning of its own).
 *   ?     exactly one character, '/' included. A character is one UTF-8
 *         code point; a byte that is not valid UTF-8 counts as one character
 *         (as Go's regexp counts it).
 *   \* \? \\   a literal '*', '?' or '\' (an s3c addition: s5cmd has no
 *         escape and offers only --raw). A '\' before any other byte is a
 *         plain backslash, so "a\b" still means the key "a\b".
 *
 * A pattern matches the WHOLE key (or local path), anchored at both ends.
 * One difference from s5cmd: s5cmd's '*' and '?' do not match a newline
 * (Go's "." excludes '\n'); here they do, so no key escapes a pattern.
 * Local paths are matched one component at a time (wild_path_match), as
 * s5cmd's filepath.Glob does: there '*' and '?' do not cross '/'.
 *
 * How an argument maps to a listing: the literal prefix (everything before
 * the first unescaped wildcard) is the S3 ListObjectsV2 prefix, sent with no
 * delimiter; every listed key is then tested with wild_match(). Examples are
 * below the comment, as line comments (a slash-star cannot sit in this one).
 *
 * With --raw the caller does not call these functions at all: the argument
 * is one literal key.
 */
//   argument                listing prefix    pattern
//   s3://b/dir/*.txt        "dir/"            "dir/*.txt"
//   s3://b/dir/log-2?.gz    "dir/log-2"       "dir/log-2?.gz"
//   s3://b/*                ""                "*"
//   logs/2024-* (local)     walk wild_prefix_dir() = "logs/", match "logs/" + rel
//   *.txt (local)           walk ".", match rel against "*.txt"
#ifndef S3C_PLAN_WILD_H
#define S3C_PLAN_WILD_H

#include <stdbool.h>
#include <stddef.h>

#include "base/buf.h"
#include "base/err.h"
#include "base/str.h"

/* True if 's' holds an unescaped '*' or '?'. */
bool wild_has(const char *s);

/*
 * Length in bytes of the raw text of 'pattern' before its first unescaped
 * wildcard (all of it when there is none). Escapes are still in that text.
 */
size_t wild_prefix_len(const char *pattern);

/*
 * Append the literal prefix of 'pattern' to 'out', escapes removed: the S3
 * listing prefix, or (up to and including its last '/') the local directory
 * to walk. For a pattern without wildcards this is the whole literal key.
 * S3C_ENOMEM when 'out' is at its cap.
 */
enum s3c_err wild_prefix(const char *pattern, struct buf *out);

/*
 * Append the literal prefix up to and including its last '/' ("" if it has
 * none), escapes removed: for a local pattern, the directory to walk ("."
 * when empty) and the text to put before each walked relative path to get
 * the string to match. S3C_ENOMEM when 'out' is at its cap.
 */
enum s3c_err wild_prefix_dir(const char *pattern, struct buf *out);

/*
 * A name given without a wildcard (wild_has false), in place: its escapes
 * removed ("star\\*key" is the key "star*key"), what every verb takes it to
 * name. Shortens, never lengthens. Not for a name with a wildcard (its
 * escapes are the pattern's) nor for --raw or a destination (literal).
 */
void wild_unescape(char *s);

/* The length of the raw text of that directory in 'pattern' (escapes kept): what follows it is
 * the pattern of the names under it (a sync's destination matches its rels against that). */
size_t wild_prefix_dir_len(const char *pattern);

/*
 * True if 's' (all of it) matches 'pattern'. Runs in O(len(pattern) *
 * len(s)) time at worst, O(1) space: a '*' is never backtracked into more
 * than once, so "a*a*a*a*b" against a megabyte of 'a' stays linear.
 */
bool wild_match(const char *pattern, struct sv s);

/*
 * A local path against a pattern, as s5cmd's filepath.Glob reads it: one
 * component at a time, so '*' and '?' never match a '/' ("d1/STAR.txt" is
 * not "d1/d2/deep.txt"). wild_path_match: the path's first components match
 * the pattern's one to one; a path longer than the pattern lies under a
 * directory that matched, and is taken whole, as s5cmd walks a matched
 * directory. wild_path_enter: whether anything under the directory 'dir'
 * can match, so a walk never enters (nor warns about) what cannot. (STAR is
 * '*', which cannot sit in this comment.)
 */
bool wild_path_match(const char *pattern, struct sv path);
bool wild_path_enter(const char *pattern, struct sv dir);

/*
 * The destination-relative name of 'key', which matched 'pattern', as s5cmd
 * names it: the part of the key after the last '/' of the pattern's literal
 * prefix; the whole key if that prefix has no '/' (or, defensively, if 'key'
 * does not start with the prefix). A view into 'key'.
 */
//   pattern       key             relative name
//   "dir/*.txt"   "dir/a/b.txt"   "a/b.txt"
//   "dir/a*"      "dir/ab/c"      "ab/c"
//   "a/b"         "a/b"           "b"          (no wildcard: the base name)
//   "*.txt"       "x/y.txt"       "x/y.txt"
struct sv wild_relative(const char *pattern, struct sv key);

/*
 * The base name of 'key' for --flatten: what follows the last '/', after
 * trailing '/'s are dropped ("a/b/" -> "b"). A view into 'key'.
 */
struct sv wild_base(struct sv key);

/*
 * Python's fnmatch.fnmatchcase(s, pattern) on POSIX, which is what the AWS
 * CLI's --exclude/--include use: '*' any run (with '/'), '?' one character,
 * "[seq]" one character in seq, "[!seq]" one not in seq, with ranges "a-z";
 * "[^a]" is NOT a negation (it is '^' or 'a'), a ']' first in the set is a
 * member, an unclosed '[' is a literal, a backslash is an ordinary
 * character, and a reversed range ("z-a") matches nothing. Characters are
 * code points; each byte that is not valid UTF-8 is one character (Python's
 * surrogateescape). Same time bound as wild_match.
 */
bool wild_fnmatch(struct sv pattern, struct sv s);

/*
 * wild_fnmatch against the concatenation of up to three pieces (unused ones
 * empty), without building it: for "root" "/" "rel". Pieces must join at
 * ASCII bytes for UTF-8 decoding to equal that of the whole (a '/' does).
 */
bool wild_fnmatch3(struct sv pattern, struct sv a, struct sv b, struct sv c);

#endif
