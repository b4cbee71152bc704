/* perf_ring.c - reading a perf_event ring buffer (perf_ring.h). */
#include "detector/perf_ring.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "common/util.h"

int perf_ring_map(struct perf_ring *r, int fd, unsigned data_pages)
{
	long page = sysconf(_SC_PAGESIZE);
	void *base;

	memset(r, 0, sizeof(*r));
	r->fd = fd;
	r->page_size = page > 0 ? (size_t)page : 4096;
	r->data_size = (size_t)data_pages * r->page_size;
	base = mmap(NULL, r->page_size + r->data_size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (base == MAP_FAILED)
		return errno == EPERM ? -ENOMEM : -errno;
	r->base = base;
	return 0;
}

void perf_ring_unmap(struct perf_ring *r)
{
	if (r->base)
		munmap(r->base, r->page_size + r->data_size);
	r->base = NULL;
	free(r->scratch);
	r->scratch = NULL;
	r->scratch_alloc = 0;
}

/* n bytes from the data area at off, across its end. */
static void copy_wrapped(const struct perf_ring *r, const uint8_t *data, size_t off, void *dst,
			 size_t n)
{
	size_t first = r->data_size - off;

	if (first >= n) {
		memcpy(dst, data + off, n);
	} else {
		memcpy(dst, data + off, first);
		memcpy((uint8_t *)dst + first, data, n - first);
	}
}

size_t perf_ring_read(struct perf_ring *r, perf_record_fn *fn, void *ctx)
{
	struct perf_event_mmap_page *meta = r->base;
	const uint8_t *data;
	uint64_t head, tail;
	size_t n = 0;

	if (!meta)
		return 0;
	data = (const uint8_t *)r->base + r->page_size;
	head = __atomic_load_n(&meta->data_head, __ATOMIC_ACQUIRE);
	tail = meta->data_tail;
	while (tail < head) {
		struct perf_event_header h;
		size_t off = tail & (r->data_size - 1);

		copy_wrapped(r, data, off, &h, sizeof(h));
		if (h.size < sizeof(h) || h.size > head - tail || h.size > r->data_size)
			break;
		if (r->data_size - off >= h.size) {
			fn(ctx, (const struct perf_event_header *)(const void *)(data + off));
		} else {
			if (r->scratch_alloc < h.size) {
				free(r->scratch);
				r->scratch = xmalloc(h.size);
				r->scratch_alloc = h.size;
			}
			copy_wrapped(r, data, off, r->scratch, h.size);
			fn(ctx, (const struct perf_event_header *)(const void *)r->scratch);
		}
		tail += h.size;
		n++;
	}
	__atomic_store_n(&meta->data_tail, tail, __ATOMIC_RELEASE);
	return n;
}

uint64_t perf_record_lost(const struct perf_event_header *rec)
{
	uint64_t lost;   /* { id, lost } */

	if (rec->type != PERF_RECORD_LOST || rec->size < sizeof(*rec) + 2 * sizeof(uint64_t))
		return 0;
	memcpy(&lost, (const uint8_t *)rec + sizeof(*rec) + sizeof(uint64_t), sizeof(lost));
	return lost;
}
