#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Usage: tests/summarize.sh FILE...
#
# Totals TAP-ish results from any mix of kselftest output and VM runner
# output. Only lines starting in column 0 count (nested, indented TAP and
# "# " comments do not):
#   "ok ..."             passed, unless it carries a "# SKIP" directive,
#                        then skipped (a skip never counts as a pass)
#   "not ok ..."         failed
# Failed lines are listed first (FILE: line), each followed by the last 40
# "# " comment lines before it (the test's own diagnostics, indented), then
# the last line of stdout is "N passed, N failed[, N skipped]". Exit 1 when anything failed, nothing
# passed, or a FILE is unreadable (a missing results file is a lost run).
set -eu

usage() {
	echo "usage: $0 FILE..." >&2
	exit 2
}

[ $# -gt 0 ] || usage

# Keep the readable files as the arguments; remember if any was not.
unreadable=0
n=$#
while [ "$n" -gt 0 ]; do
	f=$1
	shift
	n=$((n - 1))
	if [ -r "$f" ] && [ ! -d "$f" ]; then
		set -- "$@" "$f"
	else
		echo "summarize: cannot read $f" >&2
		unreadable=1
	fi
done

awk -v unreadable="$unreadable" '
	{ sub(/\r$/, "") }
	FNR == 1 { nc = 0 }
	/^#/ { c[nc++ % 40] = $0; next }
	/^not ok / {
		failed++
		print FILENAME ": " $0
		for (i = (nc > 40 ? nc - 40 : 0); i < nc; i++)
			print "    " c[i % 40]
		nc = 0
		next
	}
	/^ok / {
		nc = 0
		# TAP directive: "#", optional blanks, SKIP in any case.
		if ($0 ~ /#[ \t]*[Ss][Kk][Ii][Pp]/)
			skipped++
		else
			passed++
	}
	END {
		line = (passed + 0) " passed, " (failed + 0) " failed"
		if (skipped > 0)
			line = line ", " skipped " skipped"
		print line
		exit (failed > 0 || passed == 0 || unreadable) ? 1 : 0
	}' "$@" /dev/null
