/* price_cache.h - this machine's transfer price, kept for the boot.
 *
 * The probe (transfer_price.h) costs some 0.3 s of two CPUs after every
 * run: a fifth of a one-second command.  The price is the machine's, so
 * the first measurement of a boot is kept in the user's cache
 * ($XDG_CACHE_HOME, else ~/.cache: contend/transfer-price) with what it
 * is the price of -- the boot (/proc/sys/kernel/random/boot_id), the
 * online CPUs and the CPU model -- and later runs of that boot use it.
 * A busy machine's failed probe is not kept.  The file is read only if it
 * is a regular file the user owns (never through a link), and its prices
 * must hold (transfer_price_holds()); it is written to a fresh temporary
 * file renamed over it (safe_file.h).  Nothing in it is trusted beyond
 * the user's own gain figures.
 */
#ifndef CONTEND_PRICE_CACHE_H
#define CONTEND_PRICE_CACHE_H

#include <stdbool.h>
#include <time.h>

#include "detector/transfer_price.h"

/* This boot's price, if kept: true, p filled and *when its measuring. */
bool price_cache_load(struct transfer_price *p, time_t *when);
/* Keeps a measured price for this boot; quietly does nothing if it cannot. */
void price_cache_store(const struct transfer_price *p);

#endif
