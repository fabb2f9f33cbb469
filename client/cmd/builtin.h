/* commands: the staprelay subcommands that work on files.  Each takes
 * argv with argv[0] = the command name and returns the exit status
 * (0 ok, 1 runtime error, 2 usage error or no usable input). */
#ifndef STAPRELAY_COMMANDS_H
#define STAPRELAY_COMMANDS_H

int cmd_fold(int argc, char **argv);
int cmd_flame(int argc, char **argv);
int cmd_diff(int argc, char **argv);
int cmd_top(int argc, char **argv);
int cmd_run(int argc, char **argv);   /* client/run.c */
int cmd_list(int argc, char **argv);  /* client/run.c */

#endif
