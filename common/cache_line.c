/* cache_line.c - the coherency granule: sysfs, else AArch64's CTR_EL0. */
#include "common/cache_line.h"

#include <stdio.h>

#define SYSFS_LINE "/sys/devices/system/cpu/cpu0/cache/index0/coherency_line_size"

static int power_of_two(unsigned v)
{
	return v && !(v & (v - 1));
}

unsigned cache_line_size_from_file(const char *path)
{
	FILE *f = fopen(path, "re");
	unsigned v = 0;

	if (!f)
		return 0;
	if (fscanf(f, "%u", &v) != 1)
		v = 0;
	fclose(f);
	return power_of_two(v) && v >= 16 && v <= 1024 ? v : 0;
}

unsigned cache_line_size_from_ctr_el0(unsigned long long ctr)
{
	unsigned cwg = (ctr >> 24) & 0xf, dminline = (ctr >> 16) & 0xf;

	/* log2 of the number of 4-byte words; CWG 0: "not provided" */
	if (cwg)
		return 4u << cwg;
	return dminline ? 4u << dminline : 0;
}

unsigned host_cache_line_size(void)
{
	unsigned v = cache_line_size_from_file(SYSFS_LINE);

#if defined(__aarch64__)
	if (!v) {
		unsigned long long ctr;

		__asm__ volatile("mrs %0, ctr_el0" : "=r"(ctr));
		v = cache_line_size_from_ctr_el0(ctr);
	}
#endif
	return v;
}
