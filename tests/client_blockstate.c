/* Suite: client/stack/blockstate, an off-CPU block's class from the
 * task state at switch-out and the stack it blocked in, and the state
 * list of the sample filter (--only-state). */
#include <check.h>
#include <string.h>

#include "client/stack/blockstate.h"
#include "client/stack/stackfilter.h"
#include "tests/testutil.h"

static block_state of(const char *state, const char *stack)
{
    return block_state_of(state, state ? strlen(state) : 0, stack,
                          stack ? strlen(stack) : 0);
}

START_TEST(classes_from_states)
{
    ck_assert_int_eq(of("D", "main;fsync;do_fsync_[k];io_schedule_[k]"), BLOCK_STATE_IO);
    ck_assert_int_eq(of("S", "main;nanosleep;hrtimer_nanosleep_[k]"), BLOCK_STATE_SLEEP);
    ck_assert_int_eq(of("I", "kthread_[k];worker_thread_[k]"), BLOCK_STATE_SLEEP);
    ck_assert_int_eq(of("R+", "main;spin"), BLOCK_STATE_PREEMPTED);
    ck_assert_int_eq(of("R", "main;spin"), BLOCK_STATE_PREEMPTED);
    ck_assert_int_eq(of("T", "main;x"), BLOCK_STATE_OTHER);
    /* no state: no class, whatever the stack */
    ck_assert_int_eq(of(NULL, "main;futex_wait_[k]"), BLOCK_STATE_NONE);
    ck_assert_int_eq(of("", "main;futex_wait_[k]"), BLOCK_STATE_NONE);
    /* the state's length decides, not a NUL */
    ck_assert_int_eq(block_state_of("DS", 1, "a", 1), BLOCK_STATE_IO);
}
END_TEST

START_TEST(lock_waits_win_over_sleep_and_io)
{
    ck_assert_int_eq(of("S", "main;pthread_mutex_lock;__x64_sys_futex_[k];"
                        "futex_wait_[k];futex_wait_queue_[k];schedule_[k]"),
                     BLOCK_STATE_LOCK);
    ck_assert_int_eq(of("D", "main;write;__mutex_lock.constprop.0_[k];schedule_[k]"),
                     BLOCK_STATE_LOCK);
    ck_assert_int_eq(of("D", "main;mmap;rwsem_down_write_slowpath_[k]"), BLOCK_STATE_LOCK);
    ck_assert_int_eq(of("D", "a;__down_common_[k]"), BLOCK_STATE_LOCK);
    /* a prefix of the frame, not anywhere in it */
    ck_assert_int_eq(of("S", "main;my_futex_wait_helper"), BLOCK_STATE_SLEEP);
    ck_assert_int_eq(of("D", "main;shutdown_read"), BLOCK_STATE_IO);
    /* preempted is preempted, even inside a lock's code */
    ck_assert_int_eq(of("R+", "main;futex_wait_[k]"), BLOCK_STATE_PREEMPTED);
}
END_TEST

START_TEST(names_and_frames)
{
    for (int s = BLOCK_STATE_IO; s <= BLOCK_STATE_OTHER; s++)
        ck_assert_int_eq(block_state_from_name(block_state_name((block_state)s)), s);
    ck_assert_ptr_null(block_state_name(BLOCK_STATE_NONE));
    ck_assert_int_eq(block_state_from_name("IO"), BLOCK_STATE_NONE);
    ck_assert_int_eq(block_state_from_name(""), BLOCK_STATE_NONE);
    ck_assert_int_eq(block_state_from_name(NULL), BLOCK_STATE_NONE);
    strbuf sb = STRBUF_INIT;
    block_state_frame(&sb, BLOCK_STATE_NONE);
    ck_assert_uint_eq(sb.len, 0);
    block_state_frame(&sb, BLOCK_STATE_LOCK);
    ck_assert_str_eq(sb.buf, "state:lock;");
    sb_free(&sb);
}
END_TEST

/* the list --only-state and web's state= read: every word a class */
START_TEST(class_lists)
{
    unsigned m = 0;
    strbuf why = STRBUF_INIT;
    ck_assert(block_state_add_list("io,preempted", &m, &why));
    ck_assert_uint_eq(m, 1u << BLOCK_STATE_IO | 1u << BLOCK_STATE_PREEMPTED);
    ck_assert(block_state_add_list("lock,", &m, &why));     /* adds */
    ck_assert_uint_eq(m, 1u << BLOCK_STATE_IO | 1u << BLOCK_STATE_PREEMPTED
                         | 1u << BLOCK_STATE_LOCK);
    static const char *const bad[] = { "busy", "io,busy", "sleepy",
                                       "a-very-long-word-of-no-class" };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        unsigned k = 0;
        sb_reset(&why);
        ck_assert_msg(!block_state_add_list(bad[i], &k, &why), "%s", bad[i]);
        ck_assert_uint_eq(k, 0);                  /* nothing half-taken */
        ck_assert_ptr_nonnull(strstr(why.buf, "is none of io, lock"));
    }
    sb_reset(&why);
    ck_assert(!block_state_add_list("io,busy", &m, &why));
    ck_assert_str_eq(why.buf, "'busy' is none of io, lock, sleep, preempted, other");
    for (const char *none = ""; none; none = strcmp(none, "") == 0 ? "," : NULL) {
        sb_reset(&why);
        unsigned k = 0;
        ck_assert(!block_state_add_list(none, &k, &why));
        ck_assert_ptr_nonnull(strstr(why.buf, "no class given"));
    }
    sb_free(&why);
}
END_TEST

static bool kept(unsigned states, block_state s)
{
    stackfilter_spec spec = { .states = states };
    strbuf err = STRBUF_INIT, out = STRBUF_INIT;
    stackfilter *f = stackfilter_new(&spec, &err);
    ck_assert_ptr_nonnull(f);
    stack_context c = { .pid = -1, .tid = -1, .state = s };
    bool k = stackfilter_apply(f, "a;b", 3, &c, &out);
    stackfilter_free(f);
    sb_free(&err);
    sb_free(&out);
    return k;
}

START_TEST(filter_by_state)
{
    unsigned io_lock = 1u << BLOCK_STATE_IO | 1u << BLOCK_STATE_LOCK;
    ck_assert(kept(io_lock, BLOCK_STATE_IO));
    ck_assert(kept(io_lock, BLOCK_STATE_LOCK));
    ck_assert(!kept(io_lock, BLOCK_STATE_SLEEP));
    ck_assert(!kept(io_lock, BLOCK_STATE_NONE));      /* unknown: no match */
    ck_assert(kept(0, BLOCK_STATE_NONE));             /* no list: all pass */
    stackfilter_spec spec = { .states = io_lock };
    strbuf err = STRBUF_INIT;
    stackfilter *f = stackfilter_new(&spec, &err);
    ck_assert(!stackfilter_empty(f));
    stackfilter_free(f);
    sb_free(&err);
}
END_TEST

TEST_SUITE(client_blockstate)
{
    Suite *s = suite_create(test_suite_name);
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, classes_from_states);
    tcase_add_test(tc, lock_waits_win_over_sleep_and_io);
    tcase_add_test(tc, names_and_frames);
    tcase_add_test(tc, class_lists);
    tcase_add_test(tc, filter_by_state);
    suite_add_tcase(s, tc);
    return s;
}
