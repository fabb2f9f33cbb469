/* builtin: every staprelay command, one cmd_<name>() each in
 * client/cmd/cmd_<name>.c (git's builtin.h).  Each takes argv with
 * argv[0] = the command name and returns the exit status: 0 ok, 1
 * runtime error, 2 usage error or no usable input (run and list add 3:
 * no backend can run the script here; see staprelay(1), EXIT STATUS). */
#ifndef STAPRELAY_BUILTIN_H
#define STAPRELAY_BUILTIN_H

int cmd_fold(int argc, char **argv);
int cmd_flame(int argc, char **argv);
int cmd_diff(int argc, char **argv);
int cmd_top(int argc, char **argv);
int cmd_heatmap(int argc, char **argv);
int cmd_live(int argc, char **argv);
int cmd_run(int argc, char **argv);
int cmd_list(int argc, char **argv);
int cmd_graph(int argc, char **argv);
int cmd_annotate(int argc, char **argv);
int cmd_web(int argc, char **argv);

#endif
