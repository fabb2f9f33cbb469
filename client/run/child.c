/* child: see child.h. */
#include "client/run/child.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "client/util/stopsig.h"
#include "common/strbuf.h"
#include "common/xalloc.h"

double child_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

char *child_which(const char *prog)
{
    if (strchr(prog, '/'))
        return access(prog, X_OK) == 0 ? xstrdup(prog) : NULL;
    const char *path = getenv("PATH");
    if (path == NULL || *path == '\0')
        path = "/usr/local/bin:/usr/bin:/bin:/usr/local/sbin:/usr/sbin:/sbin";
    while (*path) {
        size_t n = strcspn(path, ":");
        strbuf sb = STRBUF_INIT;
        if (n == 0)
            sb_adds(&sb, ".");
        else
            sb_add(&sb, path, n);
        sb_printf(&sb, "/%s", prog);
        struct stat st;
        if (stat(sb.buf, &st) == 0 && S_ISREG(st.st_mode) && access(sb.buf, X_OK) == 0)
            return sb_steal(&sb);
        sb_free(&sb);
        path += n;
        if (*path == ':')
            path++;
    }
    return NULL;
}

/* ---- signals ------------------------------------------------------------ */

void child_signals_install(void)
{
    stopsig_catch(NULL, STOPSIG_HUP);
    signal(SIGPIPE, SIG_IGN);
}

int child_stop_requested(void)
{
    return stopsig_count();
}

/* In the child: control[0], control[1] on fds 10, 11, without
 * close-on-exec.  Both are first moved above 11, so neither is closed by
 * the other's dup2 nor left close-on-exec by a dup2 onto itself. */
static int put_control_fds(const int control[2])
{
    int ctl = fcntl(control[0], F_DUPFD, 12);
    int ack = fcntl(control[1], F_DUPFD, 12);
    if (ctl < 0 || ack < 0 || dup2(ctl, 10) < 0 || dup2(ack, 11) < 0)
        return -1;
    close(ctl);
    close(ack);
    return 0;
}

pid_t child_spawn(char *const argv[], const child_spawn_opts *o)
{
    pid_t pid = fork();
    if (pid < 0)
        return -1;
    if (pid == 0) {
        setpgid(0, 0);
        signal(SIGINT, SIG_DFL);
        signal(SIGTERM, SIG_DFL);
        signal(SIGHUP, SIG_DFL);
        if (!o->sigpipe_ignored)
            signal(SIGPIPE, SIG_DFL);
        if (o->preload != NULL) {
            const char *old = getenv("LD_PRELOAD");
            strbuf sb = STRBUF_INIT;
            sb_adds(&sb, o->preload);
            if (old && *old)
                sb_printf(&sb, " %s", old);
            setenv("LD_PRELOAD", sb.buf, 1);
        }
        /* a dup2 onto itself would leave fd 9 close-on-exec */
        if (o->extra_fd == 9 && fcntl(9, F_SETFD, 0) != 0)
            _exit(127);
        if ((o->extra_fd >= 0 && o->extra_fd != 9 && dup2(o->extra_fd, 9) < 0) ||
            (o->in >= 0 && dup2(o->in, 0) < 0) || (o->out >= 0 && dup2(o->out, 1) < 0) ||
            (o->err >= 0 && dup2(o->err, 2) < 0) ||
            (o->control && put_control_fds(o->control) != 0))
            _exit(127);
        if (o->cwd != NULL && chdir(o->cwd) != 0)
            _exit(127);
        execvp(argv[0], argv);
        fprintf(stderr, "staprelay run: cannot run %s: %s\n", argv[0], strerror(errno));
        _exit(127);
    }
    setpgid(pid, pid);
    return pid;
}

int child_stop(pid_t pid, int sig, double grace)
{
    int status = 0;
    if (kill(-pid, sig) != 0)
        kill(pid, sig);
    double until = child_now() + grace;
    for (;;) {
        pid_t r = waitpid(pid, &status, WNOHANG);
        if (r == pid || (r < 0 && errno == ECHILD))
            return status;
        if (child_now() > until) {
            kill(-pid, SIGKILL);
            kill(pid, SIGKILL);
            while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
                ;
            return status;
        }
        usleep(50000);
    }
}

bool child_wait_exit(pid_t pid, double grace, int *status)
{
    double until = child_now() + grace;
    for (;;) {
        pid_t r = waitpid(pid, status, WNOHANG);
        if (r == pid)
            return true;
        if (r < 0 && errno != EINTR)
            return false;
        if (child_now() > until)
            return false;
        usleep(20000);
    }
}

int child_tmp_log(const char *tag)
{
    strbuf name = STRBUF_INIT;
    sb_printf(&name, "/tmp/staprelay-%s.XXXXXX", tag);
    int fd = mkstemp(name.buf);
    if (fd >= 0) {
        unlink(name.buf);
        fcntl(fd, F_SETFD, FD_CLOEXEC);
    }
    sb_free(&name);
    return fd;
}

void child_show_log(int fd, const char *what)
{
    if (fd < 0 || lseek(fd, 0, SEEK_SET) != 0)
        return;
    char buf[4096];
    ssize_t n;
    bool any = false;
    while ((n = read(fd, buf, sizeof buf)) > 0) {
        if (!any)
            fprintf(stderr, "staprelay run: %s said:\n", what);
        any = true;
        fwrite(buf, 1, (size_t)n, stderr);
    }
}

