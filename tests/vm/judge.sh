#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Judges a guest kernel log (the console, ttyS0) for kernel reports.
#
# Usage: tests/vm/judge.sh CONSOLE_LOG [NAME]
#
# stdout, TAP:
#   ok - guest kernel log clean (<release>)
#   not ok - guest kernel log: <first offending line>   + "# " context
# <release> is from the log's "Linux version" line, else NAME, else the
# file's name.  Exit 0 when clean, 1 when not, 2 on usage errors.
#
# What fails is a kernel REPORT, not a word: a debug kernel's banners name
# lockdep, KASAN, kmemleak and hung_task ("rcu: RCU lockdep checking is
# enabled.") without anything being wrong.  A report is
#   - a header line the kernel prints at the top of one (list below), or
#   - any stack dump ("Call Trace:") not owned by an allowed report, so a
#     WARN or dump_stack() whose header we do not know still fails.
# kmemleak is not judged here at all: its findings are read from
# /sys/kernel/debug/kmemleak, not from the console.
#
# Fault-injection windows.  A selftest that makes the N-th allocation fail
# writes "pcore-fault-inject: begin" and "pcore-fault-inject: end" to
# /dev/kmsg around it.  Between them, and only there, the kernel's own
# allocation-failure reports are expected: warn_alloc()'s "<comm>: page
# allocation failure: ..." and "<comm>: vmalloc error: ...", the percpu
# allocator's "percpu: allocation failed, size=...", and fault injection's
# "FAULT_INJECTION: forcing a failure.", each with the stack dump that
# follows it (and warn_alloc()'s Mem-Info block, which has no report
# header).  Any other report inside a window still fails, these fail
# outside one, and a window that never ends fails too (the test died in
# it and the log after it is not the one the test vouched for).
#
# Lines are matched after the printk prefix: "[   12.345678] " and, with
# CONFIG_PRINTK_CALLER, "[ T123] " or "[ C1] ".
set -eu

usage() {
	echo "usage: $0 CONSOLE_LOG [NAME]" >&2
	exit 2
}

if [ $# -lt 1 ] || [ $# -gt 2 ]; then
	usage
fi
log=$1
name=${2:-$(basename "$log")}
[ -r "$log" ] || {
	echo "judge.sh: cannot read $log" >&2
	exit 2
}

tr -d '\r' < "$log" | awk -v file="$log" -v name="$name" '
# The message without the printk timestamp and caller id.
function text(l) {
	sub(/^\[ *[0-9]+\.[0-9]+\] ?/, "", l)
	sub(/^\[ *[TC][0-9]+\] ?/, "", l)
	sub(/[ \t]+$/, "", l)
	return l
}

# Headers of the reports a fault-injection window allows.
function alloc_failure(m) {
	return m ~ /: page allocation failure: order:[0-9]+/ ||
	       m ~ /: vmalloc error: size [0-9]+/ ||
	       m ~ /^percpu: allocation failed, size=/ ||
	       m ~ /^FAULT_INJECTION: forcing a failure\./
}

# Report headers.  Most lockdep reports start "WARNING: ..." (circular
# locking, recursive locking, inconsistent lock state, irq lock inversion,
# suspicious RCU usage, bad unlock balance, held lock freed, lock held
# when returning to user space); the phrases are listed as well, since a
# report header is what we mean, not its first word.  SLUB debugging
# reports "BUG <cache> (Not tainted): <what>".
function report(m) {
	return m ~ /BUG:/ || m ~ /WARNING:/ ||
	       m ~ /(^|[^A-Za-z])Oops([^A-Za-z]|$)/ ||
	       m ~ /general protection fault/ || m ~ /Kernel panic/ ||
	       m ~ /kernel BUG at/ || m ~ /(^|[^A-Za-z])UBSAN: / ||
	       m ~ /possible circular locking dependency/ ||
	       m ~ /possible recursive locking/ ||
	       m ~ /inconsistent lock state/ ||
	       m ~ /possible irq lock inversion/ ||
	       m ~ /suspicious RCU usage/ || m ~ /bad unlock balance/ ||
	       m ~ /held lock freed/ ||
	       m ~ /lock held when returning to user space/ ||
	       m ~ /trying to register non-static key/ ||
	       m ~ /DEBUG_LOCKS_WARN_ON/ ||
	       m ~ /(^|[^A-Za-z])BUG [^ ]+ \((Not tainted|Tainted[^)]*)\): / ||
	       m ~ /Redzone overwritten/ || m ~ /Poison overwritten/ ||
	       m ~ /Object already free/ ||
	       m ~ /sleeping function called from invalid context/ ||
	       m ~ /INFO: .*detected (expedited )?stall/ ||
	       m ~ /self-detected stall/ || m ~ /soft lockup/ ||
	       m ~ /hard LOCKUP/ || m ~ /INFO: task .* blocked for more than/ ||
	       m ~ /list_add corruption/ || m ~ /list_del corruption/ ||
	       m ~ /refcount_t: / || m ~ /stack-protector/ ||
	       m ~ /double fault/ || m ~ /Unable to handle kernel/
}

function bad(why) {
	nbad++
	if (!first) {
		first = NR
		firstline = $0
		firstwhy = why
	}
}

{
	line[NR] = $0
	m = text($0)
	if (!rel && match($0, /Linux version [^ ]+/))
		rel = substr($0, RSTART + 14, RLENGTH - 14)
	if (m == "pcore-fault-inject: begin") {
		if (inwin)
			bad("fault-injection window begun inside another")
		inwin = NR
		pending = 0
		next
	}
	if (m == "pcore-fault-inject: end") {
		if (!inwin)
			bad("fault-injection window ended without a begin")
		inwin = 0
		pending = 0
		next
	}
	if (alloc_failure(m)) {
		if (inwin)
			pending++	# its stack dump is allowed
		else
			bad("allocation-failure report outside a fault-injection window")
		next
	}
	if (report(m)) {
		bad("")
		next
	}
	if (m ~ /Call Trace:/) {
		if (pending > 0)
			pending--
		else
			bad("")
	}
}

END {
	if (inwin) {
		# Reported as the begin line: where the test died.
		nbad++
		if (!first || inwin < first) {
			first = inwin
			firstline = line[inwin]
			firstwhy = "fault-injection window never ended"
		}
	}
	if (!rel)
		rel = name
	if (!first) {
		print "ok - guest kernel log clean (" rel ")"
		exit 0
	}
	print "not ok - guest kernel log: " firstline
	if (firstwhy != "")
		print "# " firstwhy
	print "# " nbad " problem line(s) in " file "; context:"
	start = first > 5 ? first - 5 : 1
	for (i = start; i < start + 40 && i <= NR; i++)
		print "# " line[i]
	exit 1
}'
