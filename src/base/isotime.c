/*
 * isotime: ISO 8601 times as botocore's parser takes them. Moved here from
 * the credential chain (auth/creds_time.c), which reads its expirations with
 * it, so that the verbs read --expires the same way. Pure: no clock, no I/O.
 */
#include "base/isotime.h"

#include <string.h>

/* Exactly 'n' digits at *p into *v; advances *p. */
static bool digits(const char **p, int n, int *v)
{
    int i;

    *v = 0;
    for (i = 0; i < n; i++) {
        if ((*p)[i] < '0' || (*p)[i] > '9')
            return false;
        *v = *v * 10 + ((*p)[i] - '0');
    }
    *p += n;
    return true;
}

static bool accept(const char **p, char c)
{
    if (**p != c)
        return false;
    (*p)++;
    return true;
}

/* The zone suffix at p: "", Z, UTC, GMT, +HH, +HHMM, +HH:MM (an optional blank before). */
static bool zone(const char *p, long *offset_s)
{
    int hh = 0, mm = 0;
    int sign;

    *offset_s = 0;
    if (*p == ' ')
        p++;
    if (!*p)
        return true;
    if ((p[0] == 'Z' || p[0] == 'z') && !p[1])
        return true;
    if (!strcmp(p, "UTC") || !strcmp(p, "GMT"))
        return true;
    if (*p != '+' && *p != '-')
        return false;
    sign = *p++ == '-' ? -1 : 1;
    if (!digits(&p, 2, &hh))
        return false;
    if (*p == ':')
        p++;
    if (*p && !digits(&p, 2, &mm))
        return false;
    if (*p || hh > 23 || mm > 59)
        return false;
    *offset_s = sign * (hh * 3600L + mm * 60L);
    return true;
}

bool iso8601_parse(const char *s, time_t *out)
{
    const char *p = s;
    struct tm tm;
    int y, mo, d, h = 0, mi = 0, sec = 0;
    bool basic;
    long off;
    time_t t;

    if (!s || !digits(&p, 4, &y))
        return false;
    basic = *p != '-';
    if (!basic)
        p++;
    if (!digits(&p, 2, &mo) || (!basic && !accept(&p, '-')) || !digits(&p, 2, &d))
        return false;
    if (*p == 'T' || *p == 't' || (*p == ' ' && p[1] >= '0' && p[1] <= '9')) {
        p++;
        if (!digits(&p, 2, &h) || (!basic && !accept(&p, ':')) || !digits(&p, 2, &mi))
            return false;
        if ((!basic && accept(&p, ':')) || (basic && *p >= '0' && *p <= '9')) {
            if (!digits(&p, 2, &sec))
                return false;
            if (*p == '.' || *p == ',') {
                p++;
                if (*p < '0' || *p > '9')
                    return false;
                while (*p >= '0' && *p <= '9')
                    p++;            /* fractions of a second do not matter here */
            }
        }
    }
    if (!zone(p, &off) || mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 || mi > 59 || sec > 60)
        return false;
    memset(&tm, 0, sizeof(tm));
    tm.tm_year = y - 1900;
    tm.tm_mon = mo - 1;
    tm.tm_mday = d;
    tm.tm_hour = h;
    tm.tm_min = mi;
    tm.tm_sec = sec;
    t = timegm(&tm);
    if (t == (time_t)-1)
        return false;
    *out = t - off;
    return true;
}

