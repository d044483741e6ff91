#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# shellcheck source-path=SCRIPTDIR
#
# probectl's bash completion against probectl's command table: every
# command, every option of each (userspace/args.c's tables, read here on
# their own, not through probectl's help as the completion does), file,
# directory and histogram-spec arguments, and histogram names where the
# synopsis has NAME (from `probectl list`, here a wrapper that prints a
# fixed list).  Prints TAP; exits 1 on any failure.
#
# Usage: completion.sh COMPLETION PROBECTL ARGS_C
set -u

[ $# -eq 3 ] || {
	echo "usage: $0 COMPLETION PROBECTL ARGS_C" >&2
	exit 2
}
completion=$(realpath "$1") probectl=$(realpath "$2") args_c=$(realpath "$3")
# tap STATUS DESCRIPTION: one numbered TAP line; tap_n, failed
TAP_NUMBERS=1
# shellcheck source=../lib/tap.sh
. "$(dirname "$0")/../lib/tap.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# The command table: "COMMAND OPTS_TABLE SYNOPSIS" per command, from the
# designated initializers of cmds[] (.name, .opts, .synopsis).
table=$(awk '
	/^\t\[PC_CMD_[A-Z_]+\] = \{$/ { name = opts = ""; on = 1; next }
	on && /^\t\t\.name = "/ { split($0, f, "\""); name = f[2] }
	on && /^\t\t\.opts = / { opts = $3; sub(/,$/, "", opts) }
	on && /^\t\t\.synopsis = "/ {
		match($0, /"[^"]*"/)
		print name, opts, substr($0, RSTART + 1, RLENGTH - 2)
		on = 0
	}' "$args_c")
# Options of one table: "--long" and "-s" words, from its
# PC_OPT_FLAG(SHORT, "LONG", ...) and PC_OPT_VALUE(SHORT, "LONG", ...).
opts_of() {
	awk -v t="$1" '
		$0 ~ "pc_opt " t "\\[\\] = \\{" { on = 1; next }
		on && /^\};/ { exit }
		on && /PC_OPT_(FLAG|VALUE)\(/ {
			match($0, /"[a-z-]+"/); print "--" substr($0, RSTART + 1, RLENGTH - 2)
			if (match($0, /\('"'"'[A-Za-z]'"'"',/)) print "-" substr($0, RSTART + 2, 1)
		}' "$args_c"
}


# complete probectl WORD...: the completions bash would offer, sorted,
# on one line.  COMP_WORDS[0] is the wrapper, so the completion runs it.
complete_words() {
	shift
	bash -c '
		. "$1"; shift
		COMP_WORDS=("$@"); COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
		_probectl
		printf "%s\n" "${COMPREPLY[@]}" | sort | paste -sd " "' \
		sh "$completion" "$tmp/probectl" "$@"
}

# expect DESCRIPTION WANT WORD...: WANT is a list of words
expect() {
	local desc=$1 want got
	# shellcheck disable=SC2086 # a list of words
	want=$(printf '%s\n' $2 | sort | paste -sd ' ')
	shift 2
	got=$(cd "$tmp/files" && complete_words "$@")
	[ "$got" = "$want" ]
	tap $? "completion: $desc"
	[ "$got" = "$want" ] || echo "# want '$want', got '$got'"
}

# The wrapper: probectl itself, but for list a fixed list.
cat > "$tmp/probectl" << EOF
#!/bin/sh
if [ "\$*" = list ]; then
	echo '# name            kind       symbol                   hits       missed        count flags'
	echo 'do_fork           kretprobe  kernel_clone              210            7          203 own'
	echo 'thardirq/irq_time tracepoint irq_handler_exit           11            0            9 -'
	exit 0
fi
exec "$probectl" "\$@"
EOF
chmod +x "$tmp/probectl"
mkdir -p "$tmp/files/adir/sub" && touch "$tmp/files/afile.ko" "$tmp/files/adir/x.folded"
names="do_fork thardirq/irq_time"

[ -n "$table" ] && [ "$(echo "$table" | wc -l)" -ge 10 ]
tap $? "args.c's command table read: $(echo "$table" | wc -l) commands"
cmds=$(echo "$table" | cut -d' ' -f1)
expect "the commands" "$cmds help --help --version" probectl ''
expect "help COMMAND" "$cmds" probectl help ''
while read -r cmd opts synopsis; do
	expect "$cmd's options" "--help $(opts_of "$opts")" probectl "$cmd" -
	case $synopsis in
	"$cmd NAME"* | "$cmd (NAME"*) want=$names what="the histograms" ;;
	*) want='' what="nothing (no NAME)" ;;
	esac
	expect "$cmd: $what" "$want" probectl "$cmd" ''
done <<< "$table"
expect "show NAME: no second NAME" "" probectl show do_fork ''
expect "watch: -i's argument is not NAME" "" probectl watch -i ''
expect "watch -i 1: then NAME" "$names" probectl watch -i 1 ''
expect "watch --hist takes no argument: then NAME" "$names" probectl watch --hist ''
expect "load --module: files" "adir afile.ko" probectl load --module ''
expect "flamegraph -i: files" "adir/sub adir/x.folded" probectl flamegraph -i adir/
expect "flamegraph --output: files" "afile.ko" probectl flamegraph --output af
expect "attach --uprobe: files" "adir afile.ko" probectl attach --uprobe ''
expect "export --textfile-dir: directories" "adir/sub" probectl export --textfile-dir adir/
# Every option whose argument args.c's synopsis calls FILE, PATH or
# PATH:SYMBOL completes files; DIR, directories.
while read -r cmd opts synopsis; do
	for o in $(grep -oE -- '--[a-z-]+ (FILE|PATH|PATH:SYMBOL|DIR)\b' <<< "$synopsis" | tr ' ' '='); do
		case ${o#*=} in
		DIR) want=adir ;;
		*) want="adir afile.ko" ;;
		esac
		expect "$cmd ${o%%=*} ${o#*=}: ${want/ */ and a file}" "$want" probectl "$cmd" "${o%%=*}" a
	done
done <<< "$table"
expect "--hist SPEC: the kinds" "loglinear log2 linear: exp exp:3 exp:4" probectl attach --hist ''
expect "show --sort BY: what --keys sorts by" "count p99 sum" probectl show x --keys --sort ''
expect "--kprobe FUNC: nothing offered" "" probectl attach --kprobe ''
expect "after --: nothing" "" probectl show -- ''
echo "1..$tap_n"
exit $failed
