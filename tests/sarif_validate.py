#!/usr/bin/env python3
"""Validate a SARIF log against the SARIF 2.1.0 JSON schema (kept beside
this file, from github.com/oasis-tcs/sarif-spec) and, optionally, assert
its results:

  sarif_validate.py SCHEMA LOG [--results N] [--rule ID] [--uri URI]
                    [--base-id ID] [--line N] [--level L] [--text SUBSTRING]...

--rule/--uri/--base-id/--line/--level/--text are asserted on the first
result (its first location).  Exit 0 valid and as asserted, 1 otherwise
(the reason on stderr), 77 when python3-jsonschema is missing."""
import argparse
import json
import sys

try:
    import jsonschema
except ImportError:
    print("python3-jsonschema is not installed", file=sys.stderr)
    sys.exit(77)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("schema")
    ap.add_argument("log")
    ap.add_argument("--results", type=int)
    ap.add_argument("--rule")
    ap.add_argument("--uri")
    ap.add_argument("--base-id")
    ap.add_argument("--line", type=int)
    ap.add_argument("--level")
    ap.add_argument("--text", action="append", default=[])
    a = ap.parse_args()

    with open(a.schema) as f:
        schema = json.load(f)
    with open(a.log) as f:
        log = json.load(f)
    validator = jsonschema.Draft4Validator(schema)
    errors = sorted(validator.iter_errors(log), key=lambda e: list(e.path))
    for e in errors[:10]:
        print("schema: %s: %s" % ("/".join(map(str, e.path)), e.message), file=sys.stderr)
    if errors:
        return 1

    results = log["runs"][0]["results"]
    want = []
    if a.results is not None:
        want.append(("results", len(results), a.results))
    if a.rule or a.uri or a.line or a.level or a.text or a.base_id:
        if not results:
            print("no result to check", file=sys.stderr)
            return 1
        r = results[0]
        phys = r["locations"][0]["physicalLocation"]
        if a.rule:
            want.append(("ruleId", r.get("ruleId"), a.rule))
        if a.uri:
            want.append(("uri", phys["artifactLocation"]["uri"], a.uri))
        if a.base_id:
            want.append(("uriBaseId", phys["artifactLocation"].get("uriBaseId"), a.base_id))
        if a.line:
            want.append(("startLine", phys["region"].get("startLine"), a.line))
        if a.level:
            want.append(("level", r.get("level"), a.level))
        for t in a.text:
            got = r["message"]["text"]
            want.append(("message has %r" % t, t in got, True))
    bad = [(what, got, exp) for what, got, exp in want if got != exp]
    for what, got, exp in bad:
        print("%s: %r, want %r" % (what, got, exp), file=sys.stderr)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
