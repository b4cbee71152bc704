/* cmd_backends.c - `contend backends`: which backends can run here, and why not.
 *
 * Probes every backend as `contend run` would (the same encodings, the
 * same trial opens on this process) and prints one row per backend, the
 * events it would open, and the one auto picks.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "detector/backend.h"
#include "cli/commands.h"
#include "cli/options.h"
#include "common/util.h"

static void print_host(const struct hw_host *h)
{
	printf("host: %s", h->vendor_name[0] ? h->vendor_name : "unknown CPU");
	if (h->pfm_pmu[0])
		printf(" (libpfm4 PMU %s)", h->pfm_pmu);
	if (h->kernel_major)
		printf(", kernel %u.%u", h->kernel_major, h->kernel_minor);
	if (h->hypervisor)
		printf(", virtual machine");
	printf(", core PMU: %s\n\n", h->core_pmu[0] ? h->core_pmu : "none");
}

static void print_event(const struct hw_event *ev)
{
	const struct perf_event_attr *a = &ev->attr;

	printf("%8s%s%s\n%10stype %" PRIu32 " config 0x%llx", "", ev->name,
	       ev->leader ? "  (group leader)" : "", "", a->type, (unsigned long long)a->config);
	if (a->config1)
		printf(" config1 0x%llx", (unsigned long long)a->config1);
	if (a->config2)
		printf(" config2 0x%llx", (unsigned long long)a->config2);
	if (a->precise_ip)
		printf(" precise_ip %u", (unsigned)a->precise_ip);
	putchar('\n');
}

/* One backend: its verdict, and the events it opens or would.  The
 * fallback always runs and is said in words. */
static void print_backend(const struct backend_row *row, const struct hw_host *h,
			  const struct backend_request *req, const struct backend_choice *c)
{
	struct hw_event ev[HW_MAX_EVENTS];
	char *why = NULL;
	unsigned n;

	if (row->fallback) {
		printf("  %-5s yes   %s\n", row->name, row->method);
		return;
	}
	if (c->id == row->id) {
		printf("  %-5s yes\n", row->name);
		for (unsigned i = 0; i < c->n_events; i++)
			print_event(&c->events[i]);
		return;
	}
	printf("  %-5s no    %s\n", row->name, c->why_not[row->id] ? c->why_not[row->id] : "");
	if (!row->encode)
		return;
	/* encodings that exist but cannot run are worth seeing too */
	n = row->encode(row, req, h, ev, &why);
	free(why);
	for (unsigned i = 0; i < n; i++)
		print_event(&ev[i]);
}

int cmd_backends(int argc, char **argv)
{
	struct options opt;
	struct hw_host host;
	struct backend_choice c;
	struct backend_request req;
	char *note;

	options_parse(&opt, argc, argv);
	req = (struct backend_request){
		.name = "auto",
		.hw = { .ldlat = opt.ldlat, .freq = opt.freq },
		.freq = opt.freq,
	};
	hw_host_detect(&host, "");
	backend_choose(&req, &host, &c);

	print_host(&host);
	for (int i = 0; i < BACKEND__COUNT; i++)
		print_backend(backend_rows[i], &host, &req, &c);
	note = backend_note(&c);
	printf("\nauto: %s\n  (%s)\n", backend_name(c.id), note);
	free(note);
	backend_choice_release(&c);
	return 0;
}
