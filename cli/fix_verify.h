/* fix_verify.h - `contend fix --verify BUILD-CMD`: the patch proven.
 *
 * 1. The project root the patch names (report.patch.root) is copied to a
 *    scratch directory (cp -a: what is built there now, uncommitted
 *    changes included, and nothing written to the project's own .git, as
 *    a git worktree would), the patch applied there with patch -p1, and
 *    BUILD-CMD run there by sh -c.
 * 2. The command (opt->argv; argv[0] a file under the root) and its
 *    rebuilt copy run in turn, --verify-runs times each, unsampled: the
 *    ratio of their median wall times, its spread, and whether the
 *    rebuilt program's output differs (when the original's own runs
 *    agree).
 * 3. contend samples the rebuilt program once more (`contend run --format
 *    patch`) and says, per patched line, whether it is gone, or only its
 *    true sharing remains, or it is still there.
 * The user's tree is never written: every write is in the scratch
 * directory, which is removed at the end.  A build that writes through
 * absolute paths into the original tree (a CMake build directory's
 * cache) is the one thing this cannot stop: say so in the docs.
 * Results go to stderr, one "contend fix --verify:" line each.  Returns
 * 0 when the patch applied and built and every patched line is gone (or
 * only its true sharing is left), 1 otherwise, 2 on a system error.
 */
#ifndef CONTEND_FIX_VERIFY_H
#define CONTEND_FIX_VERIFY_H

#include "cli/options.h"

struct report;

int fix_verify(const struct report *r, const struct options *opt);

#endif
