/* reaper: kill every descendant of a command when it ends (see reaper.h). */
#include "relay/reaper.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <sys/syscall.h>
#include <unistd.h>

/* SIGKILL to a process /proc names by its host pid.  In a PID namespace
 * of our own, kill() reads numbers as ours: the process's own number
 * here is the last of its NSpid line; failing that, a pidfd opened
 * through its /proc directory names it whatever the namespace. */
static void kill_host_pid(int pid)
{
    if (getpid() != 1) {
        kill(pid, SIGKILL);   /* outside a namespace of our own the numbers agree */
        return;
    }
    char path[64], line[256];
    snprintf(path, sizeof(path), "/proc/%d/status", pid);
    FILE *f = fopen(path, "r");
    int ours = 0;
    while (f != NULL && fgets(line, sizeof(line), f) != NULL)
        if (strncmp(line, "NSpid:", 6) == 0) {
            const char *last = strrchr(line, '\t');
            ours = last != NULL ? atoi(last + 1) : 0;
            break;
        }
    if (f != NULL)
        fclose(f);
    if (ours > 1 && kill(ours, SIGKILL) == 0)
        return;
    snprintf(path, sizeof(path), "/proc/%d", pid);
    int fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd >= 0) {
        syscall(SYS_pidfd_send_signal, fd, SIGKILL, NULL, 0);
        close(fd);
    }
}

/* Our pid as /proc sees it: in a PID namespace of our own getpid() is 1,
 * while the /proc mounted here numbers processes as the host does. */
static int proc_self_pid(void)
{
    char buf[32];
    ssize_t n = readlink("/proc/self", buf, sizeof(buf) - 1);
    if (n <= 0)
        return (int)getpid();
    buf[n] = '\0';
    return atoi(buf);
}

/* Our children as the kernel lists them (/proc/thread-self/children),
 * else by a scan of /proc for processes whose parent we are.  Each is
 * sent SIGKILL; returns how many were. */
static int kill_listed_children(void)
{
    int n = 0;
    FILE *f = fopen("/proc/thread-self/children", "r");
    if (f != NULL) {
        int pid;
        while (fscanf(f, "%d", &pid) == 1) {
            kill_host_pid(pid);
            n++;
        }
        fclose(f);
        return n;
    }
    DIR *d = opendir("/proc");
    struct dirent *e;
    int self = proc_self_pid();
    while (d != NULL && (e = readdir(d)) != NULL) {
        int pid = atoi(e->d_name), ppid = 0;
        char stat[64], buf[512];
        if (pid <= 0)
            continue;
        snprintf(stat, sizeof(stat), "/proc/%d/stat", pid);
        FILE *sf = fopen(stat, "r");
        if (sf == NULL)
            continue;
        size_t len = fread(buf, 1, sizeof(buf) - 1, sf);
        fclose(sf);
        buf[len] = '\0';
        const char *close_paren = strrchr(buf, ')');   /* comm may hold anything */
        if (close_paren != NULL && sscanf(close_paren + 1, " %*c %d", &ppid) == 1 &&
            ppid == self) {
            kill_host_pid(pid);
            n++;
        }
    }
    if (d != NULL)
        closedir(d);
    return n;
}

void reaper_kill_all_children(void)
{
    /* each round kills what is a child now and waits for one to die; the
     * children of the dead are ours next round, until there are none */
    for (;;) {
        kill_listed_children();
        pid_t p = waitpid(-1, NULL, 0);
        if (p < 0 && errno == ECHILD)
            return;
    }
}

static void __attribute__((noreturn)) exit_like(int status)
{
    if (WIFEXITED(status))
        _exit(WEXITSTATUS(status));
    int sig = WIFSIGNALED(status) ? WTERMSIG(status) : SIGKILL;
    /* die the way the command did, without a core file of ours */
    if (sig == SIGQUIT || sig == SIGILL || sig == SIGABRT || sig == SIGFPE ||
        sig == SIGSEGV || sig == SIGBUS || sig == SIGSYS || sig == SIGTRAP)
        sig = SIGKILL;
    signal(sig, SIG_DFL);
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, sig);
    sigprocmask(SIG_UNBLOCK, &set, NULL);
    raise(sig);
    _exit(128 + sig);
}

/* Is the process that started us still there?  Our parent, or, as the
 * first process of a PID namespace (no parent in it), its /proc entry. */
static bool parent_alive(pid_t parent)
{
    pid_t pp = getppid();
    if (pp != 0)
        return pp == parent;
    char path[64];
    snprintf(path, sizeof(path), "/proc/%d", (int)parent);
    return access(path, F_OK) == 0;
}

void reaper_run(void (*start_command)(void *arg), void *arg, pid_t parent)
{
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGCHLD);
    sigaddset(&set, SIGTERM);
    sigaddset(&set, SIGHUP);
    sigaddset(&set, SIGINT);
    sigprocmask(SIG_BLOCK, &set, NULL);
    prctl(PR_SET_CHILD_SUBREAPER, 1);
    /* the PMDA gone (even killed): clean up, do not leave the tree behind */
    prctl(PR_SET_PDEATHSIG, SIGTERM);
    if (!parent_alive(parent))
        _exit(126);   /* the PMDA died before the line above */
    pid_t cmd = fork();
    if (cmd == 0) {
        prctl(PR_SET_CHILD_SUBREAPER, 0);
        start_command(arg);   /* unblocks signals, execs; never returns */
        _exit(127);
    }
    if (cmd < 0)
        _exit(126);
    int cmd_status = SIGKILL;   /* a wait status: "killed by SIGKILL", if stopped by us */
    bool reaped = false;
    while (!reaped) {
        siginfo_t info;
        if (sigwaitinfo(&set, &info) < 0)
            continue;
        if (info.si_signo != SIGCHLD)
            break;   /* told to stop: the command is killed with the rest */
        int st;
        pid_t p;
        while ((p = waitpid(-1, &st, WNOHANG)) > 0)
            if (p == cmd) {
                cmd_status = st;
                reaped = true;
            }
    }
    int st;
    if (!reaped && waitpid(cmd, &st, WNOHANG) == cmd)
        cmd_status = st;   /* it had ended when the stop came */
    /* the first process of a PID namespace takes every other one with
     * it when it exits; a subreaper kills its adopted tree itself */
    if (getpid() != 1)
        reaper_kill_all_children();
    exit_like(cmd_status);
}
