# tests/e2e/test_express_append.sh — issue 26 item 4: a stream of unknown
# size (pipe, cp -) to a directory bucket goes as appends (PutObject with
# x-amz-write-offset-bytes), one at a time, and a HEAD proves the whole by its
# size and CRC; an object already at the key is replaced whole by a multipart
# upload instead; an append whose answer was lost but landed is found by the
# HEAD; a stream that fails deletes what its appends left. On s3emu's Express
# mode, an emulator of the test's own (faults are the whole emulator's); Ceph
# and moto have no directory buckets.
# shellcheck shell=bash

# _xa_stdin RC FILE ARGS...: s3c ARGS with FILE as its standard input; its exit must be RC.
_xa_stdin() {
    local rc=$1 f=$2
    shift 2
    t_cmd bash -c 'f=$1; shift; exec "$0" "$@" < "$f"' "$S3C" "$f" "$@"
    assert_eq "$rc" "$T_RC" "exit status of s3c $*"
}

_xa_setup() {
    t_own_emu
    t_at_exit _x_cleanup
    _x_bucket "$1" app
    assert_ok s3c mb "s3://${!1}"
}

# 20,000,000 bytes through pipe: 3 appends of 8 MiB parts (8, 8, the rest),
# no multipart upload, one HEAD; the object reads back byte for byte and its
# stored CRC64NVME is the whole stream's.
test_express_append_pipe() {
    local b
    _xa_setup b
    _x_file data 20000000
    t_emu_set "reset_stats=1"
    _xa_stdin 0 data pipe "s3://$b/log"
    assert_eq 3 "$(t_emu_ops AppendObject)" "appends"
    assert_eq 0 "$(t_emu_ops PutObject)" "plain PutObject requests"
    assert_eq 0 "$(t_emu_ops CreateMultipartUpload)" "multipart uploads"
    assert_eq 1 "$(t_emu_ops HeadObject)" "HEADs (the proof)"
    assert_ok s3c cat "s3://$b/log"
    assert_ok s3c cp "s3://$b/log" back
    cmp -s data back || t_fail "the appended object differs from the stream"
    # The same through cp - with a slow producer: reads and appends interleave.
    t_cmd bash -c '{ head -c 9000000 "$2"; sleep 0.5; tail -c +9000001 "$2"; } | "$0" cp - "$1"' "$S3C" "s3://$b/log2" data
    assert_eq 0 "$T_RC" "exit status of cp -"
    assert_ok s3c cp "s3://$b/log2" back2
    cmp -s data back2 || t_fail "cp - : the appended object differs from the stream"
}

# A stream that fits one part is one PutObject; --expected-size makes it a
# multipart upload (parallel parts), as on any bucket.
test_express_append_small_and_sized_streams() {
    local b
    _xa_setup b
    _x_file small 100000
    _x_file big 20000000
    t_emu_set "reset_stats=1"
    _xa_stdin 0 small pipe "s3://$b/small"
    _xa_stdin 0 big pipe --expected-size 20000000 "s3://$b/big"
    assert_eq 0 "$(t_emu_ops AppendObject)" "appends"
    assert_eq 1 "$(t_emu_ops PutObject)" "PutObject requests"
    assert_eq 1 "$(t_emu_ops CreateMultipartUpload)" "multipart uploads"
    assert_ok s3c cp "s3://$b/big" big.back
    cmp -s big big.back || t_fail "the sized stream read back differs"
}

# pipe onto a key that holds an object: the first append (offset 0) is
# refused with InvalidWriteOffset, and a multipart upload replaces the
# object whole: the new bytes only, nothing of the old appended to.
test_express_append_onto_an_object_replaces_it() {
    local b
    _xa_setup b
    _x_file old 12000000
    _x_file new 20000000
    _xa_stdin 0 old pipe "s3://$b/k"
    t_emu_set "reset_stats=1"
    _xa_stdin 0 new pipe "s3://$b/k"
    assert_eq 1 "$(t_emu_ops AppendObject)" "appends (the refused first)"
    assert_eq 1 "$(t_emu_ops CreateMultipartUpload)" "multipart uploads"
    assert_eq 1 "$(t_emu_ops CompleteMultipartUpload)" "completes"
    assert_ok s3c cp "s3://$b/k" back
    cmp -s new back || t_fail "the object is not the new stream"
}

# The second append lands but its answer is lost (a 500 after it is stored):
# the retry is refused with InvalidWriteOffset, the HEAD finds the bytes
# there, and the stream goes on: exit 0, the object is the stream.
test_express_append_lost_answer_landed() {
    local b
    _xa_setup b
    _x_file data 30000000
    t_emu_set "reset_stats=1"
    t_emu_set "faults=lost-reply@op=AppendObject,nth=2"
    _xa_stdin 0 data pipe --debug "s3://$b/k"
    assert_contains "$T_ERR" "its answer was lost, but it landed"
    t_emu_set "faults="
    assert_eq 5 "$(t_emu_ops AppendObject)" "appends (4 and the retry)"
    assert_ok s3c cp "s3://$b/k" back
    cmp -s data back || t_fail "the object is not the stream"
}

# Appends refused for good after the first (a 403 on the second): exit 1,
# an error that says the bytes appended are deleted, and no object left
# where a reader would take a part of the stream for the whole.
test_express_append_failed_stream_leaves_nothing() {
    local b
    _xa_setup b
    _x_file data 30000000
    t_emu_set "faults=deny@op=AppendObject,nth=2"
    _xa_stdin 1 data pipe "s3://$b/k"
    assert_contains "$T_ERR" "bytes appended to s3://$b/k are deleted"
    t_emu_set "faults="
    assert_exit 1 s3c ls "s3://$b/k"
    assert_eq "" "$T_OUT" "objects left at the key"
}

# --resume: a stream that fails after 2 appends keeps them (the error says
# how many bytes); the same command with the same input HEADs the object,
# checks the stream's first 16 MiB against its CRC and appends the rest
# (2 appends). Again: nothing to append. Another stream of the same length,
# or a shorter one, appends nothing and says why; the object is unchanged.
test_express_append_resume() {
    local b
    _xa_setup b
    _x_file data 30000000
    _x_file other 30000000
    t_emu_set "faults=deny@op=AppendObject,nth=3"
    _xa_stdin 1 data pipe --resume "s3://$b/k"
    assert_contains "$T_ERR" "keeps the stream's first 16777216 bytes"
    t_emu_set "faults="
    t_emu_set "reset_stats=1"
    _xa_stdin 0 data pipe --resume "s3://$b/k"
    assert_eq 2 "$(t_emu_ops AppendObject)" "appends of the rest"
    assert_eq 2 "$(t_emu_ops HeadObject)" "HEADs (what the object holds, the proof)"
    assert_ok s3c cp "s3://$b/k" back
    cmp -s data back || t_fail "the resumed object is not the stream"
    t_emu_set "reset_stats=1"
    _xa_stdin 0 data pipe --resume "s3://$b/k"
    assert_eq 0 "$(t_emu_ops AppendObject)" "appends to a whole object"
    _xa_stdin 1 other pipe --resume "s3://$b/k"
    assert_contains "$T_ERR" "is not the start of this stream"
    assert_contains "$T_ERR" "nothing appended"
    head -c 1000000 data > short
    _xa_stdin 1 short pipe --resume "s3://$b/k"
    assert_contains "$T_ERR" "but the stream ends after"
    assert_ok s3c cp "s3://$b/k" back2
    cmp -s data back2 || t_fail "a refused resume changed the object"
}
