/* staprelay: command-line entry point; dispatches to the commands, one
 * cmd_<name>() in client/cmd/cmd_<name>.c each (cmd/builtin.h). */
#include <stdio.h>
#include <string.h>
#include <jansson.h>
#include <pcp/pmapi.h>

#include "client/cmd/builtin.h"

static const struct {
    const char *name;
    int (*fn)(int, char **);
    const char *summary;
} commands[] = {
    { "fold",  cmd_fold,  "collapse profiles to folded stacks" },
    { "flame", cmd_flame, "draw an interactive SVG flame graph" },
    { "diff",  cmd_diff,  "draw a differential flame graph of two profiles" },
    { "top",   cmd_top,   "list the heaviest frames" },
    { "run",   cmd_run,   "run a bundled script (SystemTap or perf) into PCP" },
    { "list",  cmd_list,  "list the bundled scripts and the backends that run them here" },
    { "heatmap", cmd_heatmap, "draw a subsecond-offset heat map (HTML, SVG or JSON)" },
    { "live",  cmd_live,  "keep a heat map and flame graph of a live source in a directory" },
    { "graph", cmd_graph, "draw pprof's call graph (SVG through Graphviz, or DOT)" },
    { "annotate", cmd_annotate, "per-line samples of a function, from addresses and DWARF" },
    { "web",   cmd_web,   "serve the live profiling page (heat map, flame graph, diff, top) over HTTP" },
};

/* The version: ours, and the libraries we run with. */
#define STAPRELAY_VERSION "0.9"

static void version(void)
{
    const char *pcp = pmGetOptionalConfig("PCP_VERSION");
    printf("staprelay %s (PCP %s, jansson %s)\n", STAPRELAY_VERSION,
           pcp ? pcp : "?", jansson_version_str());
}

static void usage(FILE *fp)
{
    fprintf(fp, "usage: staprelay COMMAND [options] [FILE...]\n\ncommands:\n");
    /* one column for the summaries, as wide as the longest name */
    int width = 0;
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        if ((int)strlen(commands[i].name) > width)
            width = (int)strlen(commands[i].name);
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        fprintf(fp, "  %-*s %s\n", width, commands[i].name,
                commands[i].summary);
    fprintf(fp, "\n'staprelay COMMAND --help' lists a command's options; "
            "staprelay(1) explains them.\n");
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        usage(stderr);
        return 2;
    }
    if (strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0
        || strcmp(argv[1], "help") == 0) {
        if (argc > 2 && strcmp(argv[1], "help") == 0) {
            /* staprelay help COMMAND: that command's --help */
            char *hargv[] = { argv[2], "--help", NULL };
            for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
                if (strcmp(argv[2], commands[i].name) == 0)
                    return commands[i].fn(2, hargv);
        }
        usage(stdout);
        return 0;
    }
    if (strcmp(argv[1], "--version") == 0 || strcmp(argv[1], "-V") == 0
        || strcmp(argv[1], "version") == 0) {
        version();
        return 0;
    }
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        if (strcmp(argv[1], commands[i].name) == 0)
            return commands[i].fn(argc - 1, argv + 1);
    fprintf(stderr, "staprelay: unknown command '%s'\n", argv[1]);
    usage(stderr);
    return 2;
}
