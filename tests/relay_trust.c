/* Suite: the trusted-directory rule (source_trusted_path_ok) and the
 * confinement of untrusted sources to their directory, FIFOs included. */
#include "relay/relay.h"
#include "relay/source.h"
#include "tests/testutil.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define NOBODY 65534

/* A directory below base with the given mode (chmod: umask aside). */
static char *dir(const char *base, const char *name, mode_t mode)
{
    char *p = tu_join(base, name);
    ck_assert_int_eq(mkdir(p, 0755), 0);
    ck_assert_int_eq(chmod(p, mode), 0);
    return p;
}

static void expect(const char *path, bool ok, const char *needle)
{
    char why[1024] = "";
    bool got = source_trusted_path_ok(path, why, sizeof(why));
    ck_assert_msg(got == ok, "%s: expected %s, got %s (%s)", path, ok ? "ok" : "rejected",
                  got ? "ok" : "rejected", why);
    if (!ok && needle != NULL)
        ck_assert_msg(strstr(why, needle) != NULL, "%s: \"%s\" lacks \"%s\"", path, why, needle);
}

START_TEST(trusted_path_walk)
{
    if (geteuid() != 0)
        return;   /* ownership by root cannot be arranged otherwise */
    char *base = tu_mkdtemp();
    ck_assert_int_eq(chmod(base, 0755), 0);
    /* every ancestor of base must pass for the accepted cases to mean
     * anything: skip where $TMPDIR itself is unsafe */
    char why[1024];
    if (!source_trusted_path_ok(base, why, sizeof(why))) {
        tu_rmtree(base);
        free(base);
        return;
    }
    char *plain = dir(base, "plain", 0755);
    expect(plain, true, NULL);
    /* group- or world-writable parent, not sticky */
    char *gw = dir(base, "gw", 0775), *gwc = dir(gw, "c", 0755);
    expect(gwc, false, "on the way to");
    char *ww = dir(base, "ww", 0777), *wwc = dir(ww, "c", 0755);
    expect(wwc, false, "on the way to");
    /* sticky world-writable parent: fine if the entry below is root's */
    char *st = dir(base, "st", 01777), *stc = dir(st, "c", 0755);
    expect(stc, true, NULL);
    char *stn = dir(st, "n", 0755);
    ck_assert_int_eq(chown(stn, NOBODY, NOBODY), 0);
    expect(stn, false, "must be owned by root");
    /* the object itself never gets the sticky exception */
    char *stg = dir(st, "g", 01777);
    expect(stg, false, "must be owned by root");
    /* links: root's link to a safe place; to a writable place; a link
     * someone else owns */
    char *l1 = tu_join(base, "l1"), *l2 = tu_join(base, "l2"), *l3 = tu_join(st, "l3");
    ck_assert_int_eq(symlink(plain, l1), 0);
    expect(l1, true, NULL);
    ck_assert_int_eq(symlink(wwc, l2), 0);
    expect(l2, false, "on the way to");
    ck_assert_int_eq(symlink(plain, l3), 0);
    ck_assert_int_eq(lchown(l3, NOBODY, NOBODY), 0);
    expect(l3, false, "symbolic link");
    /* a relative link inside the walk, "..", and a link loop */
    char *l4 = tu_join(plain, "up");
    ck_assert_int_eq(symlink("../plain/.", l4), 0);
    char *via = tu_join(l4, "up/../plain");
    expect(via, true, NULL);
    char *loop = tu_join(base, "loop");
    ck_assert_int_eq(symlink("loop", loop), 0);
    expect(loop, false, "too many levels");
    char *missing = tu_join(base, "missing");
    expect(missing, false, "cannot stat");
    /* a relative path is taken from the working directory */
    char cwd[4096];
    ck_assert_ptr_nonnull(getcwd(cwd, sizeof(cwd)));
    ck_assert_int_eq(chdir(base), 0);
    expect("plain", true, NULL);
    expect("ww/c", false, "on the way to");
    ck_assert_int_eq(chdir(cwd), 0);
    char *all[] = {plain, gw, gwc, ww, wwc, st, stc, stn, stg, l1, l2, l3, l4, via, loop, missing};
    for (size_t i = 0; i < sizeof(all) / sizeof(all[0]); i++)
        free(all[i]);
    tu_rmtree(base);
    free(base);
}
END_TEST

/* An untrusted source's data.json or metadata.json that is a link to a
 * FIFO outside its directory is refused like a regular file: the FIFO is
 * never opened (a writer finds no reader), "outside" is the error. */
START_TEST(untrusted_fifo_outside_refused)
{
    char *root = tu_mkdtemp(), *elsewhere = tu_mkdtemp();
    char *fifo = tu_join(elsewhere, "pipe");
    ck_assert_int_eq(mkfifo(fifo, 0666), 0);
    tu_write(root, "d/metadata.json", "{\"prefix\": \"d\", \"metrics\": [{\"name\": \"v\","
             " \"pointer\": \"/v\", \"type\": \"integer\"}]}");
    char *ddata = tu_join(root, "d/data.json");
    ck_assert_int_eq(symlink(fifo, ddata), 0);
    tu_write(root, "m/x", "");
    char *mmeta = tu_join(root, "m/metadata.json");
    ck_assert_int_eq(symlink(fifo, mmeta), 0);

    char cfgtext[1024], err[256];
    snprintf(cfgtext, sizeof(cfgtext), "{\"directory_list\": [\"%s\"], \"poll_interval\": 0.05,"
             " \"stap_roots\": []}", root);
    relay_config *cfg = config_parse(cfgtext, strlen(cfgtext), err, sizeof(err), NULL, 0);
    ck_assert_ptr_nonnull(cfg);
    relay *r = relay_new(ev_default_loop(0), cfg, NULL, NULL);
    relay_poll(r);
    relay_poll(r);
    ck_assert_uint_eq(r->nsources, 2);
    for (size_t i = 0; i < r->nsources; i++) {
        source *s = r->sources[i];
        ck_assert_ptr_null(s->data_fifo);
        ck_assert_ptr_null(s->meta_fifo);
        ck_assert_msg(strstr(s->last_error, "outside") != NULL, "%s: %s", s->dir, s->last_error);
    }
    /* nobody holds the FIFO open for reading */
    ck_assert_msg(!tu_fifo_has_reader(fifo), "the outside FIFO has a reader");
    relay_free(r);
    tu_rmtree(root);
    tu_rmtree(elsewhere);
    free(root);
    free(elsewhere);
    free(fifo);
    free(ddata);
    free(mmeta);
}
END_TEST

TEST_SUITE(relay_trust)
{
    Suite *s = suite_create(test_suite_name);
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 30);
    tcase_add_test(tc, trusted_path_walk);
    tcase_add_test(tc, untrusted_fifo_outside_refused);
    suite_add_tcase(s, tc);
    return s;
}
