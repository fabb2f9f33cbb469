/* Suite: confine_open, the race-free confined open of untrusted sources'
 * files (relay/confine.h), through openat2 and through its fallback
 * (open, then look at what was opened).  Cases that need another user
 * (a root-only file, a directory owned by nobody) run only as root. */
#include "relay/confine.h"
#include "tests/testutil.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#define NOBODY 65534

typedef int (*open_fn)(const char *, const char *, const char *, const confine_reader *,
                       struct stat *, char *, size_t);
static const open_fn openers[] = {confine_open, confine_open_checked};
static const char *const opener_names[] = {"openat2", "checked"};
static const confine_reader nobody = {true, NOBODY, NOBODY};

/* Open with each opener; expect success with content, or failure with
 * errno e and needle in the reason. */
static void expect_open(const char *root, const char *dir, const char *path, int want_errno,
                        const char *want, const char *needle)
{
    for (size_t k = 0; k < 2; k++) {
        char err[1024] = "";
        struct stat st;
        int fd = openers[k](root, dir, path, &nobody, &st, err, sizeof(err));
        if (want_errno == 0) {
            ck_assert_msg(fd >= 0, "%s: %s: %s", opener_names[k], path, err);
            char buf[256] = "";
            ssize_t n = read(fd, buf, sizeof(buf) - 1);
            close(fd);
            ck_assert_int_ge(n, 0);
            buf[n] = '\0';
            ck_assert_str_eq(buf, want);
        } else {
            int e = errno;
            if (fd >= 0)
                close(fd);
            ck_assert_msg(fd < 0, "%s: %s: opened, expected errno %d", opener_names[k], path,
                          want_errno);
            ck_assert_msg(e == want_errno, "%s: %s: errno %d, expected %d (%s)", opener_names[k],
                          path, e, want_errno, err);
            if (needle != NULL)
                ck_assert_msg(strstr(err, needle) != NULL, "%s: \"%s\" lacks \"%s\"",
                              opener_names[k], err, needle);
        }
    }
}

/* Inside the root: files and links (relative, absolute) that stay inside
 * are read; links and data-paths out of it are refused as "outside"; a
 * directory on the way replaced by a link is refused; a directory or a
 * device is not a document. */
START_TEST(confine_inside_and_outside)
{
    char *root = tu_mkdtemp(), *elsewhere = tu_mkdtemp();
    tu_write(root, "src/data.json", "mine");
    tu_write(root, "shared/real.json", "shared");
    tu_write(elsewhere, "secret.json", "SECRET");
    char *src = tu_join(root, "src"), *data = tu_join(root, "src/data.json");
    char *rel = tu_join(root, "src/rel.json"), *abs = tu_join(root, "src/abs.json");
    char *out = tu_join(root, "src/out.json"), *dev = tu_join(root, "src/null.json");
    char *target = tu_join(root, "shared/real.json"), *secret = tu_join(elsewhere, "secret.json");
    ck_assert_int_eq(symlink("../shared/real.json", rel), 0);
    ck_assert_int_eq(symlink(target, abs), 0);
    ck_assert_int_eq(symlink(secret, out), 0);
    ck_assert_int_eq(symlink("/dev/null", dev), 0);
    expect_open(root, src, data, 0, "mine", NULL);
    expect_open(root, src, rel, 0, "shared", NULL);
    expect_open(root, src, abs, 0, "shared", NULL);
    expect_open(root, src, out, EXDEV, NULL, "outside");
    expect_open(root, src, dev, EXDEV, NULL, "outside");
    char *dotdot = tu_join(src, "../../");
    char *up = malloc(strlen(dotdot) + strlen(elsewhere) + 20);
    sprintf(up, "%s%s/secret.json", dotdot, strrchr(elsewhere, '/') + 1);
    expect_open(root, src, up, EXDEV, NULL, "outside");
    expect_open(root, src, secret, EXDEV, NULL, "outside");          /* absolute data-path */
    expect_open(root, src, src, EISDIR, NULL, "is a directory");
    /* the source directory itself swapped for a link: refused on the way */
    char *moved = tu_join(root, "moved");
    ck_assert_int_eq(rename(src, moved), 0);
    ck_assert_int_eq(symlink(elsewhere, src), 0);
    char *via = tu_join(src, "secret.json");
    expect_open(root, src, via, EXDEV, NULL, "on the way");
    char *all[] = {src, data, rel, abs, out, dev, target, secret, dotdot, up, moved, via};
    for (size_t i = 0; i < sizeof(all) / sizeof(all[0]); i++)
        free(all[i]);
    tu_rmtree(root);
    tu_rmtree(elsewhere);
    free(root);
    free(elsewhere);
}
END_TEST

/* As root: what the directory's owner may not read is not read, however
 * it is reached: a hard link to a root-only file (possible wherever
 * protected_hardlinks is off, or made before), a link to another user's
 * private file inside the root; a root-owned directory reads as the
 * fallback reader (exec_user), and without one not at all. */
START_TEST(confine_reads_as_the_owner)
{
    if (geteuid() != 0)
        return;
    char *root = tu_mkdtemp();
    tu_write(root, "user/data.json", "users");
    tu_write(root, "rootdir/data.json", "roots");
    tu_write(root, "private/p.json", "PRIVATE");
    char *user = tu_join(root, "user"), *udata = tu_join(user, "data.json");
    char *rootdir = tu_join(root, "rootdir"), *rdata = tu_join(rootdir, "data.json");
    char *priv = tu_join(root, "private/p.json"), *privdir = tu_join(root, "private");
    ck_assert_int_eq(chown(user, NOBODY, NOBODY), 0);
    ck_assert_int_eq(chown(udata, NOBODY, NOBODY), 0);
    ck_assert_int_eq(chmod(priv, 0600), 0);
    ck_assert_int_eq(chmod(privdir, 0755), 0);
    expect_open(root, user, udata, 0, "users", NULL);
    expect_open(root, rootdir, rdata, 0, "roots", NULL);   /* 0644: exec_user may */
    char *hard = tu_join(user, "hard.json"), *soft = tu_join(user, "soft.json");
    ck_assert_int_eq(link(priv, hard), 0);
    ck_assert_int_eq(symlink("../private/p.json", soft), 0);
    expect_open(root, user, hard, EACCES, NULL, "uid 65534, the source directory's owner");
    expect_open(root, user, soft, EACCES, NULL, "permission denied");
    char *rhard = tu_join(rootdir, "hard.json");
    ck_assert_int_eq(link(priv, rhard), 0);
    expect_open(root, rootdir, rhard, EACCES, NULL, "exec_user");
    /* no exec_user: a root-owned untrusted directory is not read at all */
    confine_reader none = {false, 0, 0};
    char err[512];
    struct stat st;
    int fd = confine_open(root, rootdir, rdata, &none, &st, err, sizeof(err));
    ck_assert_msg(fd < 0 && errno == EACCES, "%s", err);
    /* the identity is back to root's afterwards: root-only files open */
    fd = open(priv, O_RDONLY);
    ck_assert_int_ge(fd, 0);
    close(fd);
    char *all[] = {user, udata, rootdir, rdata, priv, privdir, hard, soft, rhard};
    for (size_t i = 0; i < sizeof(all) / sizeof(all[0]); i++)
        free(all[i]);
    tu_rmtree(root);
    free(root);
}
END_TEST

/* A FIFO outside, reached through a link: never opened, so a writer
 * waiting for a reader still finds none. */
START_TEST(confine_outside_fifo_never_opened)
{
    char *root = tu_mkdtemp(), *elsewhere = tu_mkdtemp();
    char *fifo = tu_join(elsewhere, "pipe"), *src = tu_join(root, "d"), *data = tu_join(src, "data.json");
    ck_assert_int_eq(mkfifo(fifo, 0666), 0);
    ck_assert_int_eq(mkdir(src, 0755), 0);
    ck_assert_int_eq(symlink(fifo, data), 0);
    expect_open(root, src, data, EXDEV, NULL, "outside");
    ck_assert_msg(!tu_fifo_has_reader(fifo), "the outside FIFO has a reader");
    free(fifo);
    free(src);
    free(data);
    tu_rmtree(root);
    tu_rmtree(elsewhere);
    free(root);
    free(elsewhere);
}
END_TEST

/* The race of issue 13: a writer (as nobody, the directory's owner)
 * swaps data.json between its own file and a link to a root-only file
 * outside, as fast as it can, while the reader opens it again and again:
 * the outside content is never read, through either opener. */
START_TEST(confine_swap_race_never_leaks)
{
    if (geteuid() != 0)
        return;
    char *root = tu_mkdtemp(), *elsewhere = tu_mkdtemp();
    tu_write(elsewhere, "secret.json", "SECRET");
    char *secret = tu_join(elsewhere, "secret.json");
    ck_assert_int_eq(chmod(secret, 0600), 0);
    tu_write(root, "src/good.json", "good");
    char *src = tu_join(root, "src"), *data = tu_join(src, "data.json");
    char *good = tu_join(src, "good.json"), *tmpl = tu_join(src, "tmp.l"), *tmpf = tu_join(src, "tmp.f");
    ck_assert_int_eq(chown(src, NOBODY, NOBODY), 0);
    ck_assert_int_eq(chown(good, NOBODY, NOBODY), 0);
    pid_t w = fork();
    ck_assert_int_ge(w, 0);
    if (w == 0) {
        if (setgid(NOBODY) != 0 || setuid(NOBODY) != 0)
            _exit(1);
        for (;;) {
            unlink(tmpl);
            if (symlink(secret, tmpl) == 0)
                rename(tmpl, data);
            unlink(tmpf);
            if (link(good, tmpf) == 0)
                rename(tmpf, data);
        }
    }
    unsigned opened = 0, refused = 0;
    for (int i = 0; i < 20000; i++) {
        char err[512], buf[64];
        struct stat st;
        int fd = openers[i % 2](root, src, data, &nobody, &st, err, sizeof(err));
        if (fd < 0) {
            refused++;
            continue;
        }
        ssize_t n = read(fd, buf, sizeof(buf) - 1);
        close(fd);
        buf[n > 0 ? n : 0] = '\0';
        ck_assert_msg(strstr(buf, "SECRET") == NULL, "read the outside file (%s)",
                      opener_names[i % 2]);
        opened++;
    }
    kill(w, SIGKILL);
    waitpid(w, NULL, 0);
    ck_assert_uint_gt(opened, 0);
    ck_assert_uint_gt(refused, 0);   /* the swap really raced */
    char *all[] = {secret, src, data, good, tmpl, tmpf};
    for (size_t i = 0; i < sizeof(all) / sizeof(all[0]); i++)
        free(all[i]);
    tu_rmtree(root);
    tu_rmtree(elsewhere);
    free(root);
    free(elsewhere);
}
END_TEST

TEST_SUITE(relay_confine)
{
    Suite *s = suite_create(test_suite_name);
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, confine_inside_and_outside);
    tcase_add_test(tc, confine_reads_as_the_owner);
    tcase_add_test(tc, confine_outside_fifo_never_opened);
    tcase_add_test(tc, confine_swap_race_never_leaks);
    suite_add_tcase(s, tc);
    return s;
}
