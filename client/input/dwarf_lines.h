/* dwarf_lines: source lines of a binary's addresses, read with
 * elfutils' libdw (Dwfl, offline): the binary a perf DSO or SystemTap
 * module names, its symbol table, and its DWARF line table -- from the
 * binary itself or from separate debug info found the standard way
 * (.gnu_debuglink, /usr/lib/debug/.build-id).  For `staprelay
 * annotate`. */
#ifndef STAPRELAY_DWARF_LINES_H
#define STAPRELAY_DWARF_LINES_H

#include <stdbool.h>
#include <stdint.h>
#include "common/strbuf.h"

typedef struct dwarf_binary dwarf_binary;

/* Open a binary.  NULL with a message in err when the file is missing
 * or is not ELF. */
dwarf_binary *dwarf_open(const char *path, strbuf *err);
void dwarf_close(dwarf_binary *b);

/* True when it (or its debug file) has DWARF line information. */
bool dwarf_has_lines(dwarf_binary *b);
/* True for a fixed-address executable (ET_EXEC), whose run-time
 * addresses are its file addresses. */
bool dwarf_fixed(dwarf_binary *b);

/* The address of function symbol name; false when there is none. */
bool dwarf_symbol(dwarf_binary *b, const char *name, uint64_t *addr);

/* The source file and line of an address (in the binary's own
 * addresses, as dwarf_symbol gives them); false when unknown.  The
 * file name is the binary's, valid until dwarf_close. */
bool dwarf_line(dwarf_binary *b, uint64_t addr, const char **file, int *line);

/* The source line of one sampled frame: the rule `staprelay annotate`
 * and the pprof export (render/pprof_write) share.  The frame's address
 * in the binary is its symbol's address (symbol_addr; NULL when
 * dwarf_symbol found none) plus the offset its line printed (has_off:
 * where is that offset, main+0x1a), or, without an offset, the address
 * itself (where) in a fixed-address executable; a caller's address is
 * a return address, so its line is that of the address before (the
 * call).  False when the frame cannot be placed. */
bool dwarf_frame_line(dwarf_binary *b, const uint64_t *symbol_addr,
                      bool has_off, uint64_t where, bool caller,
                      const char **file, int *line);

#endif
