/* pcpdump: fetch metrics once and print every value unambiguously, for
 * byte-exact comparisons with the JSON documents they came from.
 *
 *   pcpdump -h HOST METRIC...
 *
 * One line per value: NAME TAB INSTANCE TAB VALUE, where INSTANCE is "-"
 * for singular metrics, else the external instance name, and strings
 * (instance names, string values) are JSON-encoded as Python's
 * json.dumps(s, ensure_ascii=False) does ("\"", "\\", \b \f \n \r \t,
 * \u00XX for other control bytes, everything else verbatim).  Event
 * metrics and metrics without values print nothing.
 * Build: cc -O2 -o pcpdump pcpdump.c -lpcp */
#include <pcp/pmapi.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void json_string(const char *s)
{
    putchar('"');
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        switch (c) {
        case '"': fputs("\\\"", stdout); break;
        case '\\': fputs("\\\\", stdout); break;
        case '\b': fputs("\\b", stdout); break;
        case '\f': fputs("\\f", stdout); break;
        case '\n': fputs("\\n", stdout); break;
        case '\r': fputs("\\r", stdout); break;
        case '\t': fputs("\\t", stdout); break;
        default:
            if (c < 0x20)
                printf("\\u%04x", c);
            else
                putchar(c);
        }
    }
    putchar('"');
}

int main(int argc, char **argv)
{
    const char *host = "local:";
    int c;
    while ((c = getopt(argc, argv, "h:")) != -1) {
        if (c != 'h') {
            fprintf(stderr, "usage: pcpdump -h HOST METRIC...\n");
            return 2;
        }
        host = optarg;
    }
    int sts = pmNewContext(PM_CONTEXT_HOST, host);
    if (sts < 0) {
        fprintf(stderr, "pcpdump: %s: %s\n", host, pmErrStr(sts));
        return 1;
    }
    int rc = 0;
    for (int i = optind; i < argc; i++) {
        char *name = argv[i];
        pmID pmid;
        pmDesc desc;
        pmResult *res;
        if ((sts = pmLookupName(1, (const char **)&name, &pmid)) < 0 ||
            (sts = pmLookupDesc(pmid, &desc)) < 0) {
            fprintf(stderr, "pcpdump: %s: %s\n", name, pmErrStr(sts));
            rc = 1;
            continue;
        }
        if (desc.type == PM_TYPE_EVENT || desc.type == PM_TYPE_HIGHRES_EVENT)
            continue;
        if ((sts = pmFetch(1, &pmid, &res)) < 0) {
            fprintf(stderr, "pcpdump: fetch %s: %s\n", name, pmErrStr(sts));
            rc = 1;
            continue;
        }
        pmValueSet *vs = res->vset[0];
        for (int j = 0; j < vs->numval; j++) {
            pmAtomValue a;
            printf("%s\t", name);
            if (desc.indom == PM_INDOM_NULL) {
                putchar('-');
            } else {
                char *iname = NULL;
                if (pmNameInDom(desc.indom, vs->vlist[j].inst, &iname) >= 0) {
                    json_string(iname);
                    free(iname);
                } else {
                    printf("#%d", vs->vlist[j].inst);
                }
            }
            putchar('\t');
            if (pmExtractValue(vs->valfmt, &vs->vlist[j], desc.type, &a, desc.type) < 0) {
                puts("?");
                continue;
            }
            switch (desc.type) {
            case PM_TYPE_STRING: json_string(a.cp); free(a.cp); break;
            case PM_TYPE_64: printf("%" PRId64, (int64_t)a.ll); break;
            case PM_TYPE_U64: printf("%" PRIu64, (uint64_t)a.ull); break;
            case PM_TYPE_32: printf("%d", a.l); break;
            case PM_TYPE_U32: printf("%u", a.ul); break;
            case PM_TYPE_DOUBLE: printf("%.17g", a.d); break;
            case PM_TYPE_FLOAT: printf("%.9g", a.f); break;
            default: printf("(type %d)", desc.type); break;
            }
            putchar('\n');
        }
        pmFreeResult(res);
    }
    return rc;
}
