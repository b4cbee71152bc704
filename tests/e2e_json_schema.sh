#!/bin/sh
# docs/report-1.schema.json: the example report of docs/json-schema.md is
# valid JSON and follows the schema, and a report of a bundled testcase
# read back by `contend report` does too.  (Every report tests/e2e.py reads
# is validated as well.)  Skips (77) without python3-jsonschema.
set -u
: "${top_srcdir:=$(cd "$(dirname "$0")/.." && pwd)}"
: "${top_builddir:=$top_srcdir}"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

python3 - "$top_srcdir" <<'PY' || exit 1
import json, re, sys
top = sys.argv[1]
text = open(top + "/docs/json-schema.md").read()
block = re.search(r"```json\n(.*?)```", text, re.S).group(1)
try:
    json.loads(block)
except ValueError as e:
    print("FAIL docs/json-schema.md: the example report is not valid JSON: %s" % e)
    sys.exit(1)
print("ok the example report is valid JSON")
PY
python3 -c 'import jsonschema' 2>/dev/null ||
	{ echo "SKIP: no python3-jsonschema (apt-get install python3-jsonschema)"; exit 77; }

"$top_builddir/contend" record -q --no-price-probe -o "$tmp/d.data" -- \
	"$top_builddir/testcases/false_sharing_counters" >/dev/null 2>&1
"$top_builddir/contend" report -q -i "$tmp/d.data" --format json -o "$tmp/r.json" 2>/dev/null
python3 - "$top_srcdir" "$tmp/r.json" <<'PY'
import json, re, sys
import jsonschema
top, report = sys.argv[1], sys.argv[2]
schema = json.load(open(top + "/docs/report-1.schema.json"))
jsonschema.Draft202012Validator.check_schema(schema)
v = jsonschema.Draft202012Validator(schema)
fails = 0
text = open(top + "/docs/json-schema.md").read()
example = json.loads(re.search(r"```json\n(.*?)```", text, re.S).group(1))
for name, doc in (("the example of docs/json-schema.md", example),
                  ("report -i of false_sharing_counters", json.load(open(report)))):
    errors = list(v.iter_errors(doc))
    if errors:
        fails += 1
        print("FAIL %s breaks the schema:" % name)
        for e in errors[:5]:
            print("  %s at %s" % (e.message[:200], "/".join(str(p) for p in e.path)))
    else:
        print("ok %s follows docs/report-1.schema.json" % name)
bad = dict(json.load(open(report)), verdict="maybe")
if list(v.iter_errors(bad)):
    print("ok a report with verdict 'maybe' breaks it (the schema can fail)")
else:
    fails += 1
    print("FAIL a verdict of 'maybe' passed the schema")
sys.exit(1 if fails else 0)
PY
