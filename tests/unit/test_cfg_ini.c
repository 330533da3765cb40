/* The INI dialect of the AWS shared config files, as botocore reads it. */
#include "t.h"

#include "cfg/ini.h"

static const char *get(const struct ini *ini, const char *section, const char *key)
{
    const struct ini_entry *en = ini_get(ini, ini_section_find(ini, section), key);
    return en ? en->value : NULL;
}

static enum s3c_err parse(struct ini *ini, const char *text, struct s3c_error *e)
{
    return ini_parse(ini, sv_from(text), "config file cfg", e);
}

TEST(ini_sections_keys_and_comments)
{
    struct ini ini = INI_INIT;
    struct s3c_error e = S3C_ERROR_INIT;

    CHECK_INT(parse(&ini,
                    "# leading comment\n"
                    "[default]\n"
                    "region = us-west-2\n"
                    "  ; indented comment\n"
                    "Output: json\n"
                    "endpoint_url = http://127.0.0.1:9000/base\n"
                    "note = a # not a comment\n"
                    "empty =\n"
                    "\n"
                    "[profile dev]\r\n"
                    "region=eu-west-1\r\n",
                    &e),
              S3C_OK);
    CHECK_INT(ini.n_sections, 2);
    CHECK_STR(get(&ini, "default", "region"), "us-west-2");
    CHECK_STR(get(&ini, "default", "output"), "json");   /* keys are lower-cased */
    CHECK_STR(get(&ini, "default", "endpoint_url"), "http://127.0.0.1:9000/base");
    CHECK_STR(get(&ini, "default", "note"), "a # not a comment");
    CHECK_STR(get(&ini, "default", "empty"), "");
    CHECK_STR(get(&ini, "profile dev", "region"), "eu-west-1");
    CHECK(get(&ini, "default", "missing") == NULL);
    CHECK(ini_section_find(&ini, "dev") == NULL);
    ini_release(&ini);
    CHECK_INT(ini.n_sections, 0);
}

TEST(ini_nested_subsection)
{
    struct ini ini = INI_INIT;
    struct s3c_error e = S3C_ERROR_INIT;
    const struct ini_entry *s3;

    CHECK_INT(parse(&ini,
                    "[profile dev]\n"
                    "s3 =\n"
                    "  max_concurrent_requests = 20\n"
                    "  # a comment inside\n"
                    "\n"
                    "  Multipart_Chunksize=16MB\n"
                    "  max_concurrent_requests = 30\n"
                    "region = us-east-2\n",
                    &e),
              S3C_OK);
    s3 = ini_get(&ini, ini_section_find(&ini, "profile dev"), "s3");
    CHECK(s3 && s3->nested);
    if (s3) {
        CHECK_INT(s3->n_sub, 3);
        CHECK_STR(ini_sub_get(s3, "max_concurrent_requests")->value, "30"); /* last wins */
        CHECK_STR(ini_sub_get(s3, "Multipart_Chunksize")->value, "16MB");  /* case kept */
        CHECK(ini_sub_get(s3, "multipart_chunksize") == NULL);
    }
    CHECK_STR(get(&ini, "profile dev", "region"), "us-east-2");
    ini_release(&ini);
}

TEST(ini_continuation_lines)
{
    struct ini ini = INI_INIT;
    struct s3c_error e = S3C_ERROR_INIT;
    const struct ini_entry *en;

    CHECK_INT(parse(&ini,
                    "[a]\n"
                    "k = first\n"
                    "   second\n"
                    "\n"
                    "   third\n"
                    "\n"
                    "j = x\n",
                    &e),
              S3C_OK);
    en = ini_get(&ini, ini_section_find(&ini, "a"), "k");
    CHECK(en && !en->nested);
    CHECK_STR(en ? en->value : NULL, "first\nsecond\n\nthird");
    CHECK_STR(get(&ini, "a", "j"), "x");
    ini_release(&ini);
}

TEST(ini_default_section_shows_through)
{
    struct ini ini = INI_INIT;
    struct s3c_error e = S3C_ERROR_INIT;

    CHECK_INT(parse(&ini, "[DEFAULT]\nregion = r1\n[x]\nk = v\n[y]\nregion = r2\n", &e), S3C_OK);
    CHECK_STR(get(&ini, "x", "region"), "r1");
    CHECK_STR(get(&ini, "y", "region"), "r2");
    CHECK(ini_section_find(&ini, "DEFAULT") == NULL);
    CHECK(get(&ini, "nope", "region") == NULL);
    ini_release(&ini);
}

TEST(ini_errors_name_file_and_line)
{
    struct ini ini = INI_INIT;
    struct s3c_error e = S3C_ERROR_INIT;

    CHECK_INT(parse(&ini, "region = x\n", &e), S3C_EPARSE);
    CHECK_STR(e.msg, "config file cfg, line 1: text before the first [section] header");
    ini_release(&ini);

    CHECK_INT(parse(&ini, "[a]\nk = 1\n\njunk line\n", &e), S3C_EPARSE);
    CHECK_STR(e.msg, "config file cfg, line 4: expected \"key = value\" or \"[section]\"");
    ini_release(&ini);

    CHECK_INT(parse(&ini, "[a]\n= 1\n", &e), S3C_EPARSE);
    CHECK(strstr(e.msg, "line 2: a key is missing") != NULL);
    ini_release(&ini);

    CHECK_INT(parse(&ini, "[a]\n[b]\n[a]\n", &e), S3C_EPARSE);
    CHECK_STR(e.msg, "config file cfg, line 3: section [a] appears twice (first at line 1)");
    ini_release(&ini);

    CHECK_INT(parse(&ini, "[a]\nk = 1\nK = 2\n", &e), S3C_EPARSE);
    CHECK_STR(e.msg, "config file cfg, line 3: key \"k\" appears twice in section [a]");
    ini_release(&ini);

    CHECK_INT(parse(&ini, "[a]\ns3 =\n  novalue\n", &e), S3C_EPARSE);
    CHECK(strstr(e.msg, "config file cfg, line 2: ") == e.msg);
    ini_release(&ini);
}

TEST(ini_size_cap)
{
    struct ini ini = INI_INIT;
    struct s3c_error e = S3C_ERROR_INIT;
    struct sv big = { "", INI_MAX_BYTES + 1 };

    CHECK_INT(ini_parse(&ini, big, "config file cfg", &e), S3C_EPARSE);
    CHECK(strstr(e.msg, "larger than") != NULL);
    ini_release(&ini);
}

TEST(ini_load_missing_file_is_not_an_error)
{
    struct ini ini = INI_INIT;
    struct s3c_error e = S3C_ERROR_INIT;
    bool found = true;

    CHECK_INT(ini_load_file(&ini, t_fixture("cfg/does-not-exist"), "x", &found, &e), S3C_OK);
    CHECK(!found);
    CHECK_INT(ini_load_file(&ini, t_fixture("cfg"), "x", &found, &e), S3C_OK); /* a directory */
    CHECK(!found);
    CHECK_INT(ini_load_file(&ini, t_fixture("cfg/config"), "x", &found, &e), S3C_OK);
    CHECK(found);
    CHECK(ini_section_find(&ini, "default") != NULL);
    ini_release(&ini);
}

TEST(ini_kind_name_like_botocore)
{
    char name[64];

    CHECK(ini_kind_name("profile dev", "profile", name, sizeof(name)));
    CHECK_STR(name, "dev");
    CHECK(ini_kind_name("profile   dev  ", "profile", name, sizeof(name)));
    CHECK_STR(name, "dev");
    CHECK(ini_kind_name("profile \"my dev\"", "profile", name, sizeof(name)));
    CHECK_STR(name, "my dev");
    CHECK(ini_kind_name("profile 'a\"b'", "profile", name, sizeof(name)));
    CHECK_STR(name, "a\"b");
    CHECK(ini_kind_name("services local", "services", name, sizeof(name)));
    CHECK_STR(name, "local");
    CHECK(!ini_kind_name("profile", "profile", name, sizeof(name)));
    CHECK(!ini_kind_name("profile a b", "profile", name, sizeof(name)));
    CHECK(!ini_kind_name("profile \"open", "profile", name, sizeof(name)));
    CHECK(!ini_kind_name("default", "profile", name, sizeof(name)));
    CHECK(!ini_kind_name("services x", "profile", name, sizeof(name)));
    CHECK(!ini_kind_name("profile toolongname", "profile", name, 8));
}

TEST(ini_broken_default_subsection_matters_only_when_inherited)
{
    struct ini ini = INI_INIT;
    struct s3c_error e = S3C_ERROR_INIT;

    /* botocore parses DEFAULT's sub-sections only through another section. */
    CHECK_INT(parse(&ini, "[DEFAULT]\ns3 =\n  junk\n", &e), S3C_OK);
    ini_release(&ini);
    CHECK_INT(parse(&ini, "[DEFAULT]\ns3 =\n  junk\n[a]\nk = v\n", &e), S3C_EPARSE);
    CHECK(strstr(e.msg, "config file cfg, line 2: ") == e.msg);
    ini_release(&ini);
    /* Good lines before the bad one are freed (found by fuzz_cfg; LSan in the SAN build). */
    CHECK_INT(parse(&ini, "[DEFAULT]\ns3 =\n  a = 1\n  junk\n", &e), S3C_OK);
    ini_release(&ini);
    CHECK_INT(parse(&ini, "[a]\ns3 =\n  a = 1\n  b = 2\n  junk\n", &e), S3C_EPARSE);
    ini_release(&ini);
}
