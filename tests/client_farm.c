/* Suite: client/input/farm, -a arguments as archive contexts: an archive,
 * a host's directory, a farm directory of hosts' directories. */
#include <check.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "client/input/farm.h"
#include "tests/testutil.h"

START_TEST(farm_directories)
{
    char *d = tu_mkdtemp();
    char path[512];
    /* a farm: two hosts' directories, a stray file, an empty directory */
    snprintf(path, sizeof path, "%s/farm", d);
    ck_assert_int_eq(tu_write(path, "web2/20261201.00.10.meta", "x"), 0);
    ck_assert_int_eq(tu_write(path, "web1/20261201.meta.xz", "x"), 0);
    ck_assert_int_eq(tu_write(path, "pmlogger.log", "x"), 0);
    snprintf(path, sizeof path, "%s/farm/empty", d);
    ck_assert_int_eq(mkdir(path, 0755), 0);
    char farm[512], host[512], none[512];
    snprintf(farm, sizeof farm, "%s/farm", d);
    snprintf(host, sizeof host, "%s/farm/web2", d);
    snprintf(none, sizeof none, "%s/farm/empty", d);
    const char *args[] = { "some/archive", farm, host };
    farm_list f;
    strbuf err = STRBUF_INIT;
    ck_assert_int_eq(farm_expand(args, 3, &f, &err), 0);
    ck_assert_uint_eq(f.n, 4);
    ck_assert_str_eq(f.specs[0], "some/archive");
    ck_assert_ptr_nonnull(strstr(f.specs[1], "/farm/web1"));
    ck_assert_ptr_nonnull(strstr(f.specs[2], "/farm/web2"));
    ck_assert_int_eq(f.origin[2], 1);
    ck_assert_str_eq(f.specs[3], host);      /* a host directory: as it is */
    ck_assert_int_eq(f.origin[3], 2);
    farm_free(&f);
    const char *bad[] = { none };
    ck_assert_int_eq(farm_expand(bad, 1, &f, &err), 1);
    ck_assert_ptr_nonnull(strstr(err.buf, "no PCP archives"));
    sb_free(&err);
    tu_rmtree(d);
    free(d);
}
END_TEST

TEST_SUITE(client_farm)
{
    Suite *s = suite_create(test_suite_name);
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, farm_directories);
    suite_add_tcase(s, tc);
    return s;
}
