/* options.h - command-line options of every contend command, in one place.
 *
 * options_parse() fills struct options (engine/options.h: what the
 * command asks of the engine) for the command named in argv[0]
 * (after "contend") and dies with a usage message (exit 2) on bad input.
 * The target command, if any, is what follows "--".
 */
#ifndef CONTEND_OPTIONS_H
#define CONTEND_OPTIONS_H

#include <stdio.h>
#include "engine/options.h"

void options_parse(struct options *o, int argc, char **argv);
/* `contend fix --help` (cmd_fix.c): a printf format taking the default -F */
extern const char usage_fix[];
void options_usage(const char *command, int status) __attribute__((noreturn));
/* The --help text of command, to f. */
void options_usage_write(FILE *f, const char *command);

/* getopt_long refused an option (it returned c, '?' or ':', with opterr
 * 0 and argv[optind - 1] the word): one line, "unknown option '--freqq'
 * (did you mean '--freq'?)" or "option '-p' needs a value", and the
 * command's --help; exits 2. */
struct option;
/* The i-th long option command takes ("freq", ...), NULL past the last:
 * what the tests compare its --help and contend.1 with. */
const char *options_of_command(const char *command, unsigned i);

void options_refuse(const char *command, int c, const struct option *longopts, char **argv);

/* The format --format NAME asks for where use (format.h) says; dies
 * naming the formats there are when there is none. */
const struct report_format *options_format(const char *name, unsigned use);

#endif
