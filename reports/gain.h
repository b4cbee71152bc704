/* gain.h - how much faster the program would run with a line fixed.
 *
 * Timer samples are time: the share S of all samples that are accesses to
 * a contended line's ranges is the share of the threads' time spent
 * waiting on it.  Fixed, those accesses still happen but hit the local cache, at a
 * residual fraction r of the contended cost (an L1 hit against a transfer
 * from another core: GAIN_RESIDUAL).  Amdahl: speedup = 1 / (1 - S (1 - r)).
 *
 * predicted_gain is for the fix the advice proposes: padding for false and
 * mixed sharing (only the false-sharing ranges stop contending), removing
 * the sharing (per-thread copies, no redundant stores) for true sharing;
 * predicted_gain_all assumes every contended range of the line is fixed.
 */
#ifndef CONTEND_GAIN_H
#define CONTEND_GAIN_H

#include <stdint.h>
#include "report.h"

#define GAIN_RESIDUAL 0.1

void gain_predict(struct report_line *l, uint64_t total_samples);
double gain_amdahl(double share, double residual);

#endif
