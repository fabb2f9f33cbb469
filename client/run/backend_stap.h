/* backend_stap: the SystemTap backends of `staprelay run` -- the kernel
 * runtime (a module built by stap/kmod.sh, run by staprun) and the BPF
 * runtime (stap --runtime=bpf, run by stapbpf) -- and the cache of what
 * they build.  Owns the build and the supervision of the SystemTap
 * processes; the choice of backend is run.h's, the processes child.h's.
 * (The comment at the top of backend_stap.c has the command lines.) */
#ifndef STAPRELAY_BACKEND_STAP_H
#define STAPRELAY_BACKEND_STAP_H

#include "client/run/run.h"

/* Run s with SystemTap's kernel runtime as module name.  Returns a
 * RUN_EXIT_* status. */
int backend_stap_kernel(const run_catalog *c, const run_script *s, const run_opts *o,
                        const char *name);
/* Run s's stap/bpf/ variant with SystemTap's BPF runtime as name. */
int backend_stap_bpf(const run_catalog *c, const run_script *s, const run_opts *o,
                     const char *name, const run_env *e);

/* Where `run` caches built modules (malloc'd): $STAPRELAY_CACHE (env
 * here), else /var/cache/staprelay for root, else $XDG_CACHE_HOME/staprelay,
 * else $HOME/.cache/staprelay.  Never beside the sources: the test suite
 * and the demo set STAPRELAY_CACHE to build/stapcache (qa/lib/common.sh),
 * shared with stap/check.sh.  backend_stap_cache_dir() reads the
 * environment. */
char *backend_stap_cache_dir_for(const char *env, unsigned euid, const char *xdg,
                                 const char *home);
char *backend_stap_cache_dir(void);

#endif
