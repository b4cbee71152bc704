#!/bin/bash
# contend top and the status line of long work:
#   - top -p PID of false_sharing_counters inside tmux (send-keys,
#     capture-pane): `counters` shows as FALSE SHARING within 2 s; Enter
#     expands it (the ranges counters[0] and counters[1], as the report
#     prints them); s changes the sort (the header says the new key); p
#     pauses; w on a virtual machine (no --confirm) says why it arms no
#     watchpoints and how to (elsewhere it confirms, as below); the view
#     redraws at a new size; q exits 0 and the target runs on;
#   - top --confirm --report: w confirms counters with watchpoints (the
#     row and the bottom line say "confirmed: false sharing", Enter shows
#     the exact counts as the report prints them) and the report at q
#     has them;
#   - --report -o FILE: the whole session's report at the end;
#   - top with stdout not a terminal, -i 1 -d 3: three tables, each a
#     '# contend top' line, the column titles and tab-separated rows;
#   - top --batch of phased --together 1 (true sharing for one phase of
#     2 s), a table every 0.5 s: the line `shared` is absent, appears,
#     fades (its score falls) and is gone;
#   - attach -d 5 in tmux shows a status line that changes, and leaves
#     none behind; attach -d 5 2>log writes none to the log;
#   - -a (no system-wide mode) and top's options elsewhere: one-line errors.
# The screen checks skip without tmux.  A check that needs the two cores
# to run both threads at once can fail on a loaded machine: rerun alone.
set -u
: "${top_builddir:=$(cd "$(dirname "$0")/.." && pwd)}"
: "${top_srcdir:=$(cd "$(dirname "$0")/.." && pwd)}"
contend="$top_builddir/contend"
tc="$top_builddir/testcases"
tmp=$(mktemp -d)
sock="contend-e2e-top-$$"
target=
. "$top_srcdir/tests/e2e_lib.sh"

cleanup() {
	command -v tmux >/dev/null && tmux -L "$sock" kill-server 2>/dev/null
	[ -n "$target" ] && kill "$target" 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT

have_tmux=yes
command -v tmux >/dev/null || have_tmux=
vm=no
grep -qw hypervisor /proc/cpuinfo && vm=yes

screen() { tmux -L "$sock" capture-pane -p -t top; }

# Polls the screen until it matches pattern (grep -E), for up to secs.
wait_screen() {   # whole-secs pattern
	local end=$(($(date +%s%N) / 1000000 + $1 * 1000))
	while :; do
		screen >"$tmp/screen" 2>/dev/null
		grep -qE -- "$2" "$tmp/screen" && return 0
		[ $(($(date +%s%N) / 1000000)) -ge "$end" ] && return 1
		sleep 0.1
	done
}

"$tc/false_sharing_counters" --seconds 180 >/dev/null &   # killed at the end
target=$!
sleep 0.3

# --- the screen ---------------------------------------------------------------
if [ -n "$have_tmux" ]; then
	# tried twice: the two threads must run at once to contend
	for try in 1 2; do
		tmux -L "$sock" kill-session -t top 2>/dev/null
		rm -f "$tmp/top.exit"
		tmux -L "$sock" new-session -d -s top -x 180 -y 40 \
			"'$contend' top -p $target; echo \$? >'$tmp/top.exit'; sleep 60"
		t0=$(date +%s.%N)
		dt=
		if wait_screen 3 '^ +1  FALSE SHARING +[0-9.]+ .* counters '; then
			dt=$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')
			awk -v d="$dt" 'BEGIN { exit !(d <= 2.0) }' && break
		fi
		[ $try = 1 ] && echo "retry: counters not FALSE SHARING within 2 s (${dt:-none in 3} s)"
	done
	if [ -z "$dt" ]; then
		fail "top: no FALSE SHARING line for counters within 3 s:"; cat "$tmp/screen"
	elif awk -v d="$dt" 'BEGIN { exit !(d <= 2.0) }'; then
		ok "top: counters as FALSE SHARING after $dt s"
	else
		fail "top: counters as FALSE SHARING only after $dt s (want <= 2)"
	fi

	tmux -L "$sock" send-keys -t top Enter
	if wait_screen 2 '^ +[0-9]+ +8 +counters\[1\] ' &&
	   grep -qE '^ +[0-9]+ +8 +counters\[0\] ' "$tmp/screen" &&
	   grep -qE '^ +offset +size +member' "$tmp/screen"; then
		ok "top: Enter expands the line: ranges counters[0] and counters[1]"
	else
		fail "top: Enter did not show the ranges counters[0] and counters[1]:"
		cat "$tmp/screen"
	fi

	grep -q 'sort: score' "$tmp/screen" || fail "top: header lacks 'sort: score'"
	tmux -L "$sock" send-keys -t top s
	if wait_screen 2 'sort: samples'; then
		ok "top: s sorts by samples (header)"
	else
		fail "top: s did not change the sort:"; head -3 "$tmp/screen"
	fi

	tmux -L "$sock" send-keys -t top p
	if wait_screen 2 'sort: samples  \[paused\]'; then
		ok "top: p pauses (header)"
	else
		fail "top: p did not pause:"; head -3 "$tmp/screen"
	fi
	tmux -L "$sock" send-keys -t top p

	# w where watchpoints are not allowed: one message, nothing armed
	tmux -L "$sock" send-keys -t top w
	if [ $vm = yes ]; then
		if wait_screen 2 '^w: no watchpoints: attached on a virtual machine.*start top with --confirm' &&
		   ! grep -q 'watching\|confirmed' "$tmp/screen"; then
			ok "top on a VM: w arms nothing and says --confirm would"
		else
			fail "top on a VM: w did not refuse:"; tail -3 "$tmp/screen"
		fi
	elif wait_screen 3 '\[confirmed: false sharing, '; then
		ok "top, not a VM: w confirms counters"
	else
		fail "top, not a VM: w did not confirm counters:"; tail -3 "$tmp/screen"
	fi

	tmux -L "$sock" resize-window -t top -x 100 -y 20 2>/dev/null ||
		tmux -L "$sock" resize-pane -t top -x 100 -y 20
	sleep 0.5
	screen >"$tmp/screen"
	if [ "$(wc -l <"$tmp/screen")" -le 20 ] && tail -1 "$tmp/screen" | grep -q '^q quit' &&
	   [ "$(awk '{ if (length($0) > m) m = length($0) } END { print m + 0 }' "$tmp/screen")" -le 100 ]; then
		ok "top: redrawn at 100x20, the keys on its last row"
	else
		fail "top: not redrawn at 100x20:"; cat -A "$tmp/screen"
	fi

	tmux -L "$sock" send-keys -t top q
	for _ in $(seq 50); do [ -s "$tmp/top.exit" ] && break; sleep 0.1; done
	if [ "$(cat "$tmp/top.exit" 2>/dev/null)" = 0 ]; then
		ok "top: q exits 0"
	else
		fail "top: q: exit status '$(cat "$tmp/top.exit" 2>/dev/null)', want 0"
	fi
	# the last screen stays behind as a table
	screen >"$tmp/after-q"
	if grep -q '^# contend top  elapsed' "$tmp/after-q" &&
	   grep -qE '^1[[:space:]]+(false|mixed)[[:space:]].*counters' "$tmp/after-q"; then
		ok "top: q leaves the last window's table behind"
	else
		fail "top: nothing left after q:"; cat "$tmp/after-q"
	fi
	if kill -0 "$target" 2>/dev/null; then
		ok "top: the target runs on after q"
	else
		fail "top: the target is gone after q"
	fi
	tmux -L "$sock" kill-session -t top 2>/dev/null

	# --- w: watchpoints on the selected line, on demand ---------------------
	rm -f "$tmp/top.exit" "$tmp/w-final.txt"
	tmux -L "$sock" new-session -d -s top -x 180 -y 50 \
		"'$contend' top --span 5 --confirm --report -o '$tmp/w-final.txt' -p $target; echo \$? >'$tmp/top.exit'; sleep 60"
	# a window sees both threads only when both run in it (and the line
	# is in the view only when they ran at once): up to three w
	for try in 1 2 3; do
		wait_screen 5 '^ +1  FALSE SHARING +[0-9.]+ .* counters ' ||
			echo "counters not contended yet: w may have nothing to confirm"
		tmux -L "$sock" send-keys -t top w
		sleep 0.3   # the last try's verdict is on the bottom line until w is read
		wait_screen 3 '^w: counters \(line 0x[0-9a-f]+\): ' &&
			grep -qE '\[confirmed: false sharing, ' "$tmp/screen" && break
	done
	row=$(grep -E '^ +1  FALSE SHARING .* counters ' "$tmp/screen")
	msg=$(tail -1 "$tmp/screen")
	if echo "$row" | grep -qE '\[confirmed: false sharing, [0-9.]+[KMG]? writes, threads [0-9]+ [0-9]+\]  increment ' &&
	   echo "$msg" | grep -qE '^w: counters \(line 0x[0-9a-f]+\): confirmed: false sharing by exact counts( of uprobes on its code)? \([0-9]+ words? (watched|counted), [0-9.]+ s\); '; then
		ok "top --confirm: w confirms counters (try $try): $(echo "$row" | grep -oE '\[confirmed[^]]*\]')"
	else
		fail "top --confirm: w did not confirm counters as false sharing:"; cat "$tmp/screen"
	fi
	tmux -L "$sock" send-keys -t top Enter
	if wait_screen 5 '^ +confirmed: false sharing by exact counts( of uprobes on its code)? \([0-9]+ words? (watched|counted)' &&
	   grep -qE '^ +offset +member +thread +reads +writes' "$tmp/screen"; then
		ok "top --confirm: Enter shows the exact counts as the report prints them"
	else
		fail "top --confirm: the expanded line lacks the exact counts:"; cat "$tmp/screen"
	fi
	tmux -L "$sock" send-keys -t top q
	for _ in $(seq 50); do [ -s "$tmp/top.exit" ] && break; sleep 0.1; done
	if [ "$(cat "$tmp/top.exit" 2>/dev/null)" = 0 ] &&
	   grep -qE "^# (watchpoints:|confirmation: uprobes on the lines' code,) [1-9][0-9]* windows" "$tmp/w-final.txt" &&
	   grep -qE '^ +confirmed: false sharing by exact counts' "$tmp/w-final.txt" &&
	   kill -0 "$target" 2>/dev/null; then
		ok "top --confirm --report: q exits 0, the report has w's exact counts"
	else
		fail "top --confirm --report: exit '$(cat "$tmp/top.exit" 2>/dev/null)', report:"
		cat "$tmp/w-final.txt"
	fi
	tmux -L "$sock" kill-session -t top 2>/dev/null
else
	echo "skip: no tmux: the screen of contend top is not tested"
fi

# --- tables when stdout is not a terminal -------------------------------------
tables_ok() {
	grep -qP '^1\tfalse\t[0-9.]+\t\S+\t[0-9]+\t[0-9.]+%\t\S+\t2\t[0-9]+,[0-9]+\tcounters\tcounters\[0\],counters\[1\]\tincrement false_sharing_counters\.c:[0-9]+$' "$tmp/tables"
}
for try in 1 2; do
	"$contend" top -i 1 -d 3 -p "$target" >"$tmp/tables" 2>"$tmp/tables.err"
	st=$?
	tables_ok && break
	[ $try = 1 ] && echo "retry: no counters row in 3 s of tables"
done
n=$(grep -c '^# contend top  elapsed ' "$tmp/tables")
bad=$(awk -F'\t' '
	/^# contend top/ { state = 1; next }
	state == 1 { if ($0 != "rank\tkind\tscore\ttrend\tsamples\tshare\tgain\tthreads\ttids\tobject\tmembers\tsite") print "header: " $0; state = 2; next }
	state == 2 && $0 == "" { state = 0; next }
	state == 2 { if (NF != 12 || $1 !~ /^[0-9]+$/ || $2 !~ /^(false|true|mixed)$/ || $3 !~ /^[0-9.]+$/) print "row: " $0; next }
	{ print "stray: " $0 }' "$tmp/tables")
if [ $st -eq 0 ] && [ "$n" = 3 ] && [ -z "$bad" ] && tables_ok; then
	ok "top, stdout a file: 3 tables in 3 s, every row parsed, counters[0],counters[1]"
else
	fail "top -i 1 -d 3 >file: exit $st, $n tables (want 3), unparsed: $bad"
	cat "$tmp/tables" "$tmp/tables.err"
fi
awk '/^# contend top/ { print $5 }' "$tmp/tables" >"$tmp/elapsed"
if awk 'NR > 1 && ($1 - prev < 0.7 || $1 - prev > 1.5) { bad = 1 } { prev = $1 } END { exit bad }' "$tmp/elapsed"; then
	ok "top: one table a second ($(tr '\n' ' ' <"$tmp/elapsed")s)"
else
	fail "top: tables not a second apart: $(tr '\n' ' ' <"$tmp/elapsed")"
fi

# --- --report: the whole session's report at the end ----------------------------
"$contend" top --batch -n 2 --report -o "$tmp/final.txt" -p "$target" >"$tmp/two" 2>&1
st=$?
if [ $st -eq 0 ] && [ "$(grep -c '^# contend top' "$tmp/two")" = 2 ] &&
   grep -q '^# contend report: ' "$tmp/final.txt" && grep -q '^# samples: ' "$tmp/final.txt" &&
   kill -0 "$target" 2>/dev/null; then
	ok "top -n 2 --report -o: two tables, then the session's report; the target runs on"
else
	fail "top -n 2 --report: exit $st:"; cat "$tmp/two" "$tmp/final.txt"
fi

# --- sharing that starts and stops ----------------------------------------------
# phases of 2 s: 0 thread 0 alone, 1 both at once, 2 thread 0, 3 thread 1;
# windows of 2 s every 0.5 s: at 4 s the window holds all of the sharing,
# at 4.5 and 5 s less and less (its score falls), from 6 s none of it
# the verdict on the scores of shared, one per table (0: absent)
phased_verdict() {
	awk -v list="$1" 'BEGIN {
	n = split(list, s, " "); max = 0; at = 0
	for (i = 1; i <= n; i++) if (s[i] > max) { max = s[i]; at = i }
	fell = 0; for (i = at + 1; i <= n; i++) if (s[i] > 0 && s[i] < max) fell = 1
	if (n < 6) print "only " n " tables"
	else if (s[1] > 0) print "present at first"
	else if (!at) print "never present"
	else if (!fell) print "no fading score after the peak"
	else if (s[n] > 0) print "still there at the end"
	else print "ok" }'
}
for try in 1 2; do
	"$contend" top --batch -i 0.5 --span 2 -n 14 -- \
		"$tc/phased" --phases 4 --phase-ms 2000 --together 1 >"$tmp/phased" 2>"$tmp/phased.err"
	st=$?
	awk -F'\t' '/^# contend top/ { t++; s[t] = 0 } $10 == "shared" { s[t] = $3 }
		END { for (i = 1; i <= t; i++) printf "%s ", s[i]; print "" }' "$tmp/phased" >"$tmp/scores"
	read -r -a sc <"$tmp/scores"
	verdict=$(phased_verdict "${sc[*]}")
	[ "$verdict" = ok ] && break
	[ $try = 1 ] && echo "retry: phased: $verdict (scores ${sc[*]})"
done
if [ $st -eq 0 ] && [ "$verdict" = ok ]; then
	ok "top --batch, phased --together 1: shared appears, fades, goes (scores ${sc[*]})"
else
	fail "top --batch phased: exit $st, $verdict (scores of shared: ${sc[*]})"
	cat "$tmp/phased" "$tmp/phased.err"
fi

# --- the status line of attach ---------------------------------------------------
"$contend" attach --no-confirm -d 5 -p "$target" >"$tmp/attach-log.out" 2>"$tmp/attach.log" &
logged=$!
if [ -n "$have_tmux" ]; then
	tmux -L "$sock" new-session -d -s att -x 160 -y 10 \
		"'$contend' attach -d 5 -p $target >'$tmp/attach.out'; echo \$? >'$tmp/attach.exit'; sleep 60"
	sleep 1.5
	tmux -L "$sock" capture-pane -p -t att | grep -E '^contend: [0-9.]+ of 5 s  samples' >"$tmp/status1"
	sleep 1.5
	tmux -L "$sock" capture-pane -p -t att | grep -E '^contend: [0-9.]+ of 5 s  samples' >"$tmp/status2"
	if [ -s "$tmp/status1" ] && [ -s "$tmp/status2" ] && ! cmp -s "$tmp/status1" "$tmp/status2"; then
		ok "attach on a terminal: a status line that updates ($(cut -c1-60 "$tmp/status2"))"
	else
		fail "attach on a terminal: no updating status line: '$(cat "$tmp/status1")' then '$(cat "$tmp/status2")'"
	fi
	for _ in $(seq 100); do [ -s "$tmp/attach.exit" ] && break; sleep 0.1; done
	tmux -L "$sock" capture-pane -p -t att >"$tmp/after"
	if [ "$(cat "$tmp/attach.exit" 2>/dev/null)" = 0 ] && ! grep -q ' of 5 s ' "$tmp/after" &&
	   grep -q '^# contend report' "$tmp/attach.out"; then
		ok "attach on a terminal: the status line is erased before the report"
	else
		fail "attach on a terminal: exit '$(cat "$tmp/attach.exit" 2>/dev/null)', status line left:"
		cat "$tmp/after"
	fi
fi
wait "$logged"
if ! grep -q ' of 5 s ' "$tmp/attach.log" && ! grep -q $'\r' "$tmp/attach.log" &&
   grep -q '^contend: sampling process' "$tmp/attach.log"; then
	ok "attach -d 5 2>log: no status line in the log"
else
	fail "attach -d 5 2>log: a status line in the log:"; cat -A "$tmp/attach.log"
fi

# --- what top does not do, said in one line ------------------------------------
expect_max_lines=1
expect "top -a: no system-wide mode" 2 '^contend: -a: system-wide sampling is not available in contend top' \
	"$contend" top -a -p "$target"
expect "run --batch: top's option" 2 "^contend: error: '--batch' is not an option of 'contend run' \\(it is of: top\\)" \
	"$contend" run --batch -- true
expect "top -p and a command" 2 '^contend: top: give -p PID or a command after --, not both' \
	"$contend" top -p "$target" -- true

kill "$target" 2>/dev/null
wait "$target" 2>/dev/null
target=
[ "$fails" -eq 0 ] || { echo "$fails failed"; exit 1; }
echo "all passed"
