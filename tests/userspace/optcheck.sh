#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Usage: tests/userspace/optcheck.sh PROBECTL OPTDUMP MAN COMPLETION OUT
#
# probectl's options are written once, in the option tables of
# userspace/args.c (OPTDUMP prints them); the help is made from them.
# This holds the other two places that list them against the tables,
# exactly:
#   1. the man page MAN: each command's SYNOPSIS names exactly its
#      table's options (by the short name where there is one, else the
#      long one), as does the usage line of its help (written by hand in
#      args.c), and its OPTIONS section gives the long name of every
#      option that has a short one;
#   2. the bash completion COMPLETION (which reads PROBECTL's help): the
#      commands, and each command's options with their short name and
#      value, in the table's order.
# Prints one line per check, and a diff under each that fails; exits 1
# when one failed.  OUT holds the lists compared.
set -u

[ $# -eq 5 ] || {
	echo "usage: $0 PROBECTL OPTDUMP MAN COMPLETION OUT" >&2
	exit 2
}
bin=$1 dump=$2 man=$3 completion=$4 out=$5
failed=0

# same WANT GOT DESCRIPTION: whether the lists are equal, and if not how.
same() {
	if cmp -s "$1" "$2"; then
		echo "same: $3"
	else
		echo "DIFFERENT: $3"
		diff -u "$1" "$2" | head -40
		failed=1
	fi
}

mkdir -p "$out"
if ! "$dump" > "$out/opt.table" || ! [ -s "$out/opt.table" ]; then
	echo "$dump printed no option tables"
	exit 1
fi
cmds=$(cut -d' ' -f1 "$out/opt.table" | uniq)

# 1. The man page.  SYNOPSIS: one block per command line (.br between
# them), "probectl COMMAND..." first; "COMMAND OPTION" for each option
# word (-x or --long) of a block, for each command the block names.
awk '
	function flush(   n, w, i, c, nc, cmd) {
		n = split(block, w, " ")
		for (i = 1; i <= n && w[i] != "probectl"; i++)
			;
		for (i++; i <= n && w[i] ~ /^[a-z]+$/; i++)
			cmd[++nc] = w[i]
		for (; i <= n; i++)
			if (w[i] ~ /^(-[A-Za-z]|--[a-z][a-z-]*)$/)
				for (c = 1; c <= nc; c++)
					print cmd[c], w[i]
		for (c = 1; c <= nc; c++)
			print cmd[c], "-"
		block = ""
	}
	/^\.SH SYNOPSIS/ { on = 1; next }
	on && /^\.SH / { flush(); exit }
	!on { next }
	/^\.br$/ { flush(); next }
	{
		line = $0
		sub(/^\.[A-Z]+ */, "", line)
		gsub(/\\-/, "-", line)
		gsub(/[][()|,"]/, " ", line)
		block = block " " line
	}' "$man" | sort -u > "$out/opt.man"
awk '{ print $1, "-"; if ($3 != "-") print $1, ($2 != "-" ? $2 : $3) }' \
	"$out/opt.table" | sort -u > "$out/opt.want"
same "$out/opt.want" "$out/opt.man" \
	"probectl.8: each command's SYNOPSIS names exactly its table's options"
# The usage line of each command's help, written by hand beside the
# table (args.c's .synopsis): the same options as the man page's.
for c in $cmds; do
	echo "$c -"
	"$bin" help "$c" | sed -n '1s/^usage: probectl //p' | tr '][()|,' ' ' |
		tr ' ' '\n' | grep -E -- '^(-[A-Za-z]|--[a-z][a-z-]*)$' |
		sed "s/^/$c /"
done | sort -u > "$out/opt.usage"
same "$out/opt.want" "$out/opt.usage" \
	"help: each command's usage line names exactly its table's options"
# OPTIONS: the long name of each option known by its short one there.
sed -n '/^\.SH OPTIONS/,/^\.SH /p' "$man" | sed 's/\\-/-/g' |
	grep -oE -- '--[a-z][a-z-]*' | sort -u > "$out/opt.man-long"
awk '$2 != "-" { print $3 }' "$out/opt.table" | sort -u > "$out/opt.want-long"
comm -12 "$out/opt.want-long" "$out/opt.man-long" > "$out/opt.man-given"
same "$out/opt.want-long" "$out/opt.man-given" \
	"probectl.8: OPTIONS gives the long name of every short option"

# 2. The completion, as bash runs it: the commands it offers, and for
# each command its options as "SHORT LONG ARG" lines.
bash -c '. "$1"; _probectl_commands "$2"' sh "$completion" "$bin" |
	sort > "$out/comp.cmds"
{ echo "$cmds"; echo help; } | sort > "$out/comp.cmds-want"
same "$out/comp.cmds-want" "$out/comp.cmds" \
	"bash completion: the commands are the table's, and help"
# shellcheck disable=SC2016,SC2086 # expanded by the inner bash; a list
bash -c '. "$1"; bin=$2; shift 2
	for c; do _probectl_options "$bin" "$c" | sed "s/^/$c /"; done' \
	sh "$completion" "$bin" $cmds > "$out/comp.opts"
grep -v ' - - -$' "$out/opt.table" > "$out/comp.opts-want"
same "$out/comp.opts-want" "$out/comp.opts" \
	"bash completion: each command's options, short names and values are its table's, in order"
exit $failed
