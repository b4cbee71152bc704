#!/bin/sh
# contend attach from the host on processes in their own PID and mount
# namespaces, as in a container (issue 39):
#  1. false_sharing_counters in a chroot of a minimal tree (the binary at
#     /app/fsc, a path the host does not have, and its libraries), under
#     unshare --pid --mount --fork: attached by host pid, the line, its
#     members and the function are named from the binary inside; the
#     attach line gives the pid the process sees (1);
#  2. a JVM with its own /tmp (a tmpfs in its mount namespace): the attach
#     protocol reaches it, it writes /tmp/perf-1.map in its /tmp, and the
#     Java method names come through (/proc/PID/root/tmp/perf-1.map);
#  3. attach -a -G CGROUP: a false-sharing testcase in a cgroup of its own
#     is reported, a true-sharing one outside it is not, by the cgroup's
#     path and by its /sys/fs/cgroup directory; -G without -a, and a
#     cgroup no hierarchy has, are one-line errors.
# Needs root (unshare, chroot, mount); each part skips with the reason.
set -u
: "${top_builddir:=$(cd "$(dirname "$0")/.." && pwd)}"
: "${top_srcdir:=$(cd "$(dirname "$0")/.." && pwd)}"
contend="$top_builddir/contend"
fsc="$top_builddir/testcases/false_sharing_counters"
# outside /tmp: the JVM's own /tmp hides the host's
tmp=$(mktemp -d /var/tmp/contend-ns.XXXXXX)
pids=""
cleanup() {
	# unshare --fork ignores SIGTERM; killed, --kill-child takes its child along
	for p in $pids; do kill -9 "$p" 2>/dev/null; done
	[ -n "${cgdir:-}" ] && { sleep 0.5; rmdir "$cgdir" 2>/dev/null; }
	rm -rf "$tmp"
}
trap cleanup EXIT
. "$top_srcdir/tests/e2e_lib.sh"

if [ "$(id -u)" -ne 0 ] || ! unshare --pid --mount --fork true 2>/dev/null; then
	echo "SKIP: unshare --pid --mount needs root here"
	exit 77
fi

# the pid of the process whose command line holds $1, in the host's view
host_pid() {
	for p in $(pgrep -f -- "$1"); do
		[ "$(cat /proc/$p/comm 2>/dev/null)" = "$2" ] && { echo $p; return; }
	done
}

# --- 1. a chroot in its own namespaces ---------------------------------------
root="$tmp/root"
mkdir -p "$root/app"
cp "$fsc" "$root/app/fsc"
for l in $(ldd "$fsc" | grep -o '/[^ ]*'); do
	mkdir -p "$root$(dirname "$l")" && cp -L "$l" "$root$l"
done
unshare --pid --mount --fork --kill-child chroot "$root" /app/fsc -t 2 --seconds 12 \
	>/dev/null 2>&1 &
pids="$!"
sleep 1
pid=$(host_pid "^/app/fsc -t 2" fsc)
if [ -z "$pid" ]; then
	fail "the namespaced testcase did not start"
elif [ -e /app/fsc ]; then
	echo "skip 1: this host has its own /app/fsc: the test cannot tell whose was read"
else
	"$contend" attach -p "$pid" -d 3 --format json -o "$tmp/c.json" 2>"$tmp/err"
	st=$?
	if [ $st -eq 0 ] && grep -q "sampling process $pid, pid 1 in its PID namespace" "$tmp/err" &&
	   python3 - "$tmp/c.json" <<'EOP'
import json, sys
d = json.load(open(sys.argv[1]))
lines = [l for l in d["lines"] if l["kind"] == "false"]
assert lines, [(l["kind"], l.get("variable")) for l in d["lines"]]
l = lines[0]
members = sorted({r["member"] for r in l["ranges"]})
assert l.get("variable") == "counters", l.get("variable")
assert members == ["counters[0]", "counters[1]"], members
sites = [s for r in l["ranges"] for s in r.get("sites", [])]
assert any(s["function"] == "increment" and s["file"].endswith("false_sharing_counters.c")
           for s in sites), sites
print("  %s %s %s" % (l["kind"], l["variable"], " ".join(members)))
EOP
	then
		ok "chroot + PID namespace: counters[0], counters[1] in increment, pid 1 said"
	else
		fail "chroot + PID namespace (exit $st)"; cat "$tmp/err"
	fi
fi

# --- 2. a JVM with its own /tmp ---------------------------------------------
if ! command -v java >/dev/null 2>&1 || ! command -v javac >/dev/null 2>&1; then
	echo "skip 2: no java and javac"
elif ! javac -d "$tmp/classes" "$top_srcdir/testcases/jvm_type_check/TypeCheck.java"; then
	fail "javac TypeCheck.java"
else
	unshare --pid --mount --fork --kill-child --propagation private sh -c \
		'mount -t tmpfs tmpfs /tmp && exec java -cp "$1" TypeCheck 2 20' sh "$tmp/classes" \
		>"$tmp/jvm.out" 2>&1 &
	pids="$pids $!"
	sleep 4    # warm-up: C2 compiles the checking loop
	jvm=$(host_pid "TypeCheck 2 20" java)
	if [ -z "$jvm" ]; then
		fail "the namespaced JVM did not start"; cat "$tmp/jvm.out"
	else
		"$contend" attach -p "$jvm" -d 3 --format json -o "$tmp/j.json" 2>"$tmp/err"
		st=$?
		if [ $st -eq 0 ] && python3 - "$tmp/j.json" "$jvm" <<'EOP'
import json, sys
d = json.load(open(sys.argv[1]))
note = d.get("jit_note") or ""
want = "/proc/%s/root/tmp/perf-1.map" % sys.argv[2]
assert want in note, note
names = {s["function"] for l in d["lines"] for r in l["ranges"] for s in r.get("sites", [])}
assert any("TypeCheck$Checker.run" in n for n in names), sorted(names)[:10]
klass = [l for l in d["lines"] if (l.get("type") or "") == "Klass"]
assert klass, [(l["kind"], l.get("type")) for l in d["lines"]]
members = {r["member"] for l in klass for r in l["ranges"]}
assert "_secondary_super_cache" in members, members
print("  %s; %s" % (want, sorted(n for n in names if "TypeCheck" in n)[:2]))
EOP
		then
			ok "JVM with its own /tmp: its perf map and Java method names"
		else
			fail "JVM with its own /tmp (exit $st)"; cat "$tmp/err"
		fi
	fi
fi

# --- 3. attach -a -G -------------------------------------------------------
cgname=contend-e2e-$$
for base in /sys/fs/cgroup /sys/fs/cgroup/unified; do
	[ "$(stat -f -c %T "$base" 2>/dev/null)" = cgroup2fs ] && mkdir "$base/$cgname" 2>/dev/null &&
		{ cgdir="$base/$cgname"; break; }
done
if [ -z "${cgdir:-}" ]; then
	echo "skip 3: no writable cgroup v2 hierarchy here"
else
	# both live past every attempt below; cleanup kills them
	sh -c 'echo $$ > "$1/cgroup.procs" && exec "$2" -t 2 --seconds 60' sh "$cgdir" "$fsc" \
		>/dev/null 2>&1 &
	in_pid=$!
	"$top_builddir/testcases/true_sharing_counter" --seconds 60 >/dev/null 2>&1 &
	out_pid=$!
	pids="$pids $in_pid $out_pid"
	sleep 1
	bad=0
	for g in "/$cgname" "$cgdir"; do
		# a loaded machine rarely runs the two threads at once: an empty
		# report is tried again (exit 3), a wrong one fails at once
		for attempt in 1 2 3; do
			"$contend" attach -a -G "$g" -d 3 --format json -o "$tmp/g.json" 2>"$tmp/err"
			st=$?
			python3 - "$tmp/g.json" "$in_pid" "$out_pid" "$cgname" <<'EOP'
import json, sys
d = json.load(open(sys.argv[1]))
pin, pout, name = int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
assert d["command"] == "every process in cgroup /%s (-a -G)" % name, d["command"]
pids = {l["pid"] for l in d["lines"]}
assert pout not in pids, "the process outside the cgroup is reported"
false = [l for l in d["lines"] if l["kind"] == "false" and l["pid"] == pin]
if not false:
    print("  no false-sharing line of pid %d: %s" % (pin, [(l["kind"], l["pid"]) for l in d["lines"]]))
    sys.exit(3)
assert false[0].get("variable") == "counters", false[0].get("variable")
EOP
			py=$?
			[ $py -eq 3 ] && [ $attempt -lt 3 ] && { echo "  -G $g: attempt $attempt: busy machine? again"; continue; }
			[ $py -eq 0 ] || { bad=1; echo "  -G $g: exit $st"; cat "$tmp/err"; }
			break
		done
	done
	[ $bad -eq 0 ] && ok "attach -a -G: the cgroup's process alone, by path and by directory" ||
		fail "attach -a -G"
	expect_max_lines=1
	expect "-G without -a" 2 "-G: a cgroup filters what -a samples" \
		"$contend" attach -G "/$cgname" -p "$in_pid" -d 1
	expect "-G of no cgroup" 2 "-G /no-such-cgroup-here: no such cgroup" \
		"$contend" attach -a -G /no-such-cgroup-here -d 1
fi

[ $fails -eq 0 ]
