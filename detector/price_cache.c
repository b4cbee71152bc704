/* price_cache.c - the transfer price kept for the boot (price_cache.h). */
#include "detector/price_cache.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/safe_file.h"
#include "common/util.h"

#define PRICE_CACHE_MAGIC "contend-transfer-price 2"   /* 2: the fenced price */
#define PRICE_CACHE_MAX 4096

/* Whether dir is ours: root under sudo keeping a user's HOME must not
 * leave root's files (or a 0700 directory) in that user's home. */
static bool ours(const char *dir)
{
	struct stat st;

	return !stat(dir, &st) && S_ISDIR(st.st_mode) && st.st_uid == geteuid();
}

/* The cache's directory ($XDG_CACHE_HOME/contend, ~/.cache/contend), or
 * NULL without a home of our own.  Caller frees. */
static char *cache_dir(void)
{
	const char *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");

	if (xdg && xdg[0] == '/' && ours(xdg))
		return xasprintf("%s/contend", xdg);
	if (home && home[0] == '/' && ours(home))
		return xasprintf("%s/.cache/contend", home);
	return NULL;
}

/* What the price is the price of: "boot-id cpus model-hash". */
static char *machine_key(void)
{
	char boot[64] = "", line[256];
	uint64_t model = 0;
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	FILE *f = fopen("/proc/sys/kernel/random/boot_id", "re");

	if (!f)
		return NULL;
	if (!fgets(boot, sizeof(boot), f))
		boot[0] = '\0';
	fclose(f);
	boot[strcspn(boot, "\n ")] = '\0';
	if (!boot[0])
		return NULL;
	if ((f = fopen("/proc/cpuinfo", "re"))) {
		while (fgets(line, sizeof(line), f))
			if (!strncmp(line, "model name", 10) || !strncmp(line, "vendor_id", 9)) {
				for (const char *c = line; *c; c++)
					model = model * 131 + (unsigned char)*c;
			}
		fclose(f);
	}
	return xasprintf("%s %ld %016llx", boot, cpus, (unsigned long long)model);
}

bool price_cache_load(struct transfer_price *p, time_t *when)
{
	char *dir = cache_dir(), *path, *key = machine_key(), buf[PRICE_CACHE_MAX];
	struct transfer_price got = { 0 };
	char magic[64], kept_key[256];
	long long at;
	struct stat st;
	ssize_t n;
	bool ok = false;
	int fd;

	if (!dir || !key) {
		free(dir);
		free(key);
		return false;
	}
	path = xasprintf("%s/transfer-price", dir);
	fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
	if (fd >= 0 && fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_uid == geteuid() &&
	    (n = read(fd, buf, sizeof(buf) - 1)) > 0) {
		buf[n] = '\0';
		/* line 1: magic; 2: the key; 3: locked store fenced runs epoch */
		ok = sscanf(buf, "%63[^\n]\n%255[^\n]\n%lf %lf %lf %u %lld", magic, kept_key,
			    &got.locked, &got.store, &got.fenced, &got.runs, &at) == 7 &&
		     !strcmp(magic, PRICE_CACHE_MAGIC) && !strcmp(kept_key, key) &&
		     got.locked && transfer_price_holds(&got);
	}
	if (fd >= 0)
		close(fd);
	if (ok) {
		*p = got;
		p->cached = true;
		*when = (time_t)at;
	}
	free(path);
	free(dir);
	free(key);
	return ok;
}

void price_cache_store(const struct transfer_price *p)
{
	char *dir = cache_dir(), *parent, *path, *key = machine_key(), *why = NULL;
	struct out_file *of;

	if (!dir || !key || !p->locked || !transfer_price_holds(p))
		goto out;
	parent = xstrdup(dir);
	*strrchr(parent, '/') = '\0';
	if (mkdir(parent, 0700) && errno != EEXIST) {
		free(parent);
		goto out;
	}
	free(parent);
	if (mkdir(dir, 0700) && errno != EEXIST)
		goto out;
	path = xasprintf("%s/transfer-price", dir);
	of = out_file_open(path, &why);
	if (of) {
		fprintf(out_file_stream(of), "%s\n%s\n%.6f %.6f %.6f %u %lld\n", PRICE_CACHE_MAGIC,
			key, p->locked, p->store, p->fenced, p->runs, (long long)time(NULL));
		if (out_file_commit(of, &why))
			free(why);
	} else {
		free(why);
	}
	free(path);
out:
	free(dir);
	free(key);
}
