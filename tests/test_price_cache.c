/* The transfer price kept for the boot (detector/price_cache.h): kept and
 * given back, tied to its boot, refused when forged, linked or not ours. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "detector/price_cache.h"
#include "common/util.h"
#include "tap.h"

static char *path_of(const char *dir)
{
	return xasprintf("%s/contend/transfer-price", dir);
}

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	if (!f)
		die("cannot write %s", path);
	fputs(text, f);
	fclose(f);
}

int main(void)
{
	char dir[] = "/tmp/contend-price-XXXXXX";
	struct transfer_price p = { 0 }, kept = { .locked = 5.83, .store = 1.07, .fenced = 3.5,
							.runs = 5 };
	char *path, *text = NULL, *rm;
	time_t when = 0;
	size_t len = 0;
	FILE *f;

	if (!mkdtemp(dir))
		die("mkdtemp");
	setenv("XDG_CACHE_HOME", dir, 1);
	setenv("HOME", dir, 1);   /* the fallback too: never the real one */
	path = path_of(dir);

	CHECK(!price_cache_load(&p, &when), "nothing kept yet");
	price_cache_store(&(struct transfer_price){ .busy = true });
	CHECK(access(path, F_OK) != 0, "a busy machine's failed probe is not kept");
	price_cache_store(&kept);
	CHECK(price_cache_load(&p, &when), "kept, then given back");
	CHECK(p.locked == 5.83 && p.store == 1.07 && p.fenced == 3.5 && p.runs == 5 &&
	      p.cached && !p.busy, "the same prices, marked cached: %f %f %f %u", p.locked,
	      p.store, p.fenced, p.runs);
	CHECK(when > 0 && when <= time(NULL), "when it was measured");

	/* another boot's (or machine's) price is not this one's */
	f = fopen(path, "r");
	if (!f || getdelim(&text, &len, 0, f) < 0)
		die("cannot read %s", path);
	fclose(f);
	text[strlen("contend-transfer-price 2\n")] ^= 1;   /* the boot id's first char */
	write_file(path, text);
	CHECK(!price_cache_load(&p, &when), "another boot's key: not used");

	write_file(path, "contend-transfer-price 2\nx\n1e9 1.0 1.0 5 1\n");
	CHECK(!price_cache_load(&p, &when), "a forged file: refused");

	unlink(path);
	CHECK(symlink("/etc/passwd", path) == 0, "a link planted at the path");
	CHECK(!price_cache_load(&p, &when), "a link is never followed");
	unlink(path);

	/* a home that is not ours (root under sudo with a user's HOME) */
	if (geteuid() == 0) {
		CHECK(chown(dir, 65534, 65534) == 0, "the cache's home given away");
		CHECK(!price_cache_load(&p, &when), "a home not ours: not read");
		price_cache_store(&kept);
		CHECK(access(path, F_OK) != 0, "nor written");
		CHECK(chown(dir, 0, 0) == 0, "taken back");
	}
	free(text);
	free(path);
	rm = xasprintf("rm -rf '%s'", dir);
	if (system(rm) != 0)
		fprintf(stderr, "cannot remove %s\n", dir);
	free(rm);
	return test_done();
}
