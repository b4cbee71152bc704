/* contend - find the cache lines threads fight over.
 *
 * Each command is one entry in the table below: a name, a one-line summary
 * for --help, and a function taking the command's own argv (argv[0] is the
 * command name).  A command lives in its own file (cmd_*.c / session.c).
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/commands.h"
#include "cli/options.h"
#include "engine/continuous.h"
#include "engine/fix_run.h"
#include "engine/session.h"
#include "common/util.h"

static int cmd_run(int argc, char **argv)
{
	struct options opt;
	options_parse(&opt, argc, argv);
	return opt.measure_fix ? fix_run_session(&opt) : session_run(&opt, NULL);
}

static int cmd_attach(int argc, char **argv)
{
	struct options opt;
	int ret;

	options_parse(&opt, argc, argv);
	if (!opt.system_wide && opt.pid <= 0)
		options_usage("attach", 2);
	if (opt.continuous)
		ret = continuous_attach(&opt);
	else
		ret = session_attach(&opt, NULL);
	free(opt.tids);         /* -t, -p lists: options_parse() grew them */
	free(opt.pids);
	free(opt.cgroup);
	return ret;
}

static const struct command commands[] = {
	{ "run", "run a command and report its contended cache lines", cmd_run },
	{ "attach", "sample a running process for a while and report", cmd_attach },
	{ "record", "run or attach like run/attach, and write the samples to a file", cmd_record },
	{ "report", "report on a data file written by record", cmd_report },
	{ "check", "pass or fail a program (for CI) against contention rules", cmd_check },
	{ "stat", "count first: is contention the problem at all? (counters, a verdict)", cmd_stat },
	{ "backends", "say which sampling backends can run here, and why not", cmd_backends },
	{ "watch", "count every access to given words, per thread (watchpoints)", cmd_watch },
	{ "top", "a live view of the lines contended in the last seconds", cmd_top },
	{ "fix", "write the fix of each contended line as a patch; --verify proves it", cmd_fix },
};

static void usage(int status)
{
	FILE *f = status ? stderr : stdout;
	fprintf(f, "usage: contend <command> [options]\n\nCommands:\n");
	for (size_t i = 0; i < ARRAY_SIZE(commands); i++)
		fprintf(f, "  %-9s %s\n", commands[i].name, commands[i].summary);
	fprintf(f, "\nSee 'contend <command> --help' and contend(1).\n"
		   "\nExamples:\n"
		   "  contend run -- ./myprog -t 8\n"
		   "  contend attach -p $(pidof server) -d 10\n");
	exit(status);
}

int main(int argc, char **argv)
{
	const char *cmd;

	if (argc < 2)
		usage(2);
	cmd = argv[1];
	if (!strcmp(cmd, "-h") || !strcmp(cmd, "--help") || !strcmp(cmd, "help"))
		usage(0);
	if (!strcmp(cmd, "-V") || !strcmp(cmd, "--version")) {
		printf("contend %s\n", PACKAGE_VERSION);
		return 0;
	}
	for (size_t i = 0; i < ARRAY_SIZE(commands); i++)
		if (!strcmp(cmd, commands[i].name))
			return commands[i].fn(argc - 1, argv + 1);
	for (size_t i = 0; i < ARRAY_SIZE(commands); i++)
		if (edit_distance(cmd, commands[i].name) <= 2) {
			error("'%s' is not a contend command (did you mean '%s'?); see "
			      "'contend --help'", cmd, commands[i].name);
			return 2;
		}
	error("'%s' is not a contend command; see 'contend --help'", cmd);
	return 2;
}
