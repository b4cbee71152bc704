/* fix_verify.c - `contend fix --verify`: the patch applied to a scratch
 * copy, built, timed and sampled again (fix_verify.h). */
#include "cli/fix_verify.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/escape.h"
#include "common/util.h"
#include "reports/fix_source.h"
#include "reports/report.h"

#define SAY "contend fix --verify: "
#define LOG_TAIL_LINES 15

struct verify {
	const struct report *r;
	const struct options *opt;
	char *scratch, *tree;       /* the scratch directory, the copy in it */
	char **patched_argv;        /* opt->argv, paths under the root mapped */
	bool *mapped;               /* ... patched_argv[i] is a copy's path */
	char *run_dir;              /* where the rebuilt command runs, NULL: here */
};

/* Run argv in dir (NULL: here), stdin from /dev/null, stdout (and
 * stderr, when both) to out (NULL: /dev/null).  The exit status as
 * waitpid gives it, or -1; *wall the seconds it took. */
static int spawn(const char *dir, char *const *argv, const char *out, bool both, double *wall)
{
	int status = -1, fd;
	double t0 = monotonic_s();
	pid_t pid = fork(), w;

	if (pid == 0) {
		if (dir && chdir(dir) < 0)
			_exit(126);
		fd = open("/dev/null", O_RDONLY);
		if (fd >= 0)
			dup2(fd, STDIN_FILENO);
		fd = out ? open(out, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0600) :
			   open("/dev/null", O_WRONLY);
		if (fd >= 0) {
			dup2(fd, STDOUT_FILENO);
			dup2(both ? fd : open("/dev/null", O_WRONLY), STDERR_FILENO);
		}
		signal(SIGINT, SIG_DFL);
		execvp(argv[0], argv);
		_exit(127);
	}
	if (pid < 0)
		return -1;
	while ((w = waitpid(pid, &status, 0)) < 0 && errno == EINTR)
		kill(pid, SIGTERM);     /* a stop signal: end it, then return */
	if (wall)
		*wall = monotonic_s() - t0;
	return w < 0 ? -1 : status;
}

static bool exited_ok(int status)
{
	return status >= 0 && WIFEXITED(status) && !WEXITSTATUS(status);
}

static char *status_words(int status)
{
	if (status < 0)
		return xstrdup("could not be started");
	if (WIFSIGNALED(status))
		return xasprintf("was killed by signal %d", WTERMSIG(status));
	if (WEXITSTATUS(status) == 127)
		return xstrdup("was not found (exit status 127)");
	return xasprintf("exited with status %d", WEXITSTATUS(status));
}

/* The last lines of a log, as "contend fix --verify:   LINE". */
static void print_tail(const char *path)
{
	struct fix_source s;
	struct strbuf sb = STRBUF_INIT;
	char *why = NULL;

	if (fix_source_read(path, NULL, &s, &why) < 0) {
		free(why);
		return;
	}
	for (unsigned k = s.n_lines > LOG_TAIL_LINES ? s.n_lines - LOG_TAIL_LINES + 1 : 1;
	     k <= s.n_lines; k++) {
		char *line = xstrdup(fix_source_line(&s, k));

		line[strcspn(line, "\n")] = '\0';
		fprintf(stderr, SAY "  %s\n", escape_text(&sb, line));
		free(line);
	}
	strbuf_release(&sb);
	fix_source_release(&s);
}

static char *scratch_path(const struct verify *v, const char *name)
{
	return xasprintf("%s/%s", v->scratch, name);
}

static bool write_file(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	size_t len = strlen(text), done = 0;

	if (fd < 0)
		return false;
	while (done < len) {
		ssize_t n = write(fd, text + done, len - done);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		done += (size_t)n;
	}
	return !close(fd) && done == len;
}

/* --- 1. copy, patch, build ----------------------------------------------- */

static bool copy_patch_build(struct verify *v)
{
	char *patch = scratch_path(v, "fix.patch"), *log = scratch_path(v, "patch.log");
	char *build_log = scratch_path(v, "build.log");
	char *cp[] = { "cp", "-a", "--", v->r->patch.root, v->tree, NULL };
	char *apply[] = { "patch", "-p1", "--batch", "--forward", "-d", v->tree, "-i", patch, NULL };
	char *build[] = { "sh", "-c", (char *)v->opt->verify_build, NULL };
	struct strbuf sb = STRBUF_INIT;
	bool ok = false;
	double secs = 0;
	int st;

	if (!exited_ok(st = spawn(NULL, cp, log, true, NULL))) {
		char *w = status_words(st);

		fprintf(stderr, SAY "copying %s to %s failed: cp %s\n",
			escape_text(&sb, v->r->patch.root), v->tree, w);
		free(w);
		print_tail(log);
	} else if (!write_file(patch, v->r->patch.diff)) {
		fprintf(stderr, SAY "%s: %s\n", patch, strerror(errno));
	} else if (!exited_ok(spawn(NULL, apply, log, true, NULL))) {
		fprintf(stderr, SAY "the patch does not apply to a copy of %s:\n",
			escape_text(&sb, v->r->patch.root));
		print_tail(log);
	} else if (!exited_ok(st = spawn(v->tree, build, build_log, true, &secs))) {
		char *w = status_words(st);

		fprintf(stderr, SAY "the build of the patched copy (sh -c '%s' in %s) %s; its "
			"last lines:\n", escape_text(&sb, v->opt->verify_build), v->tree, w);
		free(w);
		print_tail(build_log);
	} else {
		fprintf(stderr, SAY "patched a copy of %s and built it (%.1f s)\n",
			escape_text(&sb, v->r->patch.root), secs);
		ok = true;
	}
	strbuf_release(&sb);
	free(patch);
	free(log);
	free(build_log);
	return ok;
}

/* path's counterpart in the copy when it lies under the root (NULL:
 * not under it).  Caller frees. */
static char *in_copy(const struct verify *v, const char *path)
{
	char *abs = realpath(path, NULL), *rel, *out = NULL;

	rel = abs ? fix_relative_path(abs, v->r->patch.root) : NULL;
	if (abs && !rel && !strcmp(abs, v->r->patch.root))
		out = xstrdup(v->tree);
	else if (rel)
		out = xasprintf("%s/%s", v->tree, rel);
	free(abs);
	free(rel);
	return out;
}

/*
 * The command for the rebuilt copy: argv[0], and every argument that is
 * a path under the root, mapped into the copy; run from the copy's
 * counterpart of the current directory when that is under the root (java
 * -cp . Main, run from the project).  NULL and why when nothing would
 * run the rebuilt code.  v->patched_argv[i] for i > 0 is v->opt->argv[i]
 * unless v->mapped[i].
 */
static char **rebuilt_argv(struct verify *v, char **why)
{
	char **out = xcalloc((size_t)v->opt->argc + 1, sizeof(*out));
	char cwd[PATH_MAX];
	bool any = false;

	v->mapped = xcalloc((size_t)v->opt->argc + 1, sizeof(*v->mapped));
	if (getcwd(cwd, sizeof(cwd)))
		v->run_dir = in_copy(v, cwd);
	for (int i = 0; i < v->opt->argc; i++) {
		char *m = (i == 0 && !strchr(v->opt->argv[0], '/')) ? NULL :
			  in_copy(v, v->opt->argv[i]);

		v->mapped[i] = m != NULL;
		out[i] = m ? m : v->opt->argv[i];
		any |= v->mapped[i];
	}
	if (!any && !v->run_dir) {
		*why = xasprintf("nothing of '%s' is under %s, nor is the current directory: give "
				 "the command by its path in the project, or run from it",
				 v->opt->argv[0], v->r->patch.root);
		free(v->mapped);
		v->mapped = NULL;
		free(out);
		return NULL;
	}
	return out;
}

static void rebuilt_argv_free(struct verify *v)
{
	for (int i = 0; v->patched_argv && i < v->opt->argc; i++)
		if (v->mapped[i])
			free(v->patched_argv[i]);
	free(v->patched_argv);
	free(v->mapped);
	free(v->run_dir);
}

/* --- 2. the ratio -------------------------------------------------------- */

static bool same_file(const char *a, const char *b)
{
	struct fix_source x, y;
	char *why = NULL;
	bool same = false;

	if (fix_source_read(a, NULL, &x, &why) == 0) {
		if (fix_source_read(b, NULL, &y, &why) == 0) {
			same = x.n_lines == y.n_lines;
			for (unsigned k = 1; same && k <= x.n_lines; k++)
				same = !strcmp(fix_source_line(&x, k), fix_source_line(&y, k));
			fix_source_release(&y);
		}
		fix_source_release(&x);
	}
	free(why);
	return same;
}

/* Does the rebuilt program print what the original does?  Said only when
 * the original's own runs agree: timings in the output differ anyway. */
static bool outputs_agree(const struct verify *v, unsigned n)
{
	char *o0 = scratch_path(v, "out-0-0"), *o1 = scratch_path(v, "out-0-1");
	char *f0 = scratch_path(v, "out-1-0");
	bool agree = true;

	if (!same_file(o0, f0)) {
		if (n > 1 && same_file(o0, o1)) {
			fprintf(stderr, SAY "the patched program's output differs from the "
				"original's (theirs agree between runs): compare %s and %s\n", o0, f0);
			agree = false;
		} else {
			fprintf(stderr, SAY "the output varies from run to run (times, counts): "
				"not compared\n");
		}
	}
	free(o0);
	free(o1);
	free(f0);
	return agree;
}

/* Runs the two programs in turn (the order swapped each pair); false
 * when one fails or the outputs differ. */
static bool time_both(struct verify *v)
{
	unsigned n = v->opt->verify_runs;
	double *wall[2] = { xcalloc(n, sizeof(double)), xcalloc(n, sizeof(double)) };
	const struct report_line *top = v->r->n_lines ? &v->r->lines[0] : NULL;
	double lo = 0, hi = 0, predicted = top ? top->predicted_gain : 0;
	bool ok = true;

	for (unsigned i = 0; i < n && ok; i++) {
		for (unsigned j = 0; j < 2 && ok; j++) {
			unsigned fixed = (i + j) % 2;
			char *out = xasprintf("%s/out-%u-%u", v->scratch, fixed, i);
			int st;

			if (!v->opt->quiet)
				fprintf(stderr, SAY "run %u of %u, %s\n", i + 1, n,
					fixed ? "patched" : "as is");
			st = spawn(fixed ? v->run_dir : NULL, fixed ? v->patched_argv : v->opt->argv,
				   out, false, &wall[fixed][i]);
			if (!exited_ok(st)) {
				char *w = status_words(st);

				fprintf(stderr, SAY "the %s program %s\n", fixed ? "patched" : "original", w);
				free(w);
				ok = false;
			}
			free(out);
		}
		if (ok) {
			double g = wall[0][i] / wall[1][i];

			lo = i && lo < g ? lo : g;
			hi = i && hi > g ? hi : g;
		}
	}
	if (ok) {
		double a = median_of(wall[0], n), b = median_of(wall[1], n);

		fprintf(stderr, SAY "as is %.3f s, patched %.3f s (medians of %u runs each): "
			"measured %.2fx (pairs %.2fx..%.2fx)", a, b, n, a / b, lo, hi);
		if (predicted > 1.005)
			fprintf(stderr, "; predicted %s%.2fx", report_gain_floor_word(top->gain_note),
				predicted);
		fprintf(stderr, "\n");
		if (a / b < 1.02 && a / b > 0.98)
			fprintf(stderr, SAY "equal times: if the program runs for a fixed time, "
				"give it a fixed amount of work to time\n");
		ok = outputs_agree(v, n);
	}
	free(wall[0]);
	free(wall[1]);
	return ok;
}

/* --- 3. sampled again ---------------------------------------------------- */

/* A line of the rebuilt program's report, from its "# line" header. */
struct after_line {
	enum sharing_kind kind;
	char *type, *variable;
};

static char *field_after(const char *line, const char *label)
{
	const char *p = strstr(line, label), *end;

	if (!p)
		return NULL;
	p += strlen(label);
	end = strstr(p, ", variable ");
	if (!end || !strcmp(label, ", variable "))
		end = p + strlen(p);
	return xasprintf("%.*s", (int)(end - p), p);
}

static unsigned read_after(const char *path, struct after_line **out)
{
	static const enum sharing_kind kinds[] = { SHARING_FALSE, SHARING_TRUE, SHARING_MIXED };
	struct after_line *a = NULL;
	unsigned n = 0, alloc = 0;
	struct fix_source s;
	char *why = NULL;

	if (fix_source_read(path, NULL, &s, &why) < 0) {
		free(why);
		*out = NULL;
		return 0;
	}
	for (unsigned k = 1; k <= s.n_lines; k++) {
		char *l = xstrdup(fix_source_line(&s, k)), *kind;

		l[strcspn(l, "\n")] = '\0';
		if (strncmp(l, "# line ", 7) || !*l || l[strlen(l) - 1] != ':') {
			free(l);
			continue;
		}
		l[strlen(l) - 1] = '\0';
		ALLOC_GROW(a, n + 1, alloc);
		memset(&a[n], 0, sizeof(a[n]));
		for (unsigned i = 0; i < ARRAY_SIZE(kinds); i++) {
			kind = xasprintf(" (%s)", sharing_kind_name(kinds[i]));
			if (strstr(l, kind))
				a[n].kind = kinds[i];
			free(kind);
		}
		a[n].type = field_after(l, ", type ");
		a[n].variable = field_after(l, ", variable ");
		n++;
		free(l);
	}
	fix_source_release(&s);
	*out = a;
	return n;
}

/* The patched line's fate in the rebuilt program; true when that is
 * what the patch promised (gone, or only its true sharing left). */
static bool judge_line(unsigned i, const struct report_line *rl, const struct after_line *a,
		       unsigned n)
{
	bool by_variable = rl->advice.proposed.style == LAYOUT_PLAIN;
	const char *key = by_variable ? rl->variable :
			  rl->struct_name ? rl->struct_name : rl->type_name;
	enum sharing_kind now = SHARING_NONE;
	struct strbuf sb = STRBUF_INIT;

	for (unsigned k = 0; k < n && key; k++) {
		const char *have = by_variable ? a[k].variable : a[k].type;

		if (have && !strcmp(have, key) && a[k].kind > now)
			now = a[k].kind == SHARING_MIXED || now == SHARING_MIXED ? SHARING_MIXED :
			      a[k].kind;
	}
	fprintf(stderr, SAY "line %u (%s, %s): ", i + 1, escape_text(&sb, key ? key : "?"),
		sharing_kind_name(rl->kind));
	strbuf_release(&sb);
	if (now == SHARING_NONE) {
		fprintf(stderr, "gone in the patched program\n");
		return true;
	}
	if (now == SHARING_TRUE && rl->kind == SHARING_MIXED) {
		fprintf(stderr, "its false sharing is gone; the true sharing remains, as "
			"expected (padding cannot part threads writing the same bytes)\n");
		return true;
	}
	fprintf(stderr, "still contended in the patched program (%s)\n", sharing_kind_name(now));
	return false;
}

static bool sample_again(struct verify *v)
{
	char *out = scratch_path(v, "after.patch"), *freq = xasprintf("%u", v->opt->freq);
	char **argv = xcalloc((size_t)v->opt->argc + 12, sizeof(*argv));
	struct after_line *after = NULL;
	unsigned n_after, k = 0;
	bool ok = true;
	int st;

	argv[k++] = "/proc/self/exe";
	argv[k++] = "run";
	argv[k++] = "-q";
	argv[k++] = "-F";
	argv[k++] = freq;
	argv[k++] = "--format";
	argv[k++] = "patch";
	argv[k++] = "-o";
	argv[k++] = out;
	argv[k++] = "--";
	for (int i = 0; i < v->opt->argc; i++)
		argv[k++] = v->patched_argv[i];
	if (!v->opt->quiet)
		fprintf(stderr, SAY "sampling the patched program\n");
	st = spawn(v->run_dir, argv, NULL, false, NULL);
	if (st < 0 || !WIFEXITED(st) || WEXITSTATUS(st) > 1) {
		char *w = status_words(st);

		fprintf(stderr, SAY "contend run on the patched program %s\n", w);
		free(w);
		ok = false;
	} else {
		n_after = read_after(out, &after);
		for (unsigned i = 0; i < v->r->n_lines; i++)
			if (v->r->lines[i].fix.summary)
				ok &= judge_line(i, &v->r->lines[i], after, n_after);
		for (unsigned i = 0; i < n_after; i++) {
			free(after[i].type);
			free(after[i].variable);
		}
		free(after);
	}
	free(argv);
	free(freq);
	free(out);
	return ok;
}

/* --- the whole ----------------------------------------------------------- */

static void remove_scratch(const char *dir)
{
	char *rm[] = { "rm", "-rf", "--", (char *)dir, NULL };

	if (!exited_ok(spawn(NULL, rm, NULL, false, NULL)))
		fprintf(stderr, SAY "could not remove %s\n", dir);
}

int fix_verify(const struct report *r, const struct options *opt)
{
	struct verify v = { .r = r, .opt = opt };
	struct strbuf esc = STRBUF_INIT;
	const char *tmp = getenv("TMPDIR");
	char *why = NULL;
	bool ok;

	if (!r->patch.diff && !r->n_lines && r->inconclusive) {
		/* a busy machine hid the sharing: that is not "nothing to fix" */
		fprintf(stderr, SAY "inconclusive: %s: nothing verified; run it longer or on a "
			"quieter machine\n", escape_text(&esc, r->inconclusive));
		strbuf_release(&esc);
		return 0;
	}
	if (!r->patch.diff) {
		fprintf(stderr, SAY "%s\n", r->n_lines ? "no line could be patched: nothing to "
			"verify" : "no contended line: nothing to verify");
		return r->n_lines ? 1 : 0;
	}
	v.scratch = xasprintf("%s/contend-verify-XXXXXX", tmp && *tmp == '/' ? tmp : "/tmp");
	if (!mkdtemp(v.scratch)) {
		error("--verify: %s: %s", v.scratch, strerror(errno));
		free(v.scratch);
		return 2;
	}
	v.tree = scratch_path(&v, "tree");
	ok = copy_patch_build(&v);
	if (ok && !(v.patched_argv = rebuilt_argv(&v, &why))) {
		fprintf(stderr, SAY "%s\n", why);
		ok = false;
	}
	if (ok)
		ok = time_both(&v);
	if (ok)
		ok = sample_again(&v);
	fprintf(stderr, SAY "%s\n", ok ? "the patch holds" : "the patch does not hold (above)");
	remove_scratch(v.scratch);
	rebuilt_argv_free(&v);
	free(why);
	free(v.tree);
	free(v.scratch);
	return ok ? 0 : 1;
}
