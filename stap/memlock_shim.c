/* LD_PRELOAD shim: stapbpf insists on RLIMIT_MEMLOCK=infinity; where the
 * process lacks CAP_SYS_RESOURCE, report success for that one limit only
 * (kernels >= 5.11 charge BPF memory to the memory cgroup instead). */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <sys/resource.h>

int setrlimit(__rlimit_resource_t res, const struct rlimit *rl)
{
	int (*real)(__rlimit_resource_t, const struct rlimit *) =
		(int (*)(__rlimit_resource_t, const struct rlimit *))dlsym(RTLD_NEXT, "setrlimit");
	int rc = real ? real(res, rl) : -1;
	return (rc != 0 && res == RLIMIT_MEMLOCK) ? 0 : rc;
}

int setrlimit64(__rlimit_resource_t res, const struct rlimit64 *rl)
{
	int (*real)(__rlimit_resource_t, const struct rlimit64 *) =
		(int (*)(__rlimit_resource_t, const struct rlimit64 *))dlsym(RTLD_NEXT, "setrlimit64");
	int rc = real ? real(res, rl) : -1;
	return (rc != 0 && res == RLIMIT_MEMLOCK) ? 0 : rc;
}
