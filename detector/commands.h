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

#endif
