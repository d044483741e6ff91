# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=sh
#
# TAP for the host test drivers (tests/*/run.sh, tests/deb/completion.sh):
# sourced, not run.
#
# tap STATUS DESCRIPTION [LOG]: one TAP line, "ok" when STATUS is 0.  A
# failure sets failed=1 and shows LOG through tap_log (its first 30 lines,
# each as a "# " comment; a driver may define its own tap_log after
# sourcing this).  TAP_PREFIX goes before every description; with
# TAP_NUMBERS set, each line carries its number ("ok 3 - ..."), and
# tap_n counts the lines for the plan ("1..$tap_n").
failed=0
tap_n=0

tap_log() {
	sed 's/^/# /' "$1" | head -30
}

tap() {
	tap_n=$((tap_n + 1))
	if [ "$1" = 0 ]; then
		echo "ok ${TAP_NUMBERS:+$tap_n }- ${TAP_PREFIX-}$2"
	else
		echo "not ok ${TAP_NUMBERS:+$tap_n }- ${TAP_PREFIX-}$2"
		# shellcheck disable=SC2034 # the drivers exit with it
		failed=1
		[ -z "${3:-}" ] || tap_log "$3"
	fi
}
