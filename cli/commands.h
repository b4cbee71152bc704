/* commands.h - the contend commands main() dispatches to.
 * Each takes its own argv (argv[0] is the command name) and returns
 * contend's exit status: 0 ok, 1 the verdict/target failed, 2 error. */
#ifndef CONTEND_COMMANDS_H
#define CONTEND_COMMANDS_H

struct command {
	const char *name;
	const char *summary;
	int (*fn)(int argc, char **argv);
};

struct options;
struct session_hooks;

int cmd_record(int argc, char **argv);      /* cmd_record.c */
int cmd_report(int argc, char **argv);      /* cmd_report.c */
int cmd_check(int argc, char **argv);       /* cmd_check.c */
int cmd_backends(int argc, char **argv);    /* cmd_backends.c */
int cmd_watch(int argc, char **argv);       /* cmd_watch.c */
int cmd_stat(int argc, char **argv);        /* cmd_stat.c */
int cmd_top(int argc, char **argv);         /* cmd_top.c */
int cmd_fix(int argc, char **argv);         /* cmd_fix.c */

/* Read the data file opt->input (default contend.data; "-": stdin) and
 * output its report as `contend run` would, or hand the report to
 * hooks->report.  Returns contend's exit status. */
int report_data_file(const struct options *opt, const struct session_hooks *hooks);

#endif
