# tests/e2e/test_dropin_flags.sh — issue 23 item 10 (the AWS CLI's missing
# flags) and item 2 (s5cmd's global flags): each does what it does in the
# peer, checked against the AWS CLI on the same store where it can do the
# same, and against s5cmd's source (named at each expectation) where not.
# shellcheck shell=bash

# A store of the test's own (s3emu: GLACIER objects refuse GET and copies
# until restored, as S3), for the AWS CLI and s3c alike.
_df_own_emu() {
    t_own_store emu
    # shellcheck disable=SC2034  # read by lib.sh (awsx, s3curl, t_store_is)
    S3C_TEST_ENDPOINT=$OWN_URL S3C_TEST_STORE=s3emu
    export AWS_ENDPOINT_URL=$OWN_URL
}

# Run "$@" through the AWS CLI and s3c (as `aws s3 ...` and `s3c ...`) with
# --only-show-errors: the same exit code and the same stderr, or fail.
_df_same() {
    local what=$1 aerr arc; shift
    t_cmd awsx s3 "$@" --only-show-errors
    aerr=$T_ERR arc=$T_RC
    t_cmd s3c "$@" --only-show-errors
    assert_eq "$arc" "$T_RC" "$what: the exit code (the AWS CLI's $arc)"
    assert_eq "$aerr" "$T_ERR" "$what: stderr"
}

# A GLACIER or DEEP_ARCHIVE object, not restored, is skipped by downloads and
# copies with the AWS CLI's warning (awscli/customizations/s3/s3handler.py,
# _warn_glacier) and exit 2; --ignore-glacier-warnings skips it silently (exit
# 0); --force-glacier-transfer tries anyway (S3 then refuses: exit 1); once
# restored (x-amz-restore: ongoing-request="false") a single object goes.
# A recursive transfer knows the class from the listing only, so a restored
# object is skipped there too, as the AWS CLI skips it.
test_dropin_flags_glacier_objects_as_the_aws_cli() {
    local b
    [ -x "$AWS_CLI" ] || t_skip "no AWS CLI at $AWS_CLI"
    _df_own_emu
    t_new_bucket b
    printf cold > f
    assert_ok awsx s3 cp --only-show-errors --storage-class GLACIER f "s3://$b/g"
    assert_ok awsx s3 cp --only-show-errors --storage-class DEEP_ARCHIVE f "s3://$b/d/a"
    assert_ok awsx s3 cp --only-show-errors f "s3://$b/d/b"
    _df_same "cp of a GLACIER object" cp "s3://$b/g" out
    assert_eq 2 "$T_RC" "exit code of the skipped download"
    assert_contains "$T_ERR" "warning: Skipping file s3://$b/g. Object is of storage class GLACIER. Unable to perform download operations on GLACIER objects. You must restore the object to be able to perform the operation. See aws s3 download help for additional parameter options to ignore or force these transfers."
    [ ! -e out ] || t_fail "the skipped object was written"
    _df_same "cp --recursive" cp --recursive "s3://$b/d" s3c-dl
    assert_eq "b" "$(ls s3c-dl)" "what the recursive download wrote"
    _df_same "cp S3 to S3" cp --recursive "s3://$b/d/" "s3://$b/copy/"
    assert_contains "$T_ERR" "Unable to perform copy operations on GLACIER objects"
    _df_same "sync" sync "s3://$b/d" s3c-sync
    _df_same "mv" mv "s3://$b/d/a" moved
    assert_ok awsx s3api head-object --bucket "$b" --key d/a   # the source is kept
    _df_same "--ignore-glacier-warnings" cp --ignore-glacier-warnings --recursive "s3://$b/d" quiet
    assert_eq 0 "$T_RC" "exit code with --ignore-glacier-warnings"
    assert_eq "" "$T_ERR" "stderr with --ignore-glacier-warnings"
    t_cmd awsx s3 cp --only-show-errors --force-glacier-transfer "s3://$b/g" forced
    assert_exit "$T_RC" s3c cp --only-show-errors --force-glacier-transfer "s3://$b/g" forced
    assert_contains "$T_ERR" "InvalidObjectState"
    # Restored: the HEAD says so, and the object is downloaded.
    assert_ok awsx s3api restore-object --bucket "$b" --key g --restore-request Days=1
    assert_ok s3c head "s3://$b/g"
    assert_contains "$T_OUT" 'ongoing-request=\"false\"'
    _df_same "cp of a restored object" cp "s3://$b/g" restored
    assert_eq 0 "$T_RC" "exit code of the restored download"
    assert_eq cold "$(cat restored)" "the restored object's bytes"
    _df_same "cp --recursive of a restored object" cp --recursive "s3://$b/" all --exclude 'd/*' --exclude 'copy/*'
    assert_eq 2 "$T_RC" "a listed GLACIER object is skipped even when restored"
}

# --grants and --website-redirect on uploads and S3 to S3 copies: the same
# ACL (get-object-acl) and the same WebsiteRedirectLocation as the AWS CLI
# gives (RequestParamsMapper._set_grant_params: PERMISSION=GRANTEE into
# x-amz-grant-*, the grantee as given; nargs '+'). moto keeps grants; s3emu
# keeps canned ACLs only.
test_dropin_flags_grants_and_website_redirect_as_the_aws_cli() {
    local b who=http://acs.amazonaws.com/groups/global/AllUsers sc ac
    local owner=75aa57f09aa0c8caeab4f8c24e99d10f8e7faeebf76c078efc7c6caea54ba06a
    [ -x "$AWS_CLI" ] || t_skip "no AWS CLI at $AWS_CLI"
    t_own_store moto
    # shellcheck disable=SC2034  # read by lib.sh (awsx, s3curl, t_store_is)
    S3C_TEST_ENDPOINT=$OWN_URL S3C_TEST_STORE=moto
    export AWS_ENDPOINT_URL=$OWN_URL
    t_new_bucket b
    printf x > f
    assert_ok s3c cp f "s3://$b/s3c" --grants "read=uri=$who" "full=id=$owner" --website-redirect /elsewhere
    assert_ok awsx s3 cp --only-show-errors f "s3://$b/aws" --grants "read=uri=$who" "full=id=$owner" \
        --website-redirect /elsewhere
    assert_ok s3c cp --grants "readacl=uri=$who" --website-redirect https://example.com/ "s3://$b/s3c" "s3://$b/s3c-copy"
    assert_ok awsx s3 cp --only-show-errors --grants "readacl=uri=$who" --website-redirect https://example.com/ \
        "s3://$b/aws" "s3://$b/aws-copy"
    for k in "" -copy; do
        assert_ok awsx s3api get-object-acl --bucket "$b" --key "aws$k"
        ac=$T_OUT
        assert_ok awsx s3api get-object-acl --bucket "$b" --key "s3c$k"
        assert_eq "$ac" "$T_OUT" "the ACL of s3c$k"
        assert_ok awsx s3api head-object --bucket "$b" --key "aws$k"
        ac=$(jq -r .WebsiteRedirectLocation <<<"$T_OUT")
        assert_ok awsx s3api head-object --bucket "$b" --key "s3c$k"
        sc=$(jq -r .WebsiteRedirectLocation <<<"$T_OUT")
        assert_eq "$ac" "$sc" "WebsiteRedirectLocation of s3c$k"
    done
    assert_contains "$ac" "https://example.com/"
    assert_ok awsx s3api get-object-acl --bucket "$b" --key s3c
    assert_contains "$T_OUT" '"Permission": "READ"'
    assert_contains "$T_OUT" '"Permission": "FULL_CONTROL"'
    # A malformed grant is refused before anything is sent (MIGRATING.md).
    assert_exit 252 s3c cp f "s3://$b/bad" --grants foo=id=1
    assert_contains "$T_ERR" "read|readacl|writeacl|full"
    assert_exit 252 s3c cp f "s3://$b/bad" --grants read
}

# --page-size N: each list request of cp, mv, rm and sync asks for N keys, as
# the AWS CLI's PaginationConfig PageSize (subcommands.py, PAGE_SIZE): as many
# ListObjectsV2 requests as the AWS CLI sends for the same listing.
test_dropin_flags_page_size_pages_the_listing_as_the_aws_cli() {
    local b before aws verb
    [ -x "$AWS_CLI" ] || t_skip "no AWS CLI at $AWS_CLI"
    t_store_is s3emu || t_skip "counts requests with s3emu's statistics"
    export S3C_LIST_WIDTH=1     # one page after another, as the AWS CLI
    t_new_bucket b
    mkdir tree
    for i in 1 2 3 4 5 6 7; do printf "$i" > "tree/f$i"; done
    assert_ok s3c cp --recursive tree "s3://$b/t/"
    before=$(t_emu_ops ListObjectsV2)
    assert_ok awsx s3 cp --only-show-errors --recursive --page-size 2 "s3://$b/t/" aws-dl
    aws=$(($(t_emu_ops ListObjectsV2) - before))
    assert_eq 4 "$aws" "the AWS CLI's pages of 2 keys (7 keys)"
    for verb in "cp --recursive s3://$b/t/ dl" "sync s3://$b/t/ sdl" "mv --recursive s3://$b/t/ s3://$b/u/" \
        "rm --recursive s3://$b/u/"; do
        before=$(t_emu_ops ListObjectsV2)
        # shellcheck disable=SC2086
        assert_ok s3c $verb --page-size 2
        t_assert_emu_ops ListObjectsV2 "$before" "$aws"
    done
    assert_eq 7 "$(ls dl | wc -l)" "files downloaded in pages of 2"
    assert_exit 252 s3c rm --recursive --page-size 0 "s3://$b/t/"
}

# The AWS CLI's global options that mean nothing to s3c are accepted, as the
# AWS CLI accepts them, and change nothing: --no-paginate (`aws s3 ls help`:
# "--no-paginate ... ignored for this command"), --no-cli-pager, --color
# on|off|auto (a bad choice: 252, as argparse).
test_dropin_flags_aws_cli_globals_accepted() {
    local b plain
    [ -x "$AWS_CLI" ] || t_skip "no AWS CLI at $AWS_CLI"
    t_new_bucket b
    printf x > f
    assert_ok s3c cp f "s3://$b/p/k"
    assert_ok s3c ls --recursive "s3://$b/"
    plain=$T_OUT
    assert_ok s3c --no-paginate ls --recursive "s3://$b/" --no-cli-pager --color off
    assert_eq "$plain" "$T_OUT" "ls with --no-paginate --no-cli-pager --color off"
    assert_ok awsx --no-paginate s3 ls --recursive "s3://$b/" --no-cli-pager --color off
    assert_eq "$plain" "$T_OUT" "ls: the AWS CLI's lines"
    assert_ok s3c --color auto cp f "s3://$b/q" --no-paginate
    t_cmd awsx --color blue s3 ls "s3://$b/"
    assert_exit "$T_RC" s3c --color blue ls "s3://$b/"
    assert_eq 252 "$T_RC" "exit code of a bad --color"
    assert_contains "$T_ERR" "argument --color: Invalid choice 'blue'"
}

# s5cmd's global flags (command/app.go, the app's Flags) mean in s3c what they
# mean in s5cmd, given before the verb as s5cmd takes them.
test_dropin_flags_s5cmd_globals() {
    local b before
    t_new_bucket b
    printf x > f
    # --dry-run (NewStorageOpts: DryRun): nothing is written; also the verb's.
    assert_ok s3c --dry-run cp f "s3://$b/dry"
    assert_eq "(dryrun) upload: ./f to s3://$b/dry" "$T_OUT" "--dry-run's line"
    assert_ok s3c cp --dry-run f "s3://$b/dry"
    assert_ok s3c --dry-run rm "s3://$b/dry"
    assert_exit 1 s3c ls "s3://$b/dry"
    # --stat (After: log.Stat): the statistics table at the end.
    assert_ok s3c --stat cp f "s3://$b/k"
    assert_contains "$T_OUT" "Operation"
    assert_match "$T_OUT" 'upload +1 +0 +1'
    # --numworkers N (parallel.Init(workerCount)): the fixed concurrency.
    assert_ok s3c --numworkers 3 --debug cp f "s3://$b/k2"
    assert_contains "$T_ERR" "peak concurrency 3"
    # -r/--retry-count N (MaxRetries): N retries after the first try. -r before
    # the verb is --retry-count; after it, cp's --recursive.
    mkdir d; printf y > d/y; printf z > d/z
    assert_ok s3c cp -r d "s3://$b/rec/"
    assert_ok s3c ls "s3://$b/rec/y"
    assert_exit 252 s3c --retry-count -1 ls
    assert_exit 252 s3c -r x ls
    if t_store_is s3emu; then
        curl -sS --fail-with-body -X POST --data-binary "faults=500@bucket=$b,op=PutObject" \
            "$S3C_TEST_ENDPOINT/_s3emu/config" >/dev/null || t_fail "s3emu refused the faults"
        before=$(t_emu_ops PutObject)
        t_cmd s3c -r 0 cp f "s3://$b/fails"
        t_assert_emu_ops PutObject "$before" 1
        before=$(t_emu_ops PutObject)
        t_cmd s3c --retry-count 2 cp f "s3://$b/fails"
        t_assert_emu_ops PutObject "$before" 3
        before=$(t_emu_ops PutObject)
        t_cmd s3c -r=1 cp f "s3://$b/fails"
        t_assert_emu_ops PutObject "$before" 2
        curl -sS -X POST --data-binary "faults=" "$S3C_TEST_ENDPOINT/_s3emu/config" >/dev/null
    fi
    # --credentials-file F (CredentialFile): the shared credentials file.
    printf '[default]\naws_access_key_id = %s\naws_secret_access_key = %s\n' "$AWS_ACCESS_KEY_ID" \
        "$AWS_SECRET_ACCESS_KEY" > creds
    (
        unset AWS_ACCESS_KEY_ID AWS_SECRET_ACCESS_KEY AWS_SESSION_TOKEN
        assert_exit 253 s3c ls "s3://$b/k"
        assert_ok s3c --credentials-file creds ls "s3://$b/k"
    ) || exit 1
    # --log (log.Init): error prints only errors, debug and trace the requests.
    assert_ok s3c --log error cp f "s3://$b/k3"
    assert_eq "" "$T_OUT" "stdout with --log error"
    assert_ok s3c --log trace ls "s3://$b/k3"
    assert_contains "$T_ERR" "debug: http: GET"
    assert_exit 252 s3c --log loud ls
    # --request-payer (RequestPayer): every request says so.
    assert_ok s3c --request-payer requester --debug cp f "s3://$b/k4"
    assert_contains "$T_ERR" "x-amz-request-payer: requester"
    # --use-list-objects-v1 (UseListObjectsV1): ListObjects, not V2.
    if t_store_is s3emu; then
        before=$(t_emu_ops ListObjects)
        assert_ok s3c --use-list-objects-v1 ls "s3://$b/"
        assert_ok s3c --use-list-objects-v1 cp --recursive --page-size 1 "s3://$b/rec/" v1/
        t_assert_emu_ops ListObjects "$before" 3   # ls, then two pages of one key (marker: y)
        assert_eq yz "$(cat v1/y v1/z)" "the V1 listing's download"
    fi
    # --install-completion (printAutocompletionInstructions): how $SHELL gets them.
    SHELL=/bin/bash assert_ok s3c --install-completion
    assert_contains "$T_OUT" "s3c.bash"
    SHELL=/bin/tcsh assert_ok s3c --install-completion
    assert_contains "$T_OUT" "couldn't recognize your SHELL"
    # The run's options are refused on a run file's line, these too.
    printf 'ls --retry-count 2 s3://%s/\n' "$b" > lines
    assert_exit 1 s3c run lines
    assert_contains "$T_ERR" "are the run's"
}

# s5cmd's ls --show-fullpath (command/ls.go, ListMessage.String: the URL
# alone) and head --raw (command/head.go: without it a key with glob
# characters is refused, "can not contain glob characters").
test_dropin_flags_ls_show_fullpath_and_head_raw() {
    local b
    t_new_bucket b
    printf star > star.txt
    t_put "$b" 'w/a%2Ab' star.txt
    t_put "$b" 'w/sub/c' star.txt
    assert_ok s3c ls --show-fullpath "s3://$b/w/"
    assert_eq "$(printf 's3://%s/w/sub/\ns3://%s/w/a*b' "$b" "$b")" "$T_OUT" "ls --show-fullpath"
    assert_ok s3c ls --show-fullpath --recursive "s3://$b/"
    assert_eq "$(printf 's3://%s/w/a*b\ns3://%s/w/sub/c' "$b" "$b")" "$T_OUT" "ls --show-fullpath --recursive"
    assert_ok s3c head --raw "s3://$b/w/a*b"
    assert_contains "$T_OUT" '"ContentLength":4'
    assert_exit 252 s3c head "s3://$b/w/a*b"
    assert_contains "$T_ERR" "can not contain glob characters"
    assert_ok s3c head "s3://$b/w/a\\*b"
}

# s5cmd's cp --destination-region (command/cp.go: "set the region of
# destination bucket"): requests to the destination bucket are signed for it.
test_dropin_flags_destination_region_signs_for_it() {
    local b
    t_store_is s3emu || t_skip "s3emu checks the region of a signature"
    t_new_bucket b
    printf x > f
    assert_ok s3c --debug cp --destination-region eu-west-1 f "s3://$b/k"
    assert_contains "$T_ERR" "the region 'eu-west-1' is wrong"
    assert_ok s3c --debug cp --destination-region us-east-1 f "s3://$b/k"
    assert_not_contains "$T_ERR" "is wrong"
    assert_exit 252 s3c cp --destination-region 'eu west' f "s3://$b/k"
}
