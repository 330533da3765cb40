/*
 * mime: an upload's Content-Type from its file name, as the AWS CLI guesses
 * it (Python's mimetypes.guess_type, strict): the system's mime.types files
 * (/etc/mime.types, Debian's media-types, and the others Python reads) over
 * CPython 3.11's built-in table; ".tgz" and the like read as ".tar.gz", and
 * an encoding suffix (.gz .Z .bz2 .xz .br) names no type of its own
 * ("a.tar.gz" is application/x-tar, "a.gz" nothing); a type suffix matched
 * in any case ("X.TXT" is text/plain).
 */
#ifndef S3C_BASE_MIME_H
#define S3C_BASE_MIME_H

#include <stdbool.h>

/*
 * Read the mime.types files, once (thread-safe; later calls return at once).
 * Call it before the engine runs: mime_guess never reads a file, and before
 * this it knows the built-in table only.
 */
void mime_load(void);

/* The type of 'path' (a local file name), or NULL when none is guessed (S3 then stores
 * binary/octet-stream). Thread-safe after mime_load. */
const char *mime_guess(const char *path);

#endif
