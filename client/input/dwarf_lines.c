/* dwarf_lines: addresses to source lines with elfutils (see
 * dwarf_lines.h). */
#include "client/input/dwarf_lines.h"

#include <elfutils/libdwfl.h>
#include <errno.h>
#include <gelf.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "common/xalloc.h"

struct dwarf_binary {
    Dwfl        *dwfl;
    Dwfl_Module *mod;
};

/* NULL: elfutils' default search path (never changed; libdwfl takes
 * a char **) */
static char *debuginfo_path;

static const Dwfl_Callbacks offline_callbacks = {
    .find_elf = dwfl_build_id_find_elf,
    .find_debuginfo = dwfl_standard_find_debuginfo,
    .section_address = dwfl_offline_section_address,
    .debuginfo_path = &debuginfo_path,
};

dwarf_binary *dwarf_open(const char *path, strbuf *err)
{
    struct stat st;
    if (stat(path, &st) < 0) {
        sb_printf(err, "%s: %s (the samples name this binary; it is not on "
                  "this machine)", path, strerror(errno));
        return NULL;
    }
    if (!S_ISREG(st.st_mode)) {    /* a FIFO or device would block or lie */
        sb_printf(err, "%s: not a regular file", path);
        return NULL;
    }
    Dwfl *d = dwfl_begin(&offline_callbacks);
    if (d == NULL) {
        sb_printf(err, "%s: elfutils: %s", path, dwfl_errmsg(-1));
        return NULL;
    }
    Dwfl_Module *m = dwfl_report_offline(d, path, path, -1);
    dwfl_report_end(d, NULL, NULL);
    if (m == NULL) {
        sb_printf(err, "%s: not an ELF binary (%s)", path, dwfl_errmsg(-1));
        dwfl_end(d);
        return NULL;
    }
    dwarf_binary *b = xcalloc(1, sizeof *b);
    b->dwfl = d;
    b->mod = m;
    return b;
}

void dwarf_close(dwarf_binary *b)
{
    if (b) {
        dwfl_end(b->dwfl);
        free(b);
    }
}

bool dwarf_has_lines(dwarf_binary *b)
{
    Dwarf_Addr bias;
    Dwarf *dw = dwfl_module_getdwarf(b->mod, &bias);
    if (dw == NULL)
        return false;
    size_t nlines = 0;
    /* a binary with DWARF but no line program (-g0 pieces) has no CU
     * with lines: look for one */
    Dwarf_Die *cu = NULL;
    while ((cu = dwfl_module_nextcu(b->mod, cu, &bias)) != NULL) {
        Dwarf_Lines *lines;
        if (dwarf_getsrclines(cu, &lines, &nlines) == 0 && nlines > 0)
            return true;
    }
    return false;
}

bool dwarf_fixed(dwarf_binary *b)
{
    GElf_Addr bias;
    Elf *elf = dwfl_module_getelf(b->mod, &bias);
    GElf_Ehdr eh;
    return elf && gelf_getehdr(elf, &eh) && eh.e_type == ET_EXEC;
}

bool dwarf_symbol(dwarf_binary *b, const char *name, uint64_t *addr)
{
    int n = dwfl_module_getsymtab(b->mod);
    for (int i = 1; i < n; i++) {
        GElf_Sym sym;
        GElf_Addr a;
        const char *s = dwfl_module_getsym_info(b->mod, i, &sym, &a, NULL,
                                                NULL, NULL);
        if (s && GELF_ST_TYPE(sym.st_info) == STT_FUNC && sym.st_shndx != SHN_UNDEF
            && strcmp(s, name) == 0) {
            *addr = a;
            return true;
        }
    }
    return false;
}

bool dwarf_frame_line(dwarf_binary *b, const uint64_t *symbol_addr,
                      bool has_off, uint64_t where, bool caller,
                      const char **file, int *line)
{
    if (has_off ? symbol_addr == NULL : !dwarf_fixed(b))
        return false;
    uint64_t addr = has_off ? *symbol_addr + where : where;
    return dwarf_line(b, caller && addr ? addr - 1 : addr, file, line);
}

bool dwarf_line(dwarf_binary *b, uint64_t addr, const char **file, int *line)
{
    Dwfl_Line *l = dwfl_module_getsrc(b->mod, addr);
    if (l == NULL)
        return false;
    int ln = 0;
    const char *f = dwfl_lineinfo(l, NULL, &ln, NULL, NULL, NULL);
    if (f == NULL || ln <= 0)
        return false;
    *file = f;
    *line = ln;
    return true;
}
