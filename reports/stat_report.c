/* stat_report.c - triage metrics, the verdict, text and JSON.
 *
 * Where the thresholds come from (the output repeats this, shorter):
 *
 *  STAT_CONTESTED_MIN (5% of cycles) and STAT_HITM_COST_CYCLES (60):
 *   Intel's top-down method (TMA) flags tma_contested_accesses above 0.05
 *   ("MetricThreshold": "tma_contested_accesses > 0.05 & ..." in Linux
 *   perf's tools/perf/pmu-events/arch/x86/<model>/<model>-metrics.json,
 *   generated from Intel's TMA_Metrics tables), and VTune's Access
 *   Contention analysis said the same: "Thresholds: Investigate if - %
 *   cycles accessing modified data > .05" (Intel's answer on the VTune
 *   forum, software.intel.com/en-us/forums/intel-vtune-amplifier-xe/
 *   topic/485768; the metric itself: VTune help, "Contested Accesses").
 *   The metric is cycles, not a
 *   count: TMA's Haswell/Broadwell expressions charge 60 cycles per
 *   XSNP_HITM load ("60 * (MEM_LOAD_UOPS_L3_HIT_RETIRED.XSNP_HITM * ...)
 *   / CLKS"); later TMA versions scale a latency by the core frequency,
 *   which contend does not measure.  We charge 60 cycles on every model,
 *   AMD's cache-to-cache fills included: our simplification.  perf c2c's
 *   documentation (perf-c2c(1)) is why HITM is the event: a load that
 *   hits a line modified in another core's cache is the cost of sharing.
 *  STAT_MO_CLEARS_PKI_MIN (1 per 1000 instructions): our own choice.  No
 *   vendor publishes a per-instruction threshold for memory-ordering
 *   clears; TMA's tma_machine_clears threshold (10% of pipeline slots)
 *   needs top-down slot counts contend does not take.  Each clear flushes
 *   the pipeline; one per thousand instructions is where we start to call
 *   it a symptom.  Not calibrated on hardware.
 *  STAT_SAMPLE_SHARE_MIN (5% of sampled accesses on contended lines): our
 *   own choice, by analogy with TMA's 5% of cycles: the soft sampler's
 *   samples are time-weighted (a stalled access is sampled more), so a
 *   share of samples approximates a share of time.
 */
#include "reports/stat_report.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/util.h"

static const char *const src_tma =
	"Intel top-down (TMA) tma_contested_accesses > 0.05, as in perf's pmu-events and "
	"VTune's Contested Accesses; 60 cycles per HITM load as TMA's Haswell/Broadwell "
	"expressions";
static const char *const src_clears =
	"contend's own choice, not calibrated on hardware: no vendor publishes one";
static const char *const src_samples =
	"contend's own choice, by analogy with TMA's 5% of cycles (samples are time-weighted)";

/* --- metrics --------------------------------------------------------------- */

static bool usable(const struct counter_value *v)
{
	return v->read && v->running_ns > 0;
}

static double per_ki(const struct counter_reading *c, enum counter_metric m)
{
	const struct counter_value *ins = &c->v[CM_INSTRUCTIONS];

	if (!usable(&c->v[m]) || !usable(ins) || ins->value <= 0)
		return NAN;
	return c->v[m].value * 1000.0 / ins->value;
}

void stat_metrics_derive(struct stat_metrics *m)
{
	const struct counter_reading *c = &m->c;
	const struct counter_value *cyc = &c->v[CM_CYCLES];

	m->cpi = NAN;
	if (usable(cyc) && usable(&c->v[CM_INSTRUCTIONS]) && c->v[CM_INSTRUCTIONS].value > 0)
		m->cpi = cyc->value / c->v[CM_INSTRUCTIONS].value;
	m->mo_clears_pki = per_ki(c, CM_MO_CLEARS);
	m->hitm_pki = per_ki(c, CM_HITM);
	m->l3_miss_pki = per_ki(c, CM_L3_MISS);
	m->dtlb_walks_pki = per_ki(c, CM_DTLB_WALK);
	m->contested = NAN;
	if (usable(&c->v[CM_HITM]) && usable(cyc) && cyc->value > 0)
		m->contested = c->v[CM_HITM].value * STAT_HITM_COST_CYCLES / cyc->value;
}

/* --- the verdict ----------------------------------------------------------- */

static void add_threshold(struct stat_report *r, const char *what, const char *source)
{
	if (r->n_thresholds < ARRAY_SIZE(r->thresholds))
		r->thresholds[r->n_thresholds++] = (struct stat_threshold){ what, source };
}

/* "4.2 machine clears and 3.1 HITM per 1k instructions", with what was read */
static char *counter_phrase(const struct stat_metrics *m)
{
	struct strbuf sb = STRBUF_INIT;

	if (!isnan(m->mo_clears_pki))
		strbuf_addf(&sb, "%.2f machine clears", m->mo_clears_pki);
	if (!isnan(m->hitm_pki))
		strbuf_addf(&sb, "%s%.2f HITM", sb.len ? " and " : "", m->hitm_pki);
	strbuf_addf(&sb, " per 1k instructions");
	if (!isnan(m->contested))
		strbuf_addf(&sb, " (about %.1f%% of cycles on contested accesses)",
			    100.0 * m->contested);
	return strbuf_detach(&sb);
}

static void judge_counters(struct stat_report *r)
{
	const struct stat_metrics *m = &r->process;
	char *phrase = counter_phrase(m);

	r->counters_judged = r->judged = true;
	r->likely = (!isnan(m->contested) && m->contested >= STAT_CONTESTED_MIN) ||
		    (!isnan(m->mo_clears_pki) && m->mo_clears_pki >= STAT_MO_CLEARS_PKI_MIN);
	r->verdict = xasprintf("contention %s: %s%s", r->likely ? "likely" : "unlikely", phrase,
			       r->likely ? "; run `contend run` to find the lines" :
			       " (below the thresholds)");
	free(phrase);
	if (!isnan(m->contested))
		add_threshold(r, "contested-access cycles (60 x HITM / cycles) >= 5%", src_tma);
	if (!isnan(m->mo_clears_pki))
		add_threshold(r, "memory-ordering machine clears >= 1 per 1k instructions",
			      src_clears);
}

static void judge_samples(struct stat_report *r)
{
	const struct stat_metrics *m = &r->process;
	double share = m->samples ? (double)m->on_contended / (double)m->samples : 0.0;
	unsigned n = r->contended_lines;

	add_threshold(r, "sampled accesses on contended lines >= 5%", src_samples);
	if (!m->samples) {
		r->verdict = xstrdup("no verdict: no hardware counter could be read and no access was sampled");
		return;
	}
	r->judged = true;
	r->likely = n > 0 && share >= STAT_SAMPLE_SHARE_MIN;
	if (r->likely)
		r->verdict = xasprintf("contention likely: %.0f%% of sampled accesses on %u contended "
				       "line%s; run `contend run` to find the lines", 100.0 * share,
				       n, n == 1 ? "" : "s");
	else if (n)
		r->verdict = xasprintf("contention unlikely: %.1f%% of sampled accesses on %u "
				       "contended line%s (below the thresholds)", 100.0 * share, n,
				       n == 1 ? "" : "s");
	else
		r->verdict = xasprintf("contention unlikely: none of %llu sampled accesses on a "
				       "contended line", (unsigned long long)m->samples);
}

static void note_multiplexing(struct stat_report *r)
{
	const struct counter_value *cyc = &r->process.c.v[CM_CYCLES];

	if (!cyc->read || cyc->running_ns >= cyc->enabled_ns)
		return;
	if (!cyc->running_ns)
		r->multiplex_note = xstrdup("the hardware group was never scheduled: it did not fit "
					    "the free counters (another tool, the NMI watchdog?)");
	else
		r->multiplex_note = xasprintf("the hardware group counted %.0f%% of the time (it "
					      "shared the counters): values are scaled up",
					      100.0 * (double)cyc->running_ns /
					      (double)cyc->enabled_ns);
}

void stat_report_finish(struct stat_report *r)
{
	const struct stat_metrics *m;

	stat_metrics_derive(&r->process);
	for (unsigned i = 0; i < r->n_threads; i++)
		stat_metrics_derive(&r->threads[i].m);
	note_multiplexing(r);
	m = &r->process;
	if (!isnan(m->cpi) && (!isnan(m->hitm_pki) || !isnan(m->mo_clears_pki)))
		judge_counters(r);
	else
		judge_samples(r);
}

char *stat_triage_line(const struct counter_reading *c)
{
	struct stat_report r = { .process.c = *c };
	char *line;

	stat_metrics_derive(&r.process);
	if (isnan(r.process.cpi) || (isnan(r.process.hitm_pki) && isnan(r.process.mo_clears_pki)))
		return NULL;
	judge_counters(&r);
	line = xasprintf("CPI %.2f; %s", r.process.cpi, r.verdict);
	free(r.verdict);
	return line;
}

void stat_report_free(struct stat_report *r)
{
	if (!r)
		return;
	free(r->command);
	free(r->model);
	for (unsigned m = 0; m < CM__COUNT; m++)
		free(r->event[m]);
	free(r->fit_note);
	free(r->multiplex_note);
	free(r->threads_note);
	for (unsigned i = 0; i < r->n_unread; i++) {
		free(r->unread[i].event);
		free(r->unread[i].why);
	}
	free(r->unread);
	for (unsigned i = 0; i < r->n_threads; i++)
		free(r->threads[i].comm);
	free(r->threads);
	free(r->sampler);
	free(r->verdict);
	free(r);
}
