/* test_cache_line.c - the coherency granule from sysfs's file and from an
 * AArch64 CTR_EL0 value (fields laid out by hand after the Arm ARM's
 * D17.2.34: CWG bits 27:24, DminLine 19:16, log2 of 4-byte words). */
#include <stdio.h>
#include <unistd.h>

#include "tap.h"
#include "common/cache_line.h"

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	if (f) {
		fputs(text, f);
		fclose(f);
	}
}

static void test_file(void)
{
	char path[] = "/tmp/contend-line-XXXXXX";
	int fd = mkstemp(path);

	CHECK(fd >= 0, "temporary file");
	if (fd < 0)
		return;
	close(fd);
	write_file(path, "64\n");
	CHECK_EQ_U64(cache_line_size_from_file(path), 64, "64");
	write_file(path, "128\n");
	CHECK_EQ_U64(cache_line_size_from_file(path), 128, "128");
	write_file(path, "96\n");
	CHECK_EQ_U64(cache_line_size_from_file(path), 0, "96 is no power of two");
	write_file(path, "0\n");
	CHECK_EQ_U64(cache_line_size_from_file(path), 0, "0");
	write_file(path, "junk\n");
	CHECK_EQ_U64(cache_line_size_from_file(path), 0, "junk");
	unlink(path);
	CHECK_EQ_U64(cache_line_size_from_file(path), 0, "missing file");
}

static void test_ctr_el0(void)
{
	/* CWG 4 (16 words), DminLine 4: 64 bytes */
	CHECK_EQ_U64(cache_line_size_from_ctr_el0(0x84448004ULL), 64, "CWG 4: 64 bytes");
	/* CWG 5: 128 bytes whatever DminLine says */
	CHECK_EQ_U64(cache_line_size_from_ctr_el0(0x85048004ULL), 128, "CWG 5: 128 bytes");
	/* CWG 0 (not provided): DminLine 4 */
	CHECK_EQ_U64(cache_line_size_from_ctr_el0(0x80048004ULL), 64, "DminLine 4: 64");
	CHECK_EQ_U64(cache_line_size_from_ctr_el0(0x80008004ULL), 0, "neither field");
}

static void test_host(void)
{
	unsigned v = host_cache_line_size();

	/* whatever this machine says, it is a line size or "unknown" */
	CHECK(v == 0 || (v >= 16 && v <= 1024 && !(v & (v - 1))), "host: %u", v);
}

int main(void)
{
	test_file();
	test_ctr_el0();
	test_host();
	return test_done();
}
