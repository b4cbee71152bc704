/* The transfer price probe: what a data file may hold, and what the probe
 * says where it cannot measure (one CPU) and where it can. */
#include <sched.h>
#include <stdio.h>
#include <math.h>
#include <string.h>

#include "detector/transfer_price.h"
#include "common/util.h"
#include "tap.h"

static void test_valid(void)
{
	CHECK(transfer_price_valid(0), "0: not measured");
	CHECK(transfer_price_valid(1) && transfer_price_valid(2.88) && transfer_price_valid(1000),
	      "prices within the bounds");
	CHECK(!transfer_price_valid(0.99), "a contended loop faster than a private one");
	CHECK(!transfer_price_valid(1000.5), "beyond the bound");
	CHECK(!transfer_price_valid(NAN) && !transfer_price_valid(INFINITY) &&
	      !transfer_price_valid(-2), "NaN, infinity, negative");
	CHECK(transfer_price_holds(&(struct transfer_price){ 0 }), "all 0: not measured");
#define PRICE(l, s, f, n) (&(struct transfer_price){ .locked = l, .store = s, .fenced = f, \
						       .runs = n })
	CHECK(transfer_price_holds(PRICE(2.9, 2.5, 0, 5)), "a measured pair (an older file)");
	CHECK(transfer_price_holds(PRICE(2.9, 2.5, 2.6, 5)), "and a fenced store's");
	CHECK(!transfer_price_holds(PRICE(2.9, 0, 0, 5)) &&
	      !transfer_price_holds(PRICE(2.9, 2.5, 0, 0)) &&
	      !transfer_price_holds(PRICE(0, 0, 0, 5)) &&
	      !transfer_price_holds(PRICE(2.9, 2.5, 0, TRANSFER_PRICE_TRIES + 1)) &&
	      !transfer_price_holds(PRICE(0.5, 2.5, 0, 5)) &&
	      !transfer_price_holds(PRICE(2.9, 2.5, 0.5, 5)),
	      "one price alone, no runs, runs alone, too many, out of bounds");
#undef PRICE
}

/* Pinned to one CPU, the probe's threads share it: no transfer to price. */
static void test_one_cpu(void)
{
	cpu_set_t saved, one;
	struct transfer_price p = { .locked = 5, .store = 2, .runs = 5 };
	struct strbuf why = STRBUF_INIT;
	int cpu = -1;

	if (sched_getaffinity(0, sizeof(saved), &saved) != 0) {
		printf("# sched_getaffinity failed: one-CPU case not tried\n");
		return;
	}
	for (int c = 0; c < CPU_SETSIZE && cpu < 0; c++)
		if (CPU_ISSET(c, &saved))
			cpu = c;
	CPU_ZERO(&one);
	CPU_SET(cpu, &one);
	if (sched_setaffinity(0, sizeof(one), &one) != 0) {
		printf("# sched_setaffinity failed: one-CPU case not tried\n");
		return;
	}
	CHECK(transfer_price_measure(&p, &why) < 0, "one CPU: measured %g", p.locked);
	CHECK(p.locked == 0 && p.store == 0 && p.runs == 0, "one CPU: no price (%g, %g, %u)",
	      p.locked, p.store, p.runs);
	CHECK(!strcmp(strbuf_str(&why), "not measured: fewer than two cores to run on"),
	      "one CPU: %s", strbuf_str(&why));
	sched_setaffinity(0, sizeof(saved), &saved);
	strbuf_release(&why);
}

/* Wherever it runs: a price within the bounds from enough runs, or none
 * and the reason. */
static void test_measure(void)
{
	struct transfer_price p;
	struct strbuf why = STRBUF_INIT;
	int ret = transfer_price_measure(&p, &why);

	if (ret == 0)
		CHECK(p.locked >= TRANSFER_PRICE_MIN && p.locked <= TRANSFER_PRICE_MAX &&
		      p.store >= TRANSFER_PRICE_MIN && p.store <= TRANSFER_PRICE_MAX &&
		      p.runs >= TRANSFER_PRICE_NEEDED && p.runs <= TRANSFER_PRICE_TRIES &&
		      !why.len, "measured %g and %g from %u runs", p.locked, p.store, p.runs);
	else
		CHECK(p.locked == 0 && p.store == 0 && p.runs == 0 &&
		      !strncmp(strbuf_str(&why), "not measured: ", 14),
		      "not measured: %s", strbuf_str(&why));
	printf("# %s %g %g (%u runs)\n", ret ? strbuf_str(&why) : "measured", p.locked, p.store,
	       p.runs);
	strbuf_release(&why);
}

int main(void)
{
	test_valid();
	test_one_cpu();
	test_measure();
	return test_done();
}
