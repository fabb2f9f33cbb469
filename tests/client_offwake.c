/* offwake's pairing of a block with its waker (client/run/script_offcpu),
 * fed perf script text in the orders perf delivers under load: another
 * CPU's events handed over late or early must never pair one block with
 * another block's waker (qa 114 saw a sleep "woken" by a pipe's writer). */
#include <check.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "client/run/script_offcpu.h"
#include "tests/testutil.h"

/* The reader (pid 100) sleeps at 1.0 s and is back at 1.1 s. */
#define OUT_SLEEP \
    "rd 100/100 [000] 1.000000000: prev_comm=rd prev_pid=100 prev_prio=120 prev_state=S " \
    "==> next_comm=swapper/0 next_pid=0 next_prio=120\n" \
    "\tffffffff81000001 __schedule ([kernel.kallsyms])\n" \
    "\tffffffff81000002 do_nanosleep ([kernel.kallsyms])\n" \
    "\t           11111 rd_sleep (/usr/bin/rd)\n\n"
#define IN_AT_1_1 \
    "swapper 0/0 [000] 1.100000000: prev_comm=swapper/0 prev_pid=0 prev_prio=120 " \
    "prev_state=R ==> next_comm=rd next_pid=100 next_prio=120\n" \
    "\tffffffff81000003 do_idle ([kernel.kallsyms])\n\n"
/* the timer that ends the sleep, on CPU 0 */
#define WAKE_TIMER \
    "swapper 0/0 [000] 1.050000000: comm=rd pid=100 prio=120 target_cpu=000\n" \
    "\tffffffff81000004 try_to_wake_up ([kernel.kallsyms])\n" \
    "\tffffffff81000005 hrtimer_wakeup ([kernel.kallsyms])\n\n"
/* a pipe writer on CPU 1 waking the reader's NEXT block, at 1.3 s,
 * handed over before CPU 0's events of 1.05 and 1.1 s */
#define WAKE_WRITER_LATER \
    "wr 200/200 [001] 1.300000000: comm=rd pid=100 prio=120 target_cpu=000\n" \
    "\tffffffff81000004 try_to_wake_up ([kernel.kallsyms])\n" \
    "\tffffffff81000006 pipe_write ([kernel.kallsyms])\n" \
    "\t           22222 wr_main (/usr/bin/wr)\n\n"

/* the timer's interrupt came in while the writer ran on CPU 0: the
 * frames below the entry are the writer's, not the waker's */
#define WAKE_TIMER_IN_IRQ \
    "wr 200/200 [000] 1.050000000: comm=rd pid=100 prio=120 target_cpu=000\n" \
    "\tffffffff81000004 try_to_wake_up ([kernel.kallsyms])\n" \
    "\tffffffff81000005 hrtimer_wakeup ([kernel.kallsyms])\n" \
    "\tffffffff81000007 sysvec_apic_timer_interrupt+0x9 ([kernel.kallsyms])\n" \
    "\tffffffff81000008 asm_sysvec_apic_timer_interrupt+0x1a ([kernel.kallsyms])\n" \
    "\tffffffff81000006 pipe_write ([kernel.kallsyms])\n" \
    "\t           22222 wr_main (/usr/bin/wr)\n\n"
/* the writer itself, on its way back to user space after an IPI (task
 * context again: the entry is not reached from its handler) */
#define WAKE_WRITER_AFTER_IPI \
    "wr 200/200 [000] 1.050000000: comm=rd pid=100 prio=120 target_cpu=000\n" \
    "\tffffffff81000004 try_to_wake_up ([kernel.kallsyms])\n" \
    "\tffffffff81000009 irqentry_exit_to_user_mode ([kernel.kallsyms])\n" \
    "\tffffffff8100000a asm_sysvec_reschedule_ipi ([kernel.kallsyms])\n" \
    "\t           22222 wr_main (/usr/bin/wr)\n\n"

/* One order of events, what the record must hold and must not, and how
 * many events were left out as late. */
typedef struct pairing_case {
    const char *what, *text;
    const char *has[4], *lacks[4];
    unsigned late;
} pairing_case;

static const pairing_case cases[] = {
    { "in order", OUT_SLEEP WAKE_TIMER IN_AT_1_1,
      { "\"duration\": 100000000", "\"waker_comm\": \"swapper\"", "hrtimer_wakeup", "--" },
      { "pipe_write" }, 0 },
    /* the later block's waker arrives first: the block's own, which
     * comes after it but is older, is the one kept */
    { "early waker gives way", OUT_SLEEP WAKE_WRITER_LATER WAKE_TIMER IN_AT_1_1,
      { "hrtimer_wakeup", "\"waker_comm\": \"swapper\"" }, { "pipe_write", "wr_main" }, 1 },
    /* the block's own waking never came (lost, or on a CPU still
     * behind): a waking stamped after the task was back is not its waker */
    { "waker after the return", OUT_SLEEP WAKE_WRITER_LATER IN_AT_1_1,
      { "\"duration\": 100000000", "do_nanosleep" }, { "waker_comm", "pipe_write" }, 1 },
    /* a waking older than the switch-out belongs to an earlier block */
    { "waker before the block", OUT_SLEEP
      "wr 200/200 [001] 0.900000000: comm=rd pid=100 prio=120 target_cpu=000\n"
      "\tffffffff81000006 pipe_write ([kernel.kallsyms])\n\n" IN_AT_1_1,
      { "do_nanosleep" }, { "waker_comm" }, 1 },
    /* an interrupt's waking: its frames up to the entry, no task named */
    { "interrupt", OUT_SLEEP WAKE_TIMER_IN_IRQ IN_AT_1_1,
      { "hrtimer_wakeup", "asm_sysvec_apic_timer_interrupt", "--", "\"duration\": 100000000" },
      { "pipe_write", "wr_main", "waker_comm", "waker_pid" }, 0 },
    { "task after an interrupt", OUT_SLEEP WAKE_WRITER_AFTER_IPI IN_AT_1_1,
      { "asm_sysvec_reschedule_ipi", "wr_main", "\"waker_comm\": \"wr\"", "\"waker_pid\": 200" },
      { "hrtimer_wakeup" }, 0 },
};

START_TEST(pairing)
{
    const pairing_case *c = &cases[_i];
    uint64_t late = 0;
    char *r = script_offcpu_replay(c->text, true, &late);
    ck_assert_ptr_nonnull(r);
    for (size_t k = 0; k < 4 && c->has[k]; k++)
        ck_assert_msg(strstr(r, c->has[k]) != NULL, "%s: no %s in %s", c->what, c->has[k], r);
    for (size_t k = 0; k < 4 && c->lacks[k]; k++)
        ck_assert_msg(strstr(r, c->lacks[k]) == NULL, "%s: %s in %s", c->what, c->lacks[k], r);
    ck_assert_msg(late == c->late, "%s: %llu late", c->what, (unsigned long long)late);
    free(r);
}
END_TEST

TEST_SUITE(client_offwake)
{
    Suite *s = suite_create(test_suite_name);
    TCase *tc = tcase_create("offwake");
    tcase_add_loop_test(tc, pairing, 0, (int)(sizeof cases / sizeof cases[0]));
    suite_add_tcase(s, tc);
    return s;
}
