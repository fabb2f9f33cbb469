/* stack: SystemTap backtrace text and folded stacks to canonical folded. */
#include "relay/stack.h"

#include <ctype.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    char **frames;
    size_t n, cap;
} frame_list;

static int push(frame_list *fl, char *f)
{
    if (fl->n == fl->cap) {
        size_t nc = fl->cap ? fl->cap * 2 : 32;
        char **nf = realloc(fl->frames, nc * sizeof(char *));
        if (nf == NULL)
            return -1;
        fl->frames = nf;
        fl->cap = nc;
    }
    fl->frames[fl->n++] = f;
    return 0;
}

static void free_list(frame_list *fl)
{
    for (size_t i = 0; i < fl->n; i++)
        free(fl->frames[i]);
    free(fl->frames);
}

static bool is_hex_addr(const char *s, size_t len)
{
    if (len < 3 || s[0] != '0' || (s[1] != 'x' && s[1] != 'X'))
        return false;
    for (size_t i = 2; i < len; i++)
        if (!isxdigit((unsigned char)s[i]))
            return false;
    return true;
}

/* Kernel text lives in the top half of the address space on x86_64 and
 * the other 64-bit architectures SystemTap supports. */
static bool kernel_address(const char *s, size_t len)
{
    if (!is_hex_addr(s, len) || len - 2 > 16)
        return false;
    return len - 2 == 16 && strchr("89abcdefABCDEF", s[2]) != NULL;
}

static char *make_frame(const char *name, size_t len, bool kernel)
{
    char *f = malloc(len + 5);
    if (f == NULL)
        return NULL;
    size_t k = 0;
    for (size_t i = 0; i < len; i++) {
        char c = name[i];
        if (c == ';')
            c = ':';              /* ';' separates frames */
        else if ((unsigned char)c < 0x20)
            c = '_';
        f[k++] = c;
    }
    if (kernel) {
        memcpy(f + k, "_[k]", 4);
        k += 4;
    }
    f[k] = '\0';
    return f;
}

/* One backtrace line: "0xADDR : sym+0x1/0x2 [module] (inexact)". */
static char *parse_line(const char *line, size_t len)
{
    while (len > 0 && isspace((unsigned char)*line)) {
        line++;
        len--;
    }
    while (len > 0 && isspace((unsigned char)line[len - 1]))
        len--;
    if (len == 0)
        return NULL;
    const char *addr = line;
    size_t addrlen = strcspn(line, " \t");
    if (addrlen > len)
        addrlen = len;
    const char *sep = memchr(line, ':', len);
    bool has_sep = sep != NULL && is_hex_addr(addr, addrlen) && sep > line + addrlen - 1;
    if (!has_sep && is_hex_addr(line, len))
        return make_frame(line, len, kernel_address(line, len));   /* bare address */
    const char *rest = line;
    size_t rlen = len;
    if (has_sep) {
        rest = sep + 1;
        rlen = len - (size_t)(rest - line);
    } else {
        addr = NULL;     /* "sym+off/size [module]" without an address */
        addrlen = 0;
    }
    while (rlen > 0 && isspace((unsigned char)*rest)) {
        rest++;
        rlen--;
    }
    /* drop " (inexact)" */
    const char *inexact = "(inexact)";
    if (rlen >= 9 && memcmp(rest + rlen - 9, inexact, 9) == 0) {
        rlen -= 9;
        while (rlen > 0 && isspace((unsigned char)rest[rlen - 1]))
            rlen--;
    }
    /* module in brackets at the end */
    const char *mod = NULL;
    size_t modlen = 0;
    if (rlen > 0 && rest[rlen - 1] == ']') {
        const char *open = NULL;
        for (const char *p = rest + rlen - 1; p >= rest; p--)
            if (*p == '[') {
                open = p;
                break;
            }
        if (open != NULL) {
            mod = open + 1;
            modlen = (size_t)(rest + rlen - 1 - mod);
            rlen = (size_t)(open - rest);
            while (rlen > 0 && isspace((unsigned char)rest[rlen - 1]))
                rlen--;
        }
    }
    /* the symbol: strip "+off/size" (stackcollapse-stap.pl's rule) */
    size_t symlen = rlen;
    for (size_t i = rlen; i-- > 0;)
        if (rest[i] == '+') {
            symlen = i;
            break;
        }
    /* kernel: "[kernel]" or a module name without a path */
    bool kernel = mod != NULL ? (modlen > 0 && memchr(mod, '/', modlen) == NULL)
                              : (addr != NULL && kernel_address(addr, addrlen));
    if (symlen == 0 && addr == NULL)
        return NULL;
    if (symlen == 0) {
        /* unresolved: keep the address so distinct places stay distinct */
        return make_frame(addr, addrlen, kernel || kernel_address(addr, addrlen));
    }
    return make_frame(rest, symlen, kernel);
}

static char *join(frame_list *fl, bool reverse, char sep)
{
    size_t total = 1;
    for (size_t i = 0; i < fl->n; i++)
        total += strlen(fl->frames[i]) + 1;
    char *out = malloc(total);
    if (out == NULL)
        return NULL;
    size_t k = 0;
    for (size_t j = 0; j < fl->n; j++) {
        const char *f = fl->frames[reverse ? fl->n - 1 - j : j];
        size_t len = strlen(f);
        if (j > 0)
            out[k++] = sep;
        memcpy(out + k, f, len);
        k += len;
    }
    out[k] = '\0';
    return out;
}

char *stack_fold(const char *text, size_t *nframes, char *err, size_t errlen)
{
    frame_list fl = {0};
    bool folded = strchr(text, '\n') == NULL && strstr(text, " : ") == NULL;
    const char *p = text;
    while (*p) {
        size_t len = strcspn(p, folded ? ";" : "\n");
        char *f = NULL;
        if (folded) {
            size_t s = 0;
            while (s < len && isspace((unsigned char)p[s]))
                s++;
            size_t e = len;
            while (e > s && isspace((unsigned char)p[e - 1]))
                e--;
            if (e > s)
                f = make_frame(p + s, e - s, false);
        } else {
            f = parse_line(p, len);
        }
        if (f != NULL && push(&fl, f) < 0) {
            free(f);
            break;
        }
        p += len;
        if (*p)
            p++;
    }
    *nframes = fl.n;
    if (fl.n == 0) {
        snprintf(err, errlen, "stack has no frames");
        free_list(&fl);
        return NULL;
    }
    /* backtrace text is leaf first; folded is already root first */
    char *out = join(&fl, !folded, ';');
    free_list(&fl);
    if (out == NULL)
        snprintf(err, errlen, "out of memory");
    return out;
}

char *stack_instance_name(const char *folded)
{
    char *out = strdup(folded);
    if (out == NULL)
        return NULL;
    for (char *c = out; *c; c++) {
        if (*c == ';')
            *c = ',';
        else if (*c == ',')
            *c = ':';
        else if (isspace((unsigned char)*c))
            *c = '_';
    }
    return out;
}
