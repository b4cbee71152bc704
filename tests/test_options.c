/* The options each command parses, its --help and contend.1 agree:
 * every option a command takes is in its --help (long or short form),
 * every --option its --help names is one it takes, and contend.1 names
 * every option of every command. */
#include <stdlib.h>
#include <string.h>

#include "cli/options.h"
#include "common/util.h"
#include "tap.h"

static const char *const commands[] = {
	"run", "attach", "record", "report", "check", "stat", "top", "backends",
};

static __attribute__((noinline)) char *usage_text(const char *command)
{
	char *text = NULL;
	size_t size = 0;
	FILE *f = open_memstream(&text, &size);

	options_usage_write(f, command);
	fclose(f);
	return text;
}

/* Does text hold word, not as part of a longer option name? */
static bool has_word(const char *text, const char *word)
{
	size_t n = strlen(word);

	for (const char *p = strstr(text, word); p; p = strstr(p + 1, word)) {
		char after = p[n];
		bool starts = p == text || !(p[-1] == '-' || (p[-1] >= 'a' && p[-1] <= 'z'));

		if (starts && !(after == '-' || (after >= 'a' && after <= 'z')))
			return true;
	}
	return false;
}

static bool takes(const char *command, const char *name)
{
	for (unsigned i = 0; options_of_command(command, i); i++)
		if (!strcmp(options_of_command(command, i), name))
			return true;
	return false;
}

/* The short form of a long option, as the usage texts abbreviate. */
static const char *short_form(const char *name)
{
	static const char *const pairs[][2] = {
		{ "freq", "-F" }, { "output", "-o" }, { "backend", "-b" }, { "quiet", "-q" },
		{ "pid", "-p" }, { "all-cpus", "-a" }, { "duration", "-d" }, { "delay", "-D" },
		{ "tid", "-t" }, { "input", "-i" }, { "call-graph", "-g" }, { "interval", "-i" },
		{ "iterations", "-n" }, { "help", "-h" }, { "cgroup", "-G" },
	};
	for (size_t i = 0; i < ARRAY_SIZE(pairs); i++)
		if (!strcmp(pairs[i][0], name))
			return pairs[i][1];
	return NULL;
}

static void check_command(const char *command)
{
	char *text = usage_text(command);
	unsigned n = 0;

	for (unsigned i = 0; options_of_command(command, i); i++) {
		const char *name = options_of_command(command, i);
		char *lng = xasprintf("--%s", name);
		const char *shrt = short_form(name);

		n++;
		CHECK(!strcmp(name, "help") || has_word(text, lng) || (shrt && has_word(text, shrt)),
		      "contend %s --help names %s, an option it takes", command, lng);
		free(lng);
	}
	CHECK(n > 1, "contend %s takes options (%u)", command, n);
	/* every --word of the text is taken (examples included) */
	for (const char *p = strstr(text, "--"); p; p = strstr(p + 2, "--")) {
		char name[64];
		size_t len = strspn(p + 2, "abcdefghijklmnopqrstuvwxyz-");

		if (!len || len >= sizeof(name) || (p > text && p[-1] != ' ' && p[-1] != '('
						    && p[-1] != '[' && p[-1] != '\n'))
			continue;
		memcpy(name, p + 2, len);
		name[len] = '\0';
		CHECK(takes(command, name), "contend %s --help names --%s: it takes it", command,
		      name);
	}
	free(text);
}

/* contend.1 escapes each dash: \-\-line\-size. */
static void check_man_page(void)
{
	const char *top = getenv("top_srcdir");
	char *path = xasprintf("%s/contend.1", top ? top : ".");
	FILE *f = fopen(path, "r");
	char *man = NULL;
	size_t size = 0, got;

	if (!f) {
		CHECK(false, "cannot read %s", path);
		free(path);
		return;
	}
	man = xmalloc(1 << 20);
	got = fread(man, 1, (1 << 20) - 1, f);
	man[got] = '\0';
	fclose(f);
	(void)size;
	for (size_t c = 0; c < ARRAY_SIZE(commands); c++)
		for (unsigned i = 0; options_of_command(commands[c], i); i++) {
			const char *name = options_of_command(commands[c], i);
			struct strbuf word = STRBUF_INIT;

			if (!strcmp(name, "help"))
				continue;
			strbuf_add(&word, "\\-\\-", 4);
			for (const char *p = name; *p; p++)
				if (*p == '-')
					strbuf_add(&word, "\\-", 2);
				else
					strbuf_addch(&word, *p);

			CHECK(strstr(man, word.buf), "contend.1 names %s (an option of %s)",
			      word.buf, commands[c]);
			strbuf_release(&word);
		}
	free(man);
	free(path);
}

int main(void)
{
	for (size_t i = 0; i < ARRAY_SIZE(commands); i++)
		check_command(commands[i]);
	CHECK(!options_of_command("report", 100), "past the last: NULL");
	check_man_page();
	return test_done();
}
