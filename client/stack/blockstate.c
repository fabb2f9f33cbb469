/* blockstate: an off-CPU block's class (see blockstate.h). */
#include "client/stack/blockstate.h"

#include <string.h>

static const char *const names[] = {
    [BLOCK_STATE_IO] = "io",           [BLOCK_STATE_LOCK] = "lock",
    [BLOCK_STATE_SLEEP] = "sleep",     [BLOCK_STATE_PREEMPTED] = "preempted",
    [BLOCK_STATE_OTHER] = "other",
};

/* Kernel functions a lock waiter blocks in, by prefix once their
 * leading underscores are gone (__mutex_lock.constprop.0, __down_common) */
static const char *const lock_waits[] = {
    "futex_wait", "mutex_lock", "rwsem_down", "rt_mutex", "down_read",
    "down_write", "down_common", "down_interruptible", "down_killable",
    "down_timeout", "down_trylock", "percpu_rwsem_wait", "rwbase_",
};

static bool is_lock_wait(const char *f, size_t n)
{
    while (n > 0 && *f == '_')
        f++, n--;
    for (size_t i = 0; i < sizeof lock_waits / sizeof lock_waits[0]; i++) {
        size_t k = strlen(lock_waits[i]);
        if (n >= k && memcmp(f, lock_waits[i], k) == 0)
            return true;
    }
    return false;
}

static bool holds_lock_wait(const char *stack, size_t len)
{
    size_t i = 0;
    while (i < len) {
        const char *semi = memchr(stack + i, ';', len - i);
        size_t j = semi ? (size_t)(semi - stack) : len;
        if (is_lock_wait(stack + i, j - i))
            return true;
        i = j + 1;
    }
    return false;
}

block_state block_state_of(const char *state, size_t n, const char *stack,
                           size_t len)
{
    if (state == NULL || n == 0)
        return BLOCK_STATE_NONE;
    if (state[0] == 'R')
        return BLOCK_STATE_PREEMPTED;
    if (stack != NULL && holds_lock_wait(stack, len))
        return BLOCK_STATE_LOCK;
    switch (state[0]) {
    case 'D': return BLOCK_STATE_IO;
    case 'S': case 'I': return BLOCK_STATE_SLEEP;
    default: return BLOCK_STATE_OTHER;
    }
}

const char *block_state_name(block_state s)
{
    return s > BLOCK_STATE_NONE && s <= BLOCK_STATE_OTHER ? names[s] : NULL;
}

block_state block_state_from_name(const char *name)
{
    for (int s = BLOCK_STATE_IO; name != NULL && s <= BLOCK_STATE_OTHER; s++)
        if (strcmp(name, names[s]) == 0)
            return (block_state)s;
    return BLOCK_STATE_NONE;
}

bool block_state_add_list(const char *list, unsigned *mask, strbuf *err)
{
    unsigned m = 0;
    const char *p = list;
    while (*p) {
        size_t n = strcspn(p, ",");
        char word[16];
        block_state s = BLOCK_STATE_NONE;
        if (n > 0 && n < sizeof word) {
            memcpy(word, p, n);
            word[n] = '\0';
            s = block_state_from_name(word);
        }
        if (s == BLOCK_STATE_NONE && n > 0) {
            sb_printf(err, "'%.*s' is none of " BLOCK_STATE_NAMES, (int)n, p);
            return false;
        }
        if (s != BLOCK_STATE_NONE)
            m |= 1u << s;
        p += n + (p[n] == ',');
    }
    if (m == 0) {
        sb_adds(err, "no class given (" BLOCK_STATE_NAMES ")");
        return false;
    }
    *mask |= m;
    return true;
}

void block_state_frame(strbuf *out, block_state s)
{
    const char *n = block_state_name(s);
    if (n == NULL)
        return;
    sb_adds(out, "state:");
    sb_adds(out, n);
    sb_addc(out, ';');
}
