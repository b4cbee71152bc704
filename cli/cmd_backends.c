/* cmd_backends.c - `contend backends`: which backends and instruments
 * work here, and why not.
 *
 * Probes every backend as `contend run` would (the same encodings, the
 * same trial opens on this process) and prints one row per backend, the
 * events it would open, and the one auto picks; then the instruments'
 * self-test (detector/instruments.h), and which of them confirms lines
 * and runs the census.  --format json gives the same facts as data.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "detector/backend.h"
#include "detector/instruments.h"
#include "cli/commands.h"
#include "cli/options.h"
#include "common/util.h"
#include "printers/format.h"
#include "printers/json_string.h"

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

/* The instrument a job falls to here, or "none" (and why in words). */
static const char *job_instrument(const struct instruments *in,
				  bool (*pick)(const struct instruments *, enum instrument *))
{
	enum instrument which;

	return pick(in, &which) ? instrument_name(which) : "none";
}

static void print_instruments(const struct instruments *in)
{
	double ms = 0;

	for (int i = 0; i < INSTRUMENT__COUNT; i++)
		ms += in->t[i].ms;
	printf("\ninstruments (self-test, %.1f ms):\n", ms);
	for (int i = 0; i < INSTRUMENT__COUNT; i++) {
		char *text = instrument_result_text(in, (enum instrument)i);

		printf("  %-20s %s\n", instrument_name((enum instrument)i), text);
		free(text);
	}
	printf("confirmation: %s\ncensus of stores: %s\n",
	       job_instrument(in, instruments_for_confirmation),
	       job_instrument(in, instruments_for_census));
}

static void json_key_str(const char *key, const char *value, bool comma)
{
	printf("\"%s\": ", key);
	json_write_string(stdout, value);
	printf("%s", comma ? ", " : "");
}

static void print_json(const struct hw_host *h, const struct backend_choice *c,
		       const struct instruments *in)
{
	char *note = backend_note(c);

	printf("{\n  \"host\": {");
	json_key_str("vendor", h->vendor_name, true);
	json_key_str("pfm_pmu", h->pfm_pmu, true);
	printf("\"kernel\": \"%u.%u\", \"virtual_machine\": %s, ", h->kernel_major,
	       h->kernel_minor, h->hypervisor ? "true" : "false");
	json_key_str("core_pmu", h->core_pmu, false);
	printf("},\n  \"backends\": [\n");
	for (int i = 0; i < BACKEND__COUNT; i++) {
		const struct backend_row *row = backend_rows[i];
		bool runs = row->fallback || c->id == row->id;

		printf("    {");
		json_key_str("name", row->name, true);
		printf("\"available\": %s", runs ? "true" : "false");
		if (!runs && c->why_not[row->id]) {
			printf(", ");
			json_key_str("why_not", c->why_not[row->id], false);
		}
		printf("}%s\n", i + 1 < BACKEND__COUNT ? "," : "");
	}
	printf("  ],\n  ");
	json_key_str("auto", backend_name(c->id), true);
	json_key_str("auto_note", note, false);
	printf(",\n  \"instruments\": [\n");
	for (int i = 0; i < INSTRUMENT__COUNT; i++) {
		const struct instrument_test *t = &in->t[i];
		char *text = instrument_result_text(in, (enum instrument)i);

		printf("    {");
		json_key_str("name", instrument_name((enum instrument)i), true);
		json_key_str("state", instrument_state_name(t->state), true);
		printf("\"works\": %s, \"expected\": %llu, \"counted\": %llu, \"ms\": %.2f, ",
		       t->state == INSTRUMENT_WORKS ? "true" : "false",
		       (unsigned long long)t->expected, (unsigned long long)t->counted, t->ms);
		json_key_str("result", text, false);
		printf("}%s\n", i + 1 < INSTRUMENT__COUNT ? "," : "");
		free(text);
	}
	printf("  ],\n  ");
	json_key_str("confirmation", job_instrument(in, instruments_for_confirmation), true);
	json_key_str("census", job_instrument(in, instruments_for_census), false);
	printf("\n}\n");
	free(note);
}

int cmd_backends(int argc, char **argv)
{
	struct options opt;
	struct hw_host host;
	struct backend_choice c;
	struct backend_request req;
	struct instruments in;
	char *note;

	options_parse(&opt, argc, argv);
	if (opt.argc)
		die("backends: takes no command ('%s'); see 'contend backends --help'", opt.argv[0]);
	if (strcmp(opt.format->name, "text") && strcmp(opt.format->name, "json"))
		die("backends: --format text or json, not %s", opt.format->name);
	req = (struct backend_request){
		.name = "auto",
		.hw = { .ldlat = opt.ldlat, .freq = opt.freq },
		.freq = opt.freq,
	};
	hw_host_detect(&host, "");
	hw_host_name_cpu(&host);
	backend_choose(&req, &host, &c);
	instruments_test(&in, opt.freq);

	if (!strcmp(opt.format->name, "json")) {
		print_json(&host, &c, &in);
		backend_choice_release(&c);
		return 0;
	}
	print_host(&host);
	for (int i = 0; i < BACKEND__COUNT; i++)
		print_backend(backend_rows[i], &host, &req, &c);
	note = backend_note(&c);
	printf("\nauto: %s\n  (%s)\n", backend_name(c.id), note);
	free(note);
	print_instruments(&in);
	backend_choice_release(&c);
	return 0;
}
