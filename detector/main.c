/* contend - find the cache lines threads fight over. */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "options.h"
#include "session.h"
#include "util.h"

int main(int argc, char **argv)
{
	struct options opt;
	const char *cmd;

	if (argc < 2)
		options_usage(NULL, 2);
	cmd = argv[1];
	if (!strcmp(cmd, "-h") || !strcmp(cmd, "--help") || !strcmp(cmd, "help"))
		options_usage(NULL, 0);
	if (!strcmp(cmd, "-V") || !strcmp(cmd, "--version")) {
		printf("contend %s\n", PACKAGE_VERSION);
		return 0;
	}
	if (!strcmp(cmd, "run")) {
		options_parse(&opt, argc - 1, argv + 1);
		return session_run(&opt, NULL);
	}
	if (!strcmp(cmd, "attach")) {
		options_parse(&opt, argc - 1, argv + 1);
		return session_attach(&opt, NULL);
	}
	error("'%s' is not a contend command; see 'contend --help'", cmd);
	return 2;
}
