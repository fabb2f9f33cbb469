/* Suite: the hostile-document corpus (tests/corpus): every document gives
 * exactly the error it must (or parses and maps without harm), plus
 * generated cases: a 100 MB string against the size cap, and a sample
 * document truncated at every structural position. */
#include "relay/docread.h"
#include "relay/metadata.h"
#include "relay/snapshot.h"
#include "tests/testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CORPUS "tests/corpus"

static const char *map_meta =
    "{\"metrics\": [{\"name\": \"n\", \"pointer\": \"/n\", \"type\": \"integer\"},"
    " {\"name\": \"s\", \"pointer\": \"/s\", \"type\": \"string\"},"
    " {\"name\": \"d\", \"pointer\": \"/d\", \"type\": \"double\"},"
    " {\"name\": \"a\", \"pointer\": \"/a\", \"type\": \"array\", \"index\": \"/id\","
    "  \"metrics\": [{\"name\": \"v\", \"pointer\": \"/v\", \"type\": \"integer\"}]},"
    " {\"name\": \"lat\", \"pointer\": \"/lat\", \"type\": \"histogram\"}]}";

static char *read_all(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    ck_assert_msg(f != NULL, "cannot open %s (run from the repository root)", path);
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *buf = malloc((size_t)n + 1);
    ck_assert_uint_eq(fread(buf, 1, (size_t)n, f), (size_t)n);
    buf[n] = '\0';
    fclose(f);
    *len = (size_t)n;
    return buf;
}

static void check_data(const char *name, const char *doc, size_t len, const char *expect,
                       const source_meta *meta)
{
    json_error_t err;
    json_t *j = json_loadb(doc, len, 0, &err);
    if (strcmp(expect, "OK") == 0) {
        ck_assert_msg(j != NULL, "%s: %s", name, err.text);
        snapshot *s = snapshot_build(meta, j);
        ck_assert_ptr_nonnull(s);
        snapshot_free(s);
        json_decref(j);
        return;
    }
    ck_assert_msg(j == NULL, "%s: parsed, expected \"%s\"", name, expect);
    ck_assert_msg(strstr(err.text, expect) != NULL, "%s: got \"%s\", expected \"%s\"", name,
                  err.text, expect);
}

static void check_metadata(const char *name, const char *doc, size_t len, const char *expect)
{
    char err[512] = "";
    source_meta *m = metadata_parse(doc, len, "dflt", err, sizeof(err));
    if (strncmp(expect, "PROBLEM:", 8) == 0) {
        ck_assert_msg(m != NULL, "%s: %s", name, err);
        int found = 0;
        for (size_t i = 0; i < m->nproblems; i++)
            found |= strstr(m->problems[i], expect + 8) != NULL;
        ck_assert_msg(found, "%s: no problem mentions \"%s\"", name, expect + 8);
        metadata_free(m);
        return;
    }
    ck_assert_msg(m == NULL, "%s: loaded, expected \"%s\"", name, expect);
    ck_assert_msg(strstr(err, expect) != NULL, "%s: got \"%s\", expected \"%s\"", name, err, expect);
}

START_TEST(corpus_documents_give_their_errors)
{
    size_t len;
    char *list = read_all(CORPUS "/EXPECTED", &len);
    char err[256];
    source_meta *meta = metadata_parse(map_meta, strlen(map_meta), "m", err, sizeof(err));
    int n = 0;
    for (char *line = strtok(list, "\n"); line != NULL; line = strtok(NULL, "\n")) {
        if (line[0] == '#')
            continue;
        char *kind = strchr(line, '\t');
        ck_assert_ptr_nonnull(kind);
        *kind++ = '\0';
        char *expect = strchr(kind, '\t');
        ck_assert_ptr_nonnull(expect);
        *expect++ = '\0';
        char path[512];
        snprintf(path, sizeof(path), CORPUS "/%s", line);
        size_t dlen;
        char *doc = read_all(path, &dlen);
        if (strcmp(kind, "data") == 0)
            check_data(line, doc, dlen, expect, meta);
        else
            check_metadata(line, doc, dlen, expect);
        free(doc);
        n++;
    }
    ck_assert_int_ge(n, 50);
    metadata_free(meta);
    free(list);
}
END_TEST

START_TEST(corpus_100mb_string_hits_the_cap)
{
    char *dir = tu_mkdtemp();
    char path[512];
    snprintf(path, sizeof(path), "%s/data.json", dir);
    FILE *f = fopen(path, "w");
    fputs("{\"s\": \"", f);
    static char chunk[1 << 20];
    memset(chunk, 'x', sizeof(chunk));
    for (int i = 0; i < 100; i++)
        fwrite(chunk, 1, sizeof(chunk), f);
    fputs("\"}", f);
    fclose(f);
    char *buf = NULL, err[512];
    size_t len;
    ck_assert_int_eq(doc_read(path, 16u << 20, &buf, &len, err, sizeof(err)), DOC_TOOBIG);
    ck_assert_ptr_null(buf);
    ck_assert_ptr_nonnull(strstr(err, "larger than max_document_size (16777216 bytes)"));
    tu_rmtree(dir);
    free(dir);
}
END_TEST

START_TEST(corpus_truncated_at_every_structural_position)
{
    size_t len;
    char *doc = read_all("examples/sources/profile/data.json", &len);
    while (len > 0 && strchr(" \t\r\n", doc[len - 1]) != NULL)
        len--;   /* cut only inside the document itself */
    int cuts = 0;
    for (size_t i = 0; i < len; i++) {
        if (strchr("{}[]:,\"", doc[i]) == NULL)
            continue;
        for (size_t cut = i; cut <= i + 1 && cut < len; cut++) {
            json_error_t err;
            json_t *j = json_loadb(doc, cut, 0, &err);
            /* every proper prefix is incomplete: it must fail, with a reason */
            ck_assert_msg(j == NULL, "prefix of %zu bytes parsed", cut);
            ck_assert_msg(err.text[0] != '\0', "no reason at %zu", cut);
            cuts++;
        }
    }
    ck_assert_int_gt(cuts, 100);
    free(doc);
}
END_TEST

TEST_SUITE(relay_corpus)
{
    Suite *s = suite_create(test_suite_name);
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, corpus_documents_give_their_errors);
    tcase_add_test(tc, corpus_100mb_string_hits_the_cap);
    tcase_add_test(tc, corpus_truncated_at_every_structural_position);
    suite_add_tcase(s, tc);
    return s;
}
