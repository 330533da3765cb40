/*
 * isotime: an ISO 8601 time as botocore's parser takes the forms AWS services
 * and users write: "2027-01-15", "2027-01-15T10:00:00Z", "...T10:00:00.123+02:00",
 * the basic form "20270115T100000Z", a blank for the 'T', a zone of Z, UTC,
 * GMT, +HH, +HHMM or +HH:MM (none: UTC).
 */
#ifndef S3C_BASE_ISOTIME_H
#define S3C_BASE_ISOTIME_H

#include <stdbool.h>
#include <time.h>

/* 's' as seconds since 1970 (UTC) into *out; false when it is no such time. */
bool iso8601_parse(const char *s, time_t *out);

#endif
