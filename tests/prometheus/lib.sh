# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# What the Prometheus tests (run.sh, fleet.sh) share, sourced after they
# set TAP_PREFIX and pids (the daemons they start, killed at exit).
# shellcheck source=../lib/tap.sh
. "$(dirname "${BASH_SOURCE[0]}")/../lib/tap.sh"

# tap's LOG: its last 20 lines, as comments.
tap_log() {
	sed 's/^/# /' "$1" | tail -20
}

cleanup() {
	# shellcheck disable=SC2086 # a list of pids
	[ -z "$pids" ] || kill $pids 2> /dev/null
	wait 2> /dev/null
}
trap cleanup EXIT

# A loopback port nothing listens on (a connection to it is refused),
# none of the ports given.
free_port() {
	local p
	while :; do
		p=$((20000 + RANDOM % 40000))
		case " $* " in *" $p "*) continue ;; esac
		(exec 3<> "/dev/tcp/127.0.0.1/$p") 2> /dev/null || break
	done
	echo "$p"
}
