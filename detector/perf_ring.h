/* perf_ring.h - reading a perf_event ring buffer, record by record.
 *
 * The one reader of the rings the kernel fills (sampling sessions,
 * watchpoints, code probes, self-tests).  A ring is the metadata page and
 * a power of two of data pages, mmapped from an event's fd; records are
 * handed out whole and in order, a record that wraps the end of the data
 * area copied into scratch first, and their space is given back to the
 * kernel once the callback has seen them.  A header that claims more than
 * was written (corrupt, or the kernel mid-write) ends the round.
 */
#ifndef CONTEND_PERF_RING_H
#define CONTEND_PERF_RING_H

#include <stddef.h>
#include <stdint.h>
#include <linux/perf_event.h>

struct perf_ring {
	int fd;
	void *base;                 /* metadata page + data pages; NULL: unmapped */
	size_t page_size, data_size;
	uint8_t *scratch;           /* a wrapped record, made whole */
	size_t scratch_alloc;
};

/* Map data_pages (a power of two) of fd's ring, read-write (the tail is
 * written back).  0, or -errno (-ENOMEM where the kernel's mlock limit
 * said EPERM). */
int perf_ring_map(struct perf_ring *r, int fd, unsigned data_pages);
void perf_ring_unmap(struct perf_ring *r);

/* Called with each record; rec is valid during the call only. */
typedef void perf_record_fn(void *ctx, const struct perf_event_header *rec);

/* Every record now in the ring, in order, to fn; returns how many. */
size_t perf_ring_read(struct perf_ring *r, perf_record_fn *fn, void *ctx);

/* PERF_RECORD_LOST's count of lost records, 0 for any other record. */
uint64_t perf_record_lost(const struct perf_event_header *rec);

#endif
