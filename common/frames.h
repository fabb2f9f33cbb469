/* frames: the one frame grammar.  What a line of SystemTap backtrace
 * text or of `perf script` output says about a frame, the canonical
 * name that frame gets, and how a stack of such lines (leaf first)
 * folds, root first, into flamegraph.pl's "a;b;c".  The relay (every
 * stack a source publishes) and the client (fold, flame, ... reading
 * files) both fold through here, so the same samples give the same
 * frames on both paths; docs/formats.md, "Stacks", is the grammar in
 * prose and tests/common_frames.c the table of real frame shapes.
 *
 * Lines (leading and trailing blanks ignored):
 *   SystemTap  [ADDR " : "] BODY [" (inexact)"], BODY being
 *              SYMBOL "+" OFF ["/" SIZE] [" [" MODULE "]"] or
 *              ADDR [" [" MODULE ["+" OFF ["/" SIZE]] "]"], with
 *              "Returning from:"/"Returning to  :" prefixes; ADDR is 0x
 *              and hex digits (either case), OFF and SIZE 0x numbers;
 *              "<no ... backtrace ...>" lines hold no frame;
 *   perf       HEXPC blanks FUNC ["+0x" HEX] " (" DSO ")", DSO without
 *              blanks; a FUNC starting with '(' (a process name) holds
 *              no frame; "a->b->c" is one frame and two inlined ones.
 *
 * Names:
 *   - every name: ';' becomes ':' and control bytes '_' (a folded stack
 *     is one line of ';'-separated frames);
 *   - SystemTap: the symbol, kept whole (SystemTap prints linkage
 *     names); without a symbol "[MODULE basename]" when the module is
 *     known (as perf names [unknown] frames), else the bare address;
 *   - perf, as stackcollapse-perf.pl tidies: offset gone, the argument
 *     list cut at the first '(' (but "(anonymous namespace)" and Go's
 *     "pkg.(*T).M" kept), quotes deleted; "[unknown]" becomes "[DSO
 *     basename]" (or "[unknown]"), "[NAME <PC>]" with perf_addrs; a
 *     JVM type signature "Lpkg/Class;" loses its 'L' whatever the
 *     process is called (stackcollapse-perf.pl only for comm "java",
 *     which misses every other JVM thread); an empty name is no frame.
 * Marks (flamegraph.pl's annotations), each only when asked for:
 *   "_[k]" kernel frames: SystemTap module "kernel", or a 16-digit
 *          upper-half address without a path module, or no evidence and
 *          a kernel frame further from the leaf (kernel backtraces come
 *          first); perf DSO "[...]" or ".../vmlinux", not "[unknown]";
 *   "_[j]" perf frames of a /tmp/perf-N.map DSO (JIT);
 *   "_[i]" the inlined frames of "a->b" (always, as the Perl).
 *
 * A line that is "--" alone is the delimiter of Brendan Gregg's off-wake
 * stacks (the waker's frames above the blocked task's): the frame "--",
 * never marked.  A frame with no evidence of its side takes it from the
 * frames of its own part only, the waker's or the blocked task's. */
#ifndef STAPRELAY_FRAMES_H
#define STAPRELAY_FRAMES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "common/strbuf.h"

typedef enum {
    FRAME_NONE = 0,     /* not a frame line */
    FRAME_STAP,         /* a SystemTap backtrace line */
    FRAME_PERF,         /* a perf script frame line */
    FRAME_DELIM,        /* the off-wake delimiter line "--" */
} frame_kind;

/* The off-wake delimiter: a line of its own, and the frame it becomes. */
#define FRAME_DELIMITER "--"

typedef enum {
    FRAME_SIDE_UNKNOWN = 0,
    FRAME_SIDE_USER,
    FRAME_SIDE_KERNEL,
} frame_side;

typedef struct frame_opts {
    bool mark_kernel;   /* "_[k]" */
    bool mark_jit;      /* "_[j]" */
    bool perf_addrs;    /* perf [unknown] frames keep their PC */
} frame_opts;

/* One line as the grammar reads it; spans point into the line. */
typedef struct frame_line {
    frame_kind  kind;
    bool        empty;      /* a frame line holding no frame */
    frame_side  side;       /* what the line itself says */
    const char *name;       /* SystemTap: symbol or address; perf: FUNC
                             * without its offset */
    size_t      name_len;
    const char *module;     /* SystemTap MODULE (offset stripped) or perf
                             * DSO; NULL when none */
    size_t      module_len;
    const char *pc;         /* perf PC; SystemTap: the line's address
                             * (its ADDR, or the unresolved frame's);
                             * NULL when the line has none */
    size_t      pc_len;
    bool        unresolved; /* SystemTap: no symbol, name is an address */
    bool        has_off;    /* the symbol's offset was printed: */
    uint64_t    sym_off;    /* perf "+0x1a", SystemTap "+0xb/0xd" */
} frame_line;

/* Classify and take apart one line (no newline).  False: not a frame
 * line (fl->kind is FRAME_NONE). */
bool frame_parse(const char *s, size_t n, frame_line *fl);

/* True when a line starts the way only a frame line does (an address,
 * or SystemTap's "Returning "): a lone line like that which is no frame
 * is an error, not a one-frame folded stack. */
bool frame_line_addressed(const char *s, size_t n);
/* True when a line that is no frame could be one cut short (SystemTap's
 * sprint_* cut their text at MAXSTRINGLEN): one word, or a first word
 * that is an address or holds "+0x". */
bool frame_line_cut_short(const char *s, size_t n);

/* Append s to out as frame text: ';' as ':', control bytes as '_'. */
void frame_clean(strbuf *out, const char *s, size_t n);

/* stackcollapse-perf.pl's process frame: COMM, COMM-PID (with_pid) or
 * COMM-PID/TID (with_tid), "?" for a missing comm, PID or TID, blanks
 * in COMM as '_'.  Appended to out. */
void frame_process(strbuf *out, const char *comm, size_t comm_len,
                   const char *pid, size_t pid_len, const char *tid,
                   size_t tid_len, bool with_pid, bool with_tid);

/* ---- a stack ------------------------------------------------------------ */

typedef struct stack_frame {
    size_t      off;        /* name in the names buffer, NUL-terminated */
    frame_side  side;
    const char *mark;       /* decided by its line, or NULL: by side */
    /* Where the frame is, as its line said (pprof export keeps it):
     * the address (0: none), the module or DSO as printed (in the
     * names buffer; STACK_FRAME_NO_MODULE: none), and the ordinal of
     * the line, which the frames of one line share (perf's inlined
     * a->b: one address, several functions). */
    uint64_t    addr;
    size_t      module_off;
    unsigned    line;
    bool        has_off;    /* the offset into its symbol was printed */
    uint64_t    sym_off;
} stack_frame;
#define STACK_FRAME_NO_MODULE ((size_t)-1)

/* The frames of one stack, leaf first, as lines arrive. */
typedef struct stackfold {
    frame_opts   opt;
    strbuf       names;
    stack_frame *f;
    size_t       n, cap;
    unsigned     lines;     /* lines added: the next frame's .line */
    bool         failed;    /* soft: out of memory */
} stackfold;

/* soft: out of memory marks the stack failed (relay) instead of
 * aborting (client). */
void stackfold_init(stackfold *sf, const frame_opts *opt, bool soft);
void stackfold_free(stackfold *sf);
void stackfold_reset(stackfold *sf);
/* Add the frames of a parsed line (leaf first); returns how many. */
size_t stackfold_add(stackfold *sf, const frame_line *fl);
/* Parse a line and add its frames; returns its kind (FRAME_NONE: not a
 * frame line, nothing added). */
frame_kind stackfold_line(stackfold *sf, const char *s, size_t n);
/* Add the frames of a folded stack (root first, ';'-joined): each
 * trimmed, empty ones dropped, no marks added (it carries its own). */
void stackfold_folded(stackfold *sf, const char *s, size_t n);
size_t stackfold_count(const stackfold *sf);
/* Frame i (leaf first): its name (without mark), its module or NULL. */
const char *stackfold_name(const stackfold *sf, size_t i);
const char *stackfold_module(const stackfold *sf, size_t i);
/* Add one frame named name (cleaned as every name is) with where it is;
 * frames added with the same line number are one line's (inlined
 * calls, innermost first).  For readers of formats that carry
 * addresses themselves (pprof). */
void stackfold_push(stackfold *sf, const char *name, size_t n, uint64_t addr,
                    const char *module, unsigned line);
/* Append the stack to out, root first, ';'-joined, with the marks the
 * options ask for.  False when out of memory (soft). */
bool stackfold_write(const stackfold *sf, strbuf *out);

#endif
