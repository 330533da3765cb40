/* The engine's object phases (xfer/obj.c): the table of legal moves obj_phase_set checks. */
#include "t.h"

#include "xfer/engine.h"

/* Setting the phase an object has is no move; from every phase an object can end (obj_fail). */
TEST(xfer_phase_every_phase_can_end)
{
    int p;

    for (p = 0; p < PH_COUNT; p++) {
        CHECK(obj_phase_legal(p, p));
        CHECK(obj_phase_legal(p, PH_END));
        CHECK(obj_phase_name(p) != NULL);
    }
    CHECK_STR(obj_phase_name(PH_NEW), "NEW");
    CHECK_STR(obj_phase_name(PH_END), "END");
}

/* The moves the families make: a multipart upload, a ranged download, a small one, a copy's tags. */
TEST(xfer_phase_the_families_moves_are_legal)
{
    static const enum obj_phase upload[] = { PH_NEW, PH_CREATE, PH_PARTS, PH_COMPLETE, PH_END };
    static const enum obj_phase failed_upload[] = { PH_NEW, PH_CREATE, PH_PARTS, PH_ABORT, PH_END };
    static const enum obj_phase ranged[] = { PH_NEW, PH_OPEN, PH_PROBE, PH_PARTS, PH_VERIFY, PH_PARTS, PH_END };
    /* a download to a temp file a worker makes first: one GET, or ranges unchecked */
    static const enum obj_phase one_get[] = { PH_NEW, PH_CHECK, PH_OPEN, PH_SINGLE, PH_END };
    static const enum obj_phase ranged_unchecked[] = { PH_NEW, PH_OPEN, PH_PARTS, PH_END };
    static const enum obj_phase small[] = { PH_NEW, PH_SINGLE, PH_LAND, PH_END };
    static const enum obj_phase tags[] = { PH_NEW, PH_CREATE, PH_PARTS, PH_COMPLETE, PH_SINGLE, PH_END };
    static const enum obj_phase late_create[] = { PH_NEW, PH_CREATE, PH_END, PH_ABORT, PH_END };
    /* the destination looked at first (check.c): skipped, or started as from NEW */
    static const enum obj_phase checked_skip[] = { PH_NEW, PH_CHECK, PH_END };
    static const enum obj_phase checked_put[] = { PH_NEW, PH_CHECK, PH_SINGLE, PH_END };
    static const enum obj_phase checked_mpu[] = { PH_NEW, PH_CHECK, PH_CREATE, PH_PARTS, PH_COMPLETE, PH_END };
    /* the source looked at first (a key list's key, check.c): then the destination, or the family;
     * or it failed */
    static const enum obj_phase source_small[] = { PH_NEW, PH_SOURCE, PH_SINGLE, PH_LAND, PH_END };
    static const enum obj_phase source_ranged[] = { PH_NEW, PH_SOURCE, PH_OPEN, PH_PROBE, PH_PARTS, PH_END };
    static const enum obj_phase source_checked[] = { PH_NEW, PH_SOURCE, PH_CHECK, PH_CREATE, PH_PARTS,
                                                     PH_COMPLETE, PH_END };
    static const enum obj_phase source_refused[] = { PH_NEW, PH_SOURCE, PH_END };
    /* sync's same second proven first (prove.c): the same, skipped; or no proof, started as from NEW */
    static const enum obj_phase proven_same[] = { PH_NEW, PH_PROVE, PH_END };
    static const enum obj_phase unproven_put[] = { PH_NEW, PH_PROVE, PH_SINGLE, PH_END };
    static const enum obj_phase unproven_get[] = { PH_NEW, PH_PROVE, PH_OPEN, PH_PROBE, PH_PARTS, PH_END };
    static const enum obj_phase unproven_mpu[] = { PH_NEW, PH_PROVE, PH_CREATE, PH_PARTS, PH_COMPLETE, PH_END };
    /* UploadPartCopy refused (501): aborted, then one CopyObject (copy_redo) */
    static const enum obj_phase part_copy_refused[] = { PH_NEW, PH_CREATE, PH_PARTS, PH_ABORT, PH_END, PH_SINGLE,
                                                        PH_END };
    /* a relay (copy.c): its source's tags, then one GET and PutObject; or a copy refused with the
     * destination's keys (403) or over 5 GiB without UploadPartCopy, aborted, then relayed in parts */
    static const enum obj_phase relay_small[] = { PH_NEW, PH_CREATE, PH_SINGLE, PH_END };
    static const enum obj_phase copy_relayed[] = { PH_NEW, PH_CREATE, PH_PARTS, PH_ABORT, PH_END, PH_CREATE,
                                                   PH_PARTS, PH_COMPLETE, PH_END };
    const struct {
        const enum obj_phase *p;
        size_t n;
    } paths[] = {
        { upload, 5 },          { failed_upload, 5 }, { ranged, 7 }, { one_get, 5 }, { ranged_unchecked, 4 },
        { small, 4 },           { tags, 6 },          { late_create, 5 },
        { checked_skip, 3 }, { checked_put, 4 }, { checked_mpu, 6 },
        { part_copy_refused, 7 }, { source_small, 5 }, { source_ranged, 6 }, { source_checked, 7 },
        { source_refused, 3 }, { proven_same, 3 }, { unproven_put, 4 }, { unproven_get, 6 }, { unproven_mpu, 6 },
        { relay_small, 4 }, { copy_relayed, 9 },
    };
    size_t i, j;

    for (i = 0; i < sizeof(paths) / sizeof(paths[0]); i++)
        for (j = 1; j < paths[i].n; j++)
            if (!obj_phase_legal(paths[i].p[j - 1], paths[i].p[j]))
                t_fail(__FILE__, __LINE__, "path %zu: %s -> %s refused", i, obj_phase_name(paths[i].p[j - 1]),
                       obj_phase_name(paths[i].p[j]));
}

/* What no object does: back to NEW, out of END but to abort a late upload or redo a copy (in one
 * request, or as a relay), parts after a Complete. */
TEST(xfer_phase_illegal_moves_are_refused)
{
    int p;

    for (p = 0; p < PH_COUNT; p++) {
        if (p != PH_NEW)
            CHECK(!obj_phase_legal(p, PH_NEW));
        if (p != PH_END && p != PH_ABORT && p != PH_SINGLE && p != PH_CREATE)
            CHECK(!obj_phase_legal(PH_END, p));
    }
    CHECK(!obj_phase_legal(PH_COMPLETE, PH_PARTS));
    CHECK(!obj_phase_legal(PH_ABORT, PH_PARTS));
    CHECK(!obj_phase_legal(PH_LAND, PH_PARTS));
    CHECK(!obj_phase_legal(PH_SINGLE, PH_PARTS));
    CHECK(!obj_phase_legal(PH_PROBE, PH_SINGLE));
    CHECK(!obj_phase_legal(PH_PARTS, PH_OPEN)); /* the temp file is made once, before any request */
    CHECK(!obj_phase_legal(PH_OPEN, PH_LAND));
    /* The check comes first (after the source's HEAD or the same second's proof) or not at all; the
     * source's HEAD first of all; the proof from NEW only. */
    for (p = 0; p < PH_COUNT; p++) {
        if (p != PH_NEW && p != PH_SOURCE && p != PH_PROVE && p != PH_CHECK)
            CHECK(!obj_phase_legal(p, PH_CHECK));
        if (p != PH_NEW && p != PH_SOURCE)
            CHECK(!obj_phase_legal(p, PH_SOURCE));
        if (p != PH_NEW && p != PH_PROVE)
            CHECK(!obj_phase_legal(p, PH_PROVE));
    }
}
