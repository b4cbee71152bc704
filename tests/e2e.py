#!/usr/bin/env python3
"""e2e.py - run a testcase under contend and check the report against its
known answer.

usage: e2e.py TESTCASE.expected.json

The expected file names the testcase binary and lists runs.  Each run is
repeated; every repetition runs

    contend run --format json -o TMP [contend_args] -- testcases/BINARY [args]

and checks the JSON report (docs/json-schema.md):

    { "binary": "false_sharing_counters",
      "requires": ["go"],               optional: commands the build or run
                                        needs; without one, skip (77)
      "build": ["go", "build", "-o", "{out}", "{src}/main.go"],
                                        optional: build the testcase from
                                        testcases/BINARY (a file or folder,
                                        {src}) into {out}, a scratch folder
                                        ({tmp}) for what the tools cache;
                                        without it, testcases/BINARY is
                                        built by make
      "build_env": {"GOCACHE": "{tmp}/go"},   optional, for the build
      "command": ["java", "-cp", "{out}", "Main"],   optional: what runs
                                        (default {out}); the run's args follow
      "runs": [
        { "name": "default",            run name, for output and the filter
          "args": ["-t", "2"],          testcase arguments
          "repeat": 3,                  times to run it; all must pass
          "tolerate_misses": 1,         optional: this many repetitions may
                                        report nothing at all (no line, minor
                                        or latent) and the run still pass;
                                        one that reports anything wrong never
                                        passes, and at least one must pass
          "contend_args": [],           optional, before the "--"
          "timeout": 120,               optional, seconds per repetition
          "expect": [                   lines that must be reported
            { "kind": "false",          line.kind: false, true or mixed
              "object": "counters",     line.variable or line.object starts so
              "type": "struct Klass",   line.type (a "struct " prefix is optional)
              "members": ["counters[0]"],          some range has each member
              "true_shared_members": ["cache"],    ... with true_shared
              "false_victim_members": ["supers"],  ... with false_victim
              "only_members": ["cache"],           every range is one of these
              "min_writer_threads": 2,  threads with writes > 0 on the line
              "function": "increment",  some site is in this function ...
              "file": "x.c",            ... in a file whose path ends so
              "min_typed_rate": 0.9,    line typed / (typed + untyped)
              "alignment_note": { "placements_sharing": 7,
                                  "placements_total": 8 },
              "advice_layouts": {                  the advice's layout rows
                "current": { "line_offset": 24,    layout_current's fields ...
                  "members": [ { "member": "secondary_super_cache",
                                 "offset": 32, "size": 8 } ] },  ... and rows
                "padded": null,                    layout_padded is null
                "own_line": ["v"] },               in layout_padded, no other
                                                   member shares its lines
              "member_prefixes": ["arg[0].blue["],  some range's member
                                                   starts so, for each
              "member_ranges": ["arg[0].blue["],   some range's member
                                                   starts so and ends in an
                                                   element range "[a..b]",
                                                   a < b, for each
              "allocation": { "call": "calloc",    line.allocation's fields
                "count": 2, "type": "struct s",    (docs/json-schema.md);
                "function": "main",                function and file are the
                "file": "x.c" },                   site's (file: ends so);
                                                   null: no allocation
              "advice_excludes": ["struct int"],   no text of the advice
                                                   holds any of these
              "advice_includes": ["CacheLinePad"], the advice (its summary
                                                   and layouts, whitespace
                                                   folded) holds each
              "min_writer_goroutines": 2,          Go: goroutines writing
                                                   the line (thread
                                                   "goroutine" labels)
              "confirmed": true } ],    the watchpoints confirmed the line
                                        (line.confirmation.confirmed)
          "forbid_other_lines": true,   no line beyond the expected ones
          "forbid_objects": ["TrueSharing"],   no line whose variable or
                                        object starts so (where the rest of a
                                        process, a JVM's, may share lines)
          "allow_lines": ["__nptl_nthreads"],   ... but these variables or
                                        objects may be reported too (real
                                        sharing the testcase does not test:
                                        glibc's thread counter under churn)
          "expect_minor": [ ... ],      minor lines (minor_lines), each as an
                                        expectation of "expect"
          "forbid_other_minor": true,   no minor line beyond those
          "busy_minor_may_rise": true,  where the report says the machine was
                                        busy (machine.busy: thresholds scaled
                                        down), a line meeting an expect_minor
                                        entry counts as that minor line
          "expect_latent": [            latent false sharing (latent)
            { "members": ["[0].sum", "[1].count"],  sides a and b, in order
              "type": "struct slot",    the element's or object's type
              "function": "step",       some side's code is in it
              "placements": [ { "line_size": 64, "align": 16,
                                "sharing": 2, "total": 4,
                                "alignment_of": "malloc" } ],
              "allocation": { ... },    as for a line
              "advice_includes": ["keeps the array line-aligned"],
              "advice_excludes": ["nothing keeps"] } ],
                                        each listed placement is there (a
                                        placement with those fields, others
                                        free); the advice holds each text of
                                        advice_includes, none of
                                        advice_excludes
          "forbid_other_latent": true } no latent pair beyond those
      ] }

Every key of an expectation is optional.  Member patterns are matched
tolerantly, because a member path may be relative to the variable
("counters[1]"), to an array ("[1].hits") or to a struct (".hits"): with
leading dots dropped, the pattern must equal the range's member or end it at
a path boundary, and for a member that starts with "[" the variable name is
tried in front of it too.  So "hits" matches ".hits", "[1].hits" and
"stats[1].hits"; "counters[1]" matches "counters[1]" and "[1]" of variable
counters.  Function names match their GCC clones (increment.isra.0).

Environment:
  top_builddir         where contend and testcases/ are (default: the tree
                       holding this script)
  CONTEND_E2E_REPEAT   repeat every run this many times instead (a rate:
                       nothing tolerated, nothing run again)

A repetition that fails where the report says a busy machine kept the
target's threads apart (machine.busy, overlap < 0.5) is run again, up to
4 times in a run, with a note: not judged, as contention that could not
happen cannot be seen.
  CONTEND_E2E_FILTER   run only the runs of these names (comma separated)

Exit status: 0 all runs passed, 1 some failed, 77 no run selected (skip),
99 hard error (missing binary, bad expected file).
"""

import json
import os
import shutil
import subprocess
import sys
import tempfile

RUN_KEYS = {"name", "args", "repeat", "tolerate_misses", "contend_args", "timeout", "expect",
            "forbid_objects",
            "forbid_other_lines", "allow_lines", "expect_minor", "forbid_other_minor",
            "expect_latent", "forbid_other_latent", "busy_minor_may_rise"}
LATENT_KEYS = {"members", "type", "function", "placements", "allocation",
               "advice_includes", "advice_excludes"}
EXPECT_KEYS = {"kind", "object", "type", "members", "true_shared_members",
               "false_victim_members", "only_members", "min_writer_threads",
               "function", "file", "min_typed_rate", "alignment_note",
               "advice_layouts", "min_processes", "member_prefixes", "member_ranges", "allocation",
               "advice_excludes", "confirmed", "advice_includes",
               "min_writer_goroutines"}
TOP_KEYS = {"binary", "runs", "requires", "build", "build_env", "command"}
LAYOUT_KEYS = {"current", "padded", "own_line"}
KINDS = {"false", "true", "mixed"}


class HardError(Exception):
    pass


# --- matching --------------------------------------------------------------

def member_matches(pattern, member, variable):
    """Does the range member (a path, or None) match the pattern?"""
    pat = pattern.lstrip(".")
    names = [(member or "").lstrip(".")]
    if member and member.startswith("[") and variable:
        names.append(variable + member)
    for name in names:
        if name == pat:
            return True
        if name.endswith(pat) and (pat.startswith("[") or
                                   name[-len(pat) - 1] == "."):
            return True
    return False


def range_names(r):
    """A range's member, and a merged range's elements one by one
    ("p[3..4]": "p[3]", "p[4]"), as ranges were named before merging."""
    return [r.get("member")] + list(r.get("elements") or [])


def is_element_range(member, prefix):
    """member is prefix + "a..b]" with a < b."""
    if not member or not member.startswith(prefix) or not member.endswith("]"):
        return False
    body = member[len(prefix):-1].split("..")
    return (len(body) == 2 and all(b.isdigit() for b in body) and
            int(body[0]) < int(body[1]))


def strip_tag(type_name):
    for tag in ("struct ", "union ", "enum "):
        if type_name.startswith(tag):
            return type_name[len(tag):]
    return type_name


def function_matches(want, got):
    return got is not None and (got == want or got.startswith(want + "."))


def sites_of(line):
    return [s for r in line.get("ranges") or [] for s in r.get("sites") or []]


def site_name(site):
    where = site.get("function") or "%s+%s" % (site.get("module"),
                                               site.get("module_offset"))
    if site.get("file"):
        where += " (%s:%s)" % (os.path.basename(site["file"]), site.get("line"))
    return where


def check_members(exp, key, line, flag=None):
    """Mismatches for one list of member patterns."""
    variable = line.get("variable") or line.get("object")
    ranges = line.get("ranges") or []
    if flag:
        ranges = [r for r in ranges if r.get(flag)]
    problems = []
    for pattern in exp.get(key, []):
        if not any(member_matches(pattern, m, variable)
                   for r in ranges for m in range_names(r)):
            have = ", ".join(str(r.get("member")) for r in ranges) or "none"
            what = "range" if not flag else "range with %s" % flag
            problems.append("%s: no %s '%s' (have: %s)"
                            % (key, what, pattern, have))
    return problems


def check_line(exp, line):
    """Everything in which a reported line differs from an expectation."""
    problems = []

    def differ(field, want, got):
        problems.append("%s: expected %r, got %r" % (field, want, got))

    if "kind" in exp and line.get("kind") != exp["kind"]:
        differ("kind", exp["kind"], line.get("kind"))
    if "object" in exp:
        names = [line.get("variable") or "", line.get("object") or ""]
        if not any(n.startswith(exp["object"]) for n in names):
            differ("object", exp["object"] + "*", names)
    if "type" in exp:
        got = line.get("type")
        if got is None or strip_tag(got) != strip_tag(exp["type"]):
            differ("type", exp["type"], got)

    problems += check_members(exp, "members", line)
    problems += check_members(exp, "true_shared_members", line, "true_shared")
    problems += check_members(exp, "false_victim_members", line, "false_victim")
    if "only_members" in exp:
        variable = line.get("variable") or line.get("object")
        for r in line.get("ranges") or []:
            def listed(m):
                return any(member_matches(p, m, variable) for p in exp["only_members"])
            if not listed(r.get("member")) and not (
                    r.get("elements") and all(listed(m) for m in r["elements"])):
                problems.append("only_members: unexpected range %r at offset %s"
                                % (r.get("member"), r.get("offset")))

    if "min_writer_threads" in exp:
        writers = {t.get("tid") for t in line.get("threads") or []
                   if t.get("writes", 0) > 0}
        if len(writers) < exp["min_writer_threads"]:
            differ("writer threads", ">= %d" % exp["min_writer_threads"],
                   len(writers))

    if "confirmed" in exp:
        conf = line.get("confirmation") or {}
        if bool(conf.get("confirmed")) != exp["confirmed"]:
            differ("confirmed by the watch", exp["confirmed"],
                   conf.get("confirmed") if conf else "not watched")

    if "min_processes" in exp:
        # memory processes share: "pids" lists them, each thread its pid
        pids = line.get("pids") or [line.get("pid")]
        writer_pids = {t.get("pid", line.get("pid")) for t in line.get("threads") or []
                       if t.get("writes", 0) > 0}
        if len(pids) < exp["min_processes"] or len(writer_pids) < exp["min_processes"]:
            differ("processes (writing)", ">= %d" % exp["min_processes"],
                   "%r (%r)" % (pids, sorted(writer_pids)))

    if "function" in exp or "file" in exp:
        sites = sites_of(line)
        if not any((not exp.get("function") or
                    function_matches(exp["function"], s.get("function"))) and
                   (not exp.get("file") or
                    (s.get("file") or "").endswith(exp["file"]))
                   for s in sites):
            problems.append("sites: none in %s%s (have: %s)" % (
                exp.get("function", "any function"),
                " of *" + exp["file"] if exp.get("file") else "",
                ", ".join(site_name(s) for s in sites) or "none"))

    if "min_typed_rate" in exp:
        typed, untyped = line.get("typed", 0), line.get("untyped", 0)
        rate = typed / (typed + untyped) if typed + untyped else 0.0
        if rate < exp["min_typed_rate"]:
            differ("typed rate", ">= %g" % exp["min_typed_rate"],
                   "%.3f (%d typed, %d untyped)" % (rate, typed, untyped))

    if "alignment_note" in exp:
        advice = line.get("advice") or {}
        for field, want in exp["alignment_note"].items():
            if advice.get(field) != want:
                differ("advice." + field, want, advice.get(field))
    if "advice_layouts" in exp:
        problems += check_layouts(exp["advice_layouts"], line)
    for prefix in exp.get("member_prefixes", []):
        members = [r.get("member") or "" for r in line.get("ranges") or []]
        if not any(m.startswith(prefix) for m in members):
            problems.append("member_prefixes: no range starting %r (have: %s)"
                            % (prefix, ", ".join(members) or "none"))
    for prefix in exp.get("member_ranges", []):
        members = [r.get("member") or "" for r in line.get("ranges") or []]
        if not any(is_element_range(m, prefix) for m in members):
            problems.append("member_ranges: no range %r..] of elements (have: %s)"
                            % (prefix, ", ".join(members) or "none"))
    if "allocation" in exp:
        problems += check_allocation(exp["allocation"], line.get("allocation"))
    if "advice_excludes" in exp:
        text = json.dumps(line.get("advice") or {})
        for bad in exp["advice_excludes"]:
            if bad in text:
                problems.append("advice_excludes: the advice holds %r" % bad)
    if "advice_includes" in exp:
        text = advice_text(line.get("advice") or {})
        for want in exp["advice_includes"]:
            if " ".join(want.split()) not in text:
                problems.append("advice_includes: the advice lacks %r" % want)
    if "min_writer_goroutines" in exp:
        gs = {t.get("goroutine") for r in line.get("ranges") or []
              for t in r.get("threads") or [] if t.get("writes", 0) > 0}
        if None in gs or len(gs) < exp["min_writer_goroutines"]:
            differ("writer goroutines", ">= %d" % exp["min_writer_goroutines"],
                   sorted(gs, key=str))
    return problems


def advice_text(advice):
    """The advice's words, whitespace folded: its summary and layouts."""
    parts = [advice.get(k) or "" for k in ("summary", "layout_now", "layout_proposed")]
    return " ".join(" ".join(parts).split())


def check_allocation(want, got):
    """allocation: the heap block's fields; function and file its site's."""
    if want is None:
        return [] if got is None else ["allocation: expected none, got %s"
                                       % got.get("site", {}).get("name")]
    if got is None:
        return ["allocation: expected one, got none"]
    problems = []
    site = got.get("site") or {}
    for key, value in want.items():
        if key == "function":
            ok = function_matches(value, site.get("function"))
            have = site.get("function")
        elif key == "file":
            have = site.get("file")
            ok = (have or "").endswith(value)
        else:
            have = got.get(key)
            ok = have == value
        if not ok:
            problems.append("allocation.%s: expected %r, got %r"
                            % (key, value, have))
    return problems


def check_layout(field, want, got):
    """How a layout (advice.layout_current/_padded) differs from want: its
    fields, and for each wanted row the fields of the row of that member."""
    if want is None:
        return [] if got is None else ["%s: expected null" % field]
    if got is None:
        return ["%s: expected a layout, got null" % field]
    problems = []
    for key, value in want.items():
        if key != "members":
            if got.get(key) != value:
                problems.append("%s.%s: expected %r, got %r"
                                % (field, key, value, got.get(key)))
            continue
        for row in value:
            have = [r for r in got.get("members") or []
                    if r.get("member") == row["member"]]
            if not have:
                problems.append("%s: no member %s" % (field, row["member"]))
                continue
            for key2, value2 in row.items():
                if have[0].get(key2) != value2:
                    problems.append("%s %s.%s: expected %r, got %r"
                                    % (field, row["member"], key2, value2,
                                       have[0].get(key2)))
    return problems


def lines_of(row, line_size):
    first = row["offset"] // line_size
    return set(range(first, (row["offset"] + max(row["size"], 1) - 1)
                     // line_size + 1))


def check_layouts(exp, line):
    """advice_layouts: the rows of the advice's layouts."""
    advice = line.get("advice") or {}
    problems = []
    for key, field in (("current", "layout_current"),
                       ("padded", "layout_padded")):
        if key in exp:
            problems += check_layout("advice." + field, exp[key],
                                     advice.get(field))
    padded = advice.get("layout_padded") or {}
    rows = padded.get("members") or []
    line_size = line.get("line_size") or 64
    for name in exp.get("own_line", []):
        mine = [r for r in rows if r.get("member") == name]
        if not mine:
            problems.append("own_line: no member %s in advice.layout_padded"
                            % name)
            continue
        taken = lines_of(mine[0], line_size)
        for r in rows:
            if r is not mine[0] and lines_of(r, line_size) & taken:
                problems.append("own_line: %s shares a line with %s in "
                                "advice.layout_padded" % (name, r.get("member")))
    return problems


def describe_expectation(exp):
    keys = ("kind", "object", "type", "function")
    return "{%s}" % " ".join("%s=%s" % (k, exp[k]) for k in keys if k in exp)


def summarize_line(line):
    """One line of text per reported line, enough to see what went wrong."""
    flags = (("true_shared", "T"), ("false_victim", "V"), ("false_writer", "W"))
    ranges = []
    for r in line.get("ranges") or []:
        marks = "".join(m for f, m in flags if r.get(f))
        ranges.append("%s@%s r%s w%s%s" % (
            r.get("member"), r.get("offset"), r.get("reads"), r.get("writes"),
            " " + marks if marks else ""))
    writers = {t.get("tid") for t in line.get("threads") or []
               if t.get("writes", 0) > 0}
    sites = sorted({site_name(s) for s in sites_of(line)})
    return ("#%s %s %s %s (%s) score %s, %s samples, %d threads, %d writers; "
            "ranges [%s]; sites [%s]" % (
                line.get("rank"), line.get("kind"), line.get("address"),
                line.get("variable") or line.get("object"), line.get("type"),
                line.get("score"), line.get("samples"),
                len(line.get("threads") or []), len(writers),
                "; ".join(ranges), "; ".join(sites)))


def check_latent(exp, lt):
    """Everything in which a latent pair differs from an expectation."""
    problems = []
    sides = [lt.get("a") or {}, lt.get("b") or {}]
    if "members" in exp:
        got = [sd.get("member") for sd in sides]
        if len(exp["members"]) != 2 or not all(
                member_matches(p, m, None) for p, m in zip(exp["members"], got)):
            problems.append("members: expected %r, got %r" % (exp["members"], got))
    if "type" in exp:
        got = lt.get("type")
        if got is None or strip_tag(got) != strip_tag(exp["type"]):
            problems.append("type: expected %r, got %r" % (exp["type"], got))
    if "function" in exp and not any(
            function_matches(exp["function"], (sd.get("site") or {}).get("function"))
            for sd in sides):
        problems.append("function: no side in %s" % exp["function"])
    for want in exp.get("placements", []):
        if not any(all(p.get(k) == v for k, v in want.items())
                   for p in lt.get("placements") or []):
            problems.append("placements: no %r (have %r)"
                            % (want, lt.get("placements")))
    advice = lt.get("advice") or ""
    for text in exp.get("advice_includes", []):
        if text not in advice:
            problems.append("advice: no %r in %r" % (text, advice))
    for text in exp.get("advice_excludes", []):
        if text in advice:
            problems.append("advice: %r in %r" % (text, advice))
    if "allocation" in exp:
        problems += check_allocation(exp["allocation"], lt.get("allocation"))
    return problems


def summarize_latent(lt):
    a, b = lt.get("a") or {}, lt.get("b") or {}
    return "#%s %s: %s (T%s) and %s (T%s), %s bytes apart; placements %s" % (
        lt.get("rank"), lt.get("object"), a.get("member"), a.get("tid"),
        b.get("member"), b.get("tid"), lt.get("gap"),
        ", ".join("%s/%s@%s/%s" % (p.get("sharing"), p.get("total"),
                                   p.get("align"), p.get("line_size"))
                  for p in lt.get("placements") or []))


def match_all(expects, items, check, forbid, what, name_of, allowed=()):
    """Failures of one list of expectations against one list of items; an
    item whose variable or object is in allowed is never unexpected."""
    failures = []
    claimed, closest = set(), set()
    for i, exp in enumerate(expects):
        best = None
        for j, item in enumerate(items):
            if j in claimed:
                continue
            problems = check(exp, item)
            if not problems:
                claimed.add(j)
                break
            if best is None or len(problems) < len(best[2]):
                best = (j, item, problems)
        else:
            if best is None:
                failures.append("expected %s %d %s: no %s%s reported"
                                % (what, i + 1, describe_expectation(exp),
                                   "other " if items else "", what))
            else:
                closest.add(best[0])
                failures.append("expected %s %d %s not found; closest, %s #%s: %s"
                                % (what, i + 1, describe_expectation(exp),
                                   what, best[1].get("rank"),
                                   "; ".join(best[2])))
    if forbid:
        for j, item in enumerate(items):
            if item.get("variable") in allowed or item.get("object") in allowed:
                continue
            if j not in claimed and j not in closest:
                failures.append("unexpected %s #%s: %s"
                                % (what, item.get("rank"), name_of(item)))
    return failures


def line_name(line):
    return "%s kind on %s" % (line.get("kind"),
                              line.get("variable") or line.get("object"))


def untyped(exp):
    return {k: v for k, v in exp.items() if k != "type"}


def busy_views(report, run):
    """The report's lines, minor lines, and the lines among them that rose
    from minor, as the run judges them.  With busy_minor_may_rise, on a
    machine the report calls busy, a line that meets an expect_minor entry
    counts as a minor line: the thresholds were scaled down
    (machine.threshold_scale), and a line near them may come out either
    side.  Such a line is judged on all but its type: a reported line's
    object may be named by the pointer its code used (a block of chars
    read as struct slot: "s (struct slot)", where the minor line says
    "struct slot[]")."""
    lines, minor = report["lines"], report.get("minor_lines") or []
    if not (run.get("busy_minor_may_rise") and (report.get("machine") or {}).get("busy")):
        return lines, minor, []
    risen = [l for l in lines
             if any(not check_line(untyped(exp), l) for exp in run.get("expect_minor", []))]
    return [l for l in lines if l not in risen], minor + risen, risen


def check_report(report, run):
    """All failures of one report against a run's expectations."""
    failures = []
    lines, minor, risen = busy_views(report, run)
    if report.get("target_status", 0) != 0:
        failures.append("target_status: expected 0, got %r"
                        % report.get("target_status"))
    failures += match_all(run.get("expect", []), lines, check_line,
                          run.get("forbid_other_lines"), "line", line_name,
                          run.get("allow_lines", ()))
    for line in lines:
        names = [line.get("variable") or "", line.get("object") or ""]
        for prefix in run.get("forbid_objects", []):
            if any(n.startswith(prefix) for n in names):
                failures.append("forbid_objects: a %s line of %s" % (line.get("kind"),
                                                                      line_name(line)))
    failures += match_all(run.get("expect_minor", []), minor,
                          lambda exp, l: check_line(untyped(exp) if l in risen else exp, l),
                          run.get("forbid_other_minor"), "minor line", line_name)
    failures += match_all(run.get("expect_latent", []),
                          report.get("latent") or [], check_latent,
                          run.get("forbid_other_latent"), "latent pair",
                          summarize_latent)
    return failures


# --- running ---------------------------------------------------------------

# contend's words when a watchpoint's spurious debug trap (a hypervisor
# fault, about once in 10^7 watched accesses on a VM) killed the target:
# that run says nothing about contend's report, and is run again, once.
SPURIOUS_TRAP = "the CPU sent a spurious debug trap"


SCHEMA = None      # docs/report-1.schema.json's validator, once loaded


def schema_failures(report):
    """Where report breaks docs/report-1.schema.json (at most 3); [] when
    it holds, or when python3-jsonschema is not installed (said once)."""
    global SCHEMA
    if SCHEMA is None:
        try:
            import jsonschema
        except ImportError:
            print("note: no python3-jsonschema: reports not validated against "
                  "docs/report-1.schema.json")
            SCHEMA = False
            return []
        top = os.environ.get("top_srcdir") or os.path.join(os.path.dirname(__file__), "..")
        with open(os.path.join(top, "docs", "report-1.schema.json")) as f:
            schema = json.load(f)
        SCHEMA = jsonschema.Draft202012Validator(schema)
    if not SCHEMA:
        return []
    errors = sorted(SCHEMA.iter_errors(report), key=lambda e: list(e.path))[:3]
    return ["schema: %s at %s" % (e.message[:200], "/".join(str(p) for p in e.path))
            for e in errors]


def run_once(contend, command, run):
    """Run the testcase under contend once: (report or None, failures, path)."""
    report, failures, path = run_attempt(contend, command, run)
    if report is None and any(SPURIOUS_TRAP in f for f in failures):
        print("note: %s: the target was killed by a spurious debug trap; again"
              % os.path.basename(command[0]))
        os.unlink(path)
        report, failures, path = run_attempt(contend, command, run)
    return report, failures, path


def run_attempt(contend, command, run):
    fd, path = tempfile.mkstemp(prefix="contend-e2e-", suffix=".json")
    os.close(fd)
    cmd = ([contend, "run", "--format", "json", "-o", path] +
           run.get("contend_args", []) + ["--"] + command + run.get("args", []))
    try:
        proc = subprocess.run(cmd, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True,
                              timeout=run.get("timeout", 120))
    except subprocess.TimeoutExpired:
        return None, ["timed out after %ss: %s" % (run.get("timeout", 120),
                                                  " ".join(cmd))], path
    if proc.returncode != 0:
        tail = "\n    ".join(proc.stderr.strip().splitlines()[-15:])
        return None, ["contend exited with %d: %s\n    %s"
                      % (proc.returncode, " ".join(cmd), tail)], path
    try:
        with open(path) as f:
            report = json.load(f)
    except (OSError, ValueError) as e:
        return None, ["no readable JSON report in %s: %s" % (path, e)], path
    if not isinstance(report, dict) or not isinstance(report.get("lines"), list):
        return None, ["report in %s has no \"lines\" array" % path], path
    invalid = schema_failures(report)
    if invalid:
        return None, ["report in %s breaks docs/report-1.schema.json:\n    %s"
                      % (path, "\n    ".join(invalid))], path
    try:
        return report, check_report(report, run), path
    except (AttributeError, KeyError, TypeError) as e:
        return None, ["report in %s does not follow docs/json-schema.md: %r"
                      % (path, e)], path


def reported_nothing(report):
    return report is not None and not report["lines"] and \
        not report.get("minor_lines") and not report.get("latent")


# Repetitions of a run that may be run again, not judged, where the report
# itself says a busy machine kept the target's threads apart (they ran at
# once less than half the sampled time): contention that cannot happen
# cannot be seen, and a shared CI machine (load 6-14 seen) does that.
BUSY_RETRIES = 4


def kept_apart(report):
    m = (report or {}).get("machine") or {}
    return bool(m.get("busy")) and (m.get("overlap") or 0) < 0.5


def check_run(contend, command, run, repeat, tolerate):
    passed = misses = k = 0
    # CONTEND_E2E_REPEAT measures a rate (bench/): every run counts
    retries = 0 if os.environ.get("CONTEND_E2E_REPEAT") else BUSY_RETRIES
    while k < repeat:
        k += 1
        report, failures, path = run_once(contend, command, run)
        if not failures:
            passed += 1
            os.unlink(path)
            continue
        if retries and kept_apart(report):
            retries -= 1
            print("note: %s, repetition %d/%d: the threads ran at once %.0f%% of the "
                  "time (a busy machine): not judged; again (%s)"
                  % (run["name"], k, repeat, 100 * report["machine"]["overlap"],
                     failures[0].splitlines()[0][:160]))
            os.unlink(path)
            k -= 1
            continue
        misses += reported_nothing(report)
        print("FAIL %s, repetition %d/%d:" % (run["name"], k, repeat))
        for f in failures:
            print("  " + f)
        if report is not None:
            print("  reported lines (T true_shared, V false_victim, "
                  "W false_writer):")
            for line in report["lines"]:
                try:
                    print("    " + summarize_line(line))
                except (AttributeError, TypeError) as e:
                    print("    (malformed line: %r)" % e)
            if not report["lines"]:
                print("    none")
            for key, show in (("minor_lines", summarize_line),
                              ("latent", summarize_latent)):
                for item in report.get(key) or []:
                    try:
                        print("    %s: %s" % (key, show(item)))
                    except (AttributeError, TypeError) as e:
                        print("    (malformed %s: %r)" % (key, e))
        print("  report kept: %s" % path)
        sys.stdout.flush()
    # a repetition that saw nothing may be tolerated, never a wrong report
    ok = passed == repeat or (passed >= 1 and misses == repeat - passed and
                              misses <= tolerate)
    print("%s %s (%d/%d)%s" % ("ok" if ok else "FAIL", run["name"], passed, repeat,
                               "" if passed == repeat or not ok else
                               ", %d reported nothing (tolerated)" % misses))
    sys.stdout.flush()
    return ok


def validate(expected, path):
    """Refuse a malformed expected file, typos included."""
    def bad(msg):
        raise HardError("%s: %s" % (path, msg))

    if not isinstance(expected, dict):
        bad("not a JSON object")
    if not isinstance(expected.get("binary"), str):
        bad("missing \"binary\"")
    if set(expected) - TOP_KEYS:
        bad("unknown keys %s" % sorted(set(expected) - TOP_KEYS))
    for key in ("requires", "build", "command"):
        if key in expected and (not isinstance(expected[key], list) or not expected[key] or
                                any(not isinstance(a, str) for a in expected[key])):
            bad("%s takes a list of strings" % key)
    if not isinstance(expected.get("build_env", {}), dict):
        bad("build_env takes an object")
    if not isinstance(expected.get("runs"), list) or not expected["runs"]:
        bad("missing \"runs\"")
    for run in expected["runs"]:
        if not isinstance(run, dict):
            bad("a run is not a JSON object")
        name = run.get("name")
        if not isinstance(name, str):
            bad("a run has no \"name\"")
        if set(run) - RUN_KEYS:
            bad("run %s: unknown keys %s" % (name, sorted(set(run) - RUN_KEYS)))
        allow = run.get("allow_lines", [])
        if not isinstance(allow, list) or any(not isinstance(a, str) or not a for a in allow):
            bad("run %s: allow_lines takes names (strings)" % name)
        tolerate = run.get("tolerate_misses", 0)
        if not isinstance(tolerate, int) or tolerate < 0 or \
                tolerate >= run.get("repeat", 1):
            bad("run %s: tolerate_misses must be 0 .. repeat - 1" % name)
        for exp in run.get("expect_latent", []):
            if not isinstance(exp, dict) or set(exp) - LATENT_KEYS:
                bad("run %s: a latent expectation takes only %s"
                    % (name, sorted(LATENT_KEYS)))
        for exp in run.get("expect", []) + run.get("expect_minor", []):
            if not isinstance(exp, dict):
                bad("run %s: an expectation is not a JSON object" % name)
            if set(exp) - EXPECT_KEYS:
                bad("run %s: unknown expectation keys %s"
                    % (name, sorted(set(exp) - EXPECT_KEYS)))
            if "kind" in exp and exp["kind"] not in KINDS:
                bad("run %s: kind %r is not one of %s"
                    % (name, exp["kind"], sorted(KINDS)))
            layouts = exp.get("advice_layouts", {})
            if not isinstance(layouts, dict) or set(layouts) - LAYOUT_KEYS:
                bad("run %s: advice_layouts takes only %s"
                    % (name, sorted(LAYOUT_KEYS)))
            for key in ("current", "padded"):
                want = layouts.get(key)
                if want is not None and (not isinstance(want, dict) or any(
                        not isinstance(r, dict) or "member" not in r
                        for r in want.get("members", []))):
                    bad("run %s: advice_layouts.%s: an object whose members "
                        "each name a member" % (name, key))
            for key in ("members", "true_shared_members",
                        "false_victim_members", "only_members", "member_ranges"):
                if any(not isinstance(p, str) or not p.lstrip(".")
                       for p in exp.get(key, [])):
                    bad("run %s: %s needs non-empty strings" % (name, key))


def testcase_command(expected, top, tmp):
    """The command that runs the testcase: testcases/BINARY as make built
    it, or what "build" makes of its source, run as "command" says."""
    here = os.path.dirname(os.path.abspath(__file__))
    srcdir = os.environ.get("top_srcdir") or os.path.dirname(here)
    out = os.path.join(tmp, expected["binary"])
    if "build" not in expected:
        out = os.path.join(top, "testcases", expected["binary"])
        if not os.access(out, os.X_OK):
            raise HardError("%s not found or not executable: build first" % out)
    words = {"src": os.path.join(srcdir, "testcases", expected["binary"]),
             "out": out, "tmp": tmp}

    def fill(arg):
        return arg.format(**words)

    if "build" in expected:
        env = dict(os.environ)
        env.update({k: fill(v) for k, v in expected.get("build_env", {}).items()})
        cmd = [fill(a) for a in expected["build"]]
        proc = subprocess.run(cmd, env=env, stdout=subprocess.PIPE,
                              stderr=subprocess.STDOUT, text=True, timeout=600)
        if proc.returncode != 0:
            raise HardError("cannot build the testcase: %s: %s"
                            % (" ".join(cmd), proc.stdout.strip()[-600:]))
    return [fill(a) for a in expected.get("command", ["{out}"])]


def main(argv):
    if len(argv) != 2:
        print("usage: e2e.py TESTCASE.expected.json", file=sys.stderr)
        return 99
    here = os.path.dirname(os.path.abspath(__file__))
    top = os.environ.get("top_builddir") or os.path.dirname(here)
    contend = os.path.join(top, "contend")

    try:
        with open(argv[1]) as f:
            try:
                expected = json.load(f)
            except ValueError as e:
                raise HardError("%s: %s" % (argv[1], e))
        validate(expected, argv[1])
        missing = [t for t in expected.get("requires", []) if not shutil.which(t)]
        if missing:
            print("SKIP: %s not found (the testcase needs %s)"
                  % (", ".join(missing), ", ".join(expected["requires"])))
            return 77
        scratch = tempfile.TemporaryDirectory(prefix="contend-e2e-")
        command = testcase_command(expected, top, scratch.name)
        if not os.access(contend, os.X_OK):
            raise HardError("%s not found or not executable: build first" % contend)
        repeat = os.environ.get("CONTEND_E2E_REPEAT")
        if repeat is not None and (not repeat.isdigit() or int(repeat) < 1):
            raise HardError("CONTEND_E2E_REPEAT=%s is not a positive number"
                            % repeat)
    except (OSError, HardError) as e:
        print("e2e.py: %s" % e, file=sys.stderr)
        return 99

    only = os.environ.get("CONTEND_E2E_FILTER")
    runs = [r for r in expected["runs"]
            if not only or r["name"] in only.split(",")]
    if not runs:
        print("skip: no run named %s in %s" % (only, argv[1]))
        return 77

    ok = True
    for run in runs:
        times = int(repeat) if repeat else run.get("repeat", 1)
        # CONTEND_E2E_REPEAT measures a rate (bench/): nothing tolerated
        ok &= check_run(contend, command, run, times,
                        0 if repeat else run.get("tolerate_misses", 0))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
