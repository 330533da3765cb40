# tests/e2e/test_limits.sh — issue 6: the machine's limits, met head on.
# shellcheck shell=bash
#
# 10,000 files up and down under an open-files limit of 256 (soft and hard:
# s3c cannot raise it, so it must keep its own files and sockets under it);
# a local disk that fills up halfway through a tree: every file that lands is
# whole, every one that does not is named, nothing half-written stays.

# _l_many DIR N: N small files (1-10 lines each) in 20 directories.
_l_many() {
    python3 - "$1" "$2" <<'PY'
import os, sys
root, n = sys.argv[1], int(sys.argv[2])
for i in range(n):
    d = os.path.join(root, "d%02d" % (i % 20))
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, "f%05d" % i), "w") as f:
        f.write("file %d\n" % i * (1 + i % 10))
PY
}

test_limits_10000_files_under_256_open_files() {
    local b
    t_store_is s3emu ||
        t_skip "the open-files limit is the client's: 10,000 objects run on s3emu only (the shared Ceph does ~1,000 a second)"
    t_new_bucket b
    _l_many src 10000
    # shellcheck disable=SC2016
    assert_ok bash -c 'ulimit -n 256 && exec "$@"' _ timeout -k 5 "$E2E_CMD_TIMEOUT" "$S3C" cp -r --quiet src "s3://$b/t/"
    assert_eq "" "$T_ERR" "stderr of the upload"
    assert_eq 10000 "$(t_list_keys "$b" | wc -l)" "objects uploaded"
    # shellcheck disable=SC2016
    assert_ok bash -c 'ulimit -n 256 && exec "$@"' _ timeout -k 5 "$E2E_CMD_TIMEOUT" "$S3C" cp -r --quiet "s3://$b/t/" dl
    assert_eq "" "$T_ERR" "stderr of the download"
    assert_eq "$(t_tree_sums src)" "$(t_tree_sums dl)" "the tree, down again"
}

test_limits_full_disk_mid_tree_names_each_file_keeps_none_partial() {
    local b mnt=$T_DIR/mnt n_err n_files
    t_new_bucket b
    mkdir -p "$mnt"
    mount -t tmpfs -o size=1m s3c-e2e-full "$mnt" 2>/dev/null ||
        t_skip "cannot mount a 1 MiB tmpfs here (needs root and mount rights)"
    t_at_exit 'umount "'"$mnt"'"'
    # 200 files of 8 KiB (1.6 MB): about half fit; each is one write, no
    # space reserved up front, so the disk fills in the middle of writes.
    mkdir -p src
    for i in $(seq -w 1 200); do head -c 8192 /dev/urandom > "src/f$i"; done
    t_seed_tree "$b" src t/
    assert_exit 1 s3c cp -r "s3://$b/t/" "$mnt/d"
    n_err=$(grep -c . <<<"$T_ERR")
    n_files=$(find "$mnt/d" -type f | wc -l)
    [ "$n_err" -gt 0 ] || t_fail "no error line: everything fit"
    [ "$n_files" -gt 0 ] || t_fail "no file landed"
    assert_eq 200 $((n_err + n_files)) "error lines + files landed"
    [ -z "$(grep -v 'No space left on device' <<<"$T_ERR")" ] || t_fail "an error line that is not about space"
    # (named as the AWS CLI names it: relative to the working directory, the test's)
    assert_match "$T_ERR" "^download failed: s3://$b/t/f[0-9]{3} to mnt/d/f[0-9]{3} " "error lines name the file"
    assert_eq "" "$(find "$mnt/d" -name '.s3c-*')" "temp files left"
    # Whatever landed is whole.
    (cd "$mnt/d" && sha256sum f*) > got.sums
    (cd src && sha256sum f*) > all.sums
    while IFS= read -r line; do
        grep -qxF "$line" all.sums || t_fail "a partial file: $line"
    done < got.sums
}
