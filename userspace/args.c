// SPDX-License-Identifier: GPL-2.0
/*
 * probectl's command line.  Every argument is untrusted: numbers are
 * decimal digits only (no sign, no blanks, no trailing junk, no overflow),
 * names are checked for length and characters, and anything unknown is a
 * usage error (exit 2).  Histogram specs are validated by the engine's own
 * pcore_layout_init(), the function the kernel uses, so probectl refuses
 * exactly what probe_core would refuse and says why.
 */
#include <errno.h>
#include <stdarg.h>
#include <string.h>
#include "args.h"
#include "elfsym.h"
#include "flame.h"
#include "pcore_spec.h"

/* parse_opt() keeps the options seen as bits of an unsigned long long */
_Static_assert(NR_OPTS <= 64, "too many options for the seen mask");

static const struct pc_opt load_opts[] = {
	PC_OPT_VALUE(0, "target", "F1,F2", OPT_TARGET,
		"functions to count and time (target=)"),
	PC_OPT_VALUE(0, "tracepoints", "TP", OPT_TRACEPOINTS,
		"tracepoints with built-in handlers (tracepoints=)"),
	PC_OPT_VALUE(0, "hist", "SPEC", OPT_HIST_SPEC,
		"loglinear[:P], log2, linear:MIN,MAX,STEP or exp[:S]\n"
		"(hist=)"),
	PC_OPT_VALUE(0, "maxactive", "N", OPT_MAXACTIVE,
		"calls of one target in flight, 0 to 4096 (maxactive=)"),
	PC_OPT_VALUE(0, "mechanism", "M", OPT_MECHANISM,
		"kprobe, direct or auto: how kernel functions are\n"
		"probed (mechanism=)"),
	PC_OPT_VALUE(0, "module", "PATH", OPT_MODULE,
		"a probe_core.ko file instead of the installed one"),
	PC_OPT_END
};

static const struct pc_opt list_opts[] = {
	PC_OPT_FLAG(0, "json", OPT_JSON,
		"one JSON array of objects"),
	PC_OPT_END
};

static const struct pc_opt show_opts[] = {
	PC_OPT_FLAG(0, "percpu", OPT_PERCPU,
		"add one section per CPU"),
	PC_OPT_FLAG(0, "full", OPT_FULL,
		"text: every bucket a row (as hist_full)"),
	PC_OPT_FLAG(0, "json", OPT_JSON,
		"one JSON object (every non-empty bucket)"),
	PC_OPT_FLAG(0, "csv", OPT_CSV,
		"comma-separated rows with a header"),
	PC_OPT_FLAG(0, "folded", OPT_FOLDED,
		"stacks: one line each, root first, as flame\n"
		"graph tools read them: 'f1;f2;f3 WEIGHT' (the\n"
		"count, or the sum of a histogram of times)"),
	PC_OPT_VALUE(0, "top", "N", OPT_TOP,
		"stacks: only the N most counted; --keys: the\n"
		"first N keys"),
	PC_OPT_FLAG(0, "keys", OPT_KEYS,
		"a keyed histogram (--by-pid...): one line per\n"
		"key: key, label, count, sum, p50, p99, max"),
	PC_OPT_VALUE(0, "sort", "BY", OPT_SORT,
		"--keys: count (default), p99 or sum, largest\n"
		"first"),
	PC_OPT_END
};

static const struct pc_opt watch_opts[] = {
	PC_OPT_VALUE('i', "interval", "S", OPT_INTERVAL,
		"seconds between lines, e.g. 1 or 0.25 (at most 86400)"),
	PC_OPT_VALUE('n', "count", "N", OPT_COUNT,
		"stop after N lines (default: never)"),
	PC_OPT_FLAG(0, "hist", OPT_HIST_FLAG,
		"print the interval's histogram after each line"),
	PC_OPT_FLAG(0, "json", OPT_JSON,
		"one JSON object per line"),
	PC_OPT_END
};

static const struct pc_opt attach_opts[] = {
	PC_OPT_VALUE(0, "kprobe", "FUNC", OPT_KPROBE,
		"at the entry of FUNC, with --arg, --count or --stacks"),
	PC_OPT_VALUE(0, "arg", "N", OPT_ARG,
		"record argument N (1 to 6), like target=FUNC:argN"),
	PC_OPT_FLAG(0, "count", OPT_CALLS,
		"only count the calls, like target=FUNC:count"),
	PC_OPT_FLAG(0, "stacks", OPT_STACKS,
		"count the calls by kernel stack, like stacks=FUNC;\n"
		"--uprobe: by user stack and process"),
	PC_OPT_VALUE(0, "depth", "N", OPT_DEPTH,
		"--stacks: frames kept, 1 to 127 (default 32)"),
	PC_OPT_FLAG(0, "graph", OPT_GRAPH,
		"--kretprobe: where FUNC's time goes: each function\n"
		"it calls, and its self time, like\n"
		"target=FUNC:graph; --graph=GLOB: also the\n"
		"functions of GLOB it calls indirectly"),
	PC_OPT_VALUE(0, "kretprobe", "FUNC", OPT_KRETPROBE,
		"time each call of FUNC, like target=; a glob\n"
		"(vfs_*) takes every function it matches"),
	PC_OPT_FLAG(0, "retval", OPT_RETVAL,
		"record the return value instead, errors apart by\n"
		"errno, like target=FUNC:retval"),
	PC_OPT_VALUE(0, "uprobe", "PATH:SYMBOL", OPT_UPROBE,
		"at the entry of a function in a program or\n"
		"library, with --arg or --count"),
	PC_OPT_VALUE(0, "uretprobe", "PATH:SYMBOL", OPT_URETPROBE,
		"time each call of a function in a program or\n"
		"library; with --retval, its return value"),
	PC_OPT_VALUE(0, "name", "NAME", OPT_NAME,
		"the name before the suffix, instead of FUNC's,\n"
		"SYMBOL's or TP's, of A-Z a-z 0-9 _ . -: two\n"
		"probes of one function (--pid) apart"),
	PC_OPT_VALUE(0, "tracepoint", "TP", OPT_TRACEPOINT,
		"a tracepoint with a built-in handler, like tracepoints="),
	PC_OPT_FLAG(0, "offcpu", OPT_OFFCPU,
		"off-CPU time by the stack tasks waited in\n"
		"(--tracepoint offcpu)"),
	PC_OPT_VALUE(0, "unit", "UNIT", OPT_UNIT,
		"--arg, --retval: the unit shown (default: value)"),
	PC_OPT_VALUE(0, "hist", "SPEC", OPT_HIST_SPEC,
		"loglinear[:P], log2, linear:MIN,MAX,STEP or exp[:S]"),
	PC_OPT_VALUE(0, "maxactive", "N", OPT_MAXACTIVE,
		"kretprobe, uretprobe: calls in flight, 0 to 4096\n"
		"(0: default)"),
	PC_OPT_VALUE(0, "pid", "PID", OPT_PID,
		"only the calls of this process's threads"),
	PC_OPT_VALUE(0, "comm", "COMM", OPT_COMM,
		"only the calls of tasks of this name (comm)"),
	PC_OPT_FLAG(0, "by-pid", OPT_BY_PID,
		"one histogram per process, keyed by pid and\n"
		"labelled with its name (not with --retval;\n"
		"with --tracepoint, runqlat only)"),
	PC_OPT_FLAG(0, "by-cgroup", OPT_BY_CGROUP,
		"one histogram per cgroup v2, keyed by its id\n"
		"and labelled with its path (as --by-pid,\n"
		"not with it)"),
	PC_OPT_FLAG(0, "user-stacks", OPT_USER_STACKS,
		"--stacks, --offcpu: the user stack (frame\n"
		"pointers) and the process too (:stacks:ustack)"),
	PC_OPT_FLAG(0, "no-kthreads", OPT_NO_KTHREADS,
		"--offcpu: leave kernel threads out"),
	PC_OPT_VALUE(0, "mechanism", "M", OPT_MECHANISM,
		"--kprobe, --kretprobe: kprobe, direct (an ftrace\n"
		"direct call, or an error) or auto (direct where\n"
		"it can go); default: as probe_core's mechanism="),
	PC_OPT_END
};

static const struct pc_opt export_opts[] = {
	PC_OPT_FLAG(0, "prometheus", OPT_PROMETHEUS,
		"Prometheus' text format (this or --remote-write)"),
	PC_OPT_VALUE(0, "textfile-dir", "DIR", OPT_TEXTFILE_DIR,
		"replace DIR/probe_core.prom atomically, for\n"
		"node_exporter's textfile collector; on an\n"
		"error the old file stays as it was"),
	PC_OPT_FLAG(0, "per-cpu", OPT_PER_CPU,
		"one series per CPU (and key), with a cpu\n"
		"label, since the last interval read or reset"),
	PC_OPT_VALUE(0, "remote-write", "URL", OPT_REMOTE_WRITE,
		"push every histogram as a Prometheus native\n"
		"histogram to URL (http:// or https://), with\n"
		"one remote write request"),
	PC_OPT_VALUE(0, "instance", "NAME", OPT_INSTANCE,
		"--remote-write: the instance label (default:\n"
		"the host's name)"),
	PC_OPT_VALUE(0, "job", "NAME", OPT_JOB,
		"--remote-write: the job label (default:\n"
		"probe_core)"),
	PC_OPT_END
};

static const struct pc_opt profile_opts[] = {
	PC_OPT_VALUE('F', "frequency", "HZ", OPT_FREQ,
		"samples per second on each CPU, 1 to 4000"),
	PC_OPT_VALUE('d', "duration", "S", OPT_DURATION,
		"sample for S seconds, print, detach"),
	PC_OPT_FLAG(0, "folded", OPT_FOLDED,
		"with -d: one folded line per stack (flame graphs)"),
	PC_OPT_FLAG(0, "json", OPT_JSON,
		"with -d: one JSON object"),
	PC_OPT_VALUE(0, "top", "N", OPT_TOP,
		"with -d: only the N most counted stacks"),
	PC_OPT_VALUE(0, "name", "NAME", OPT_NAME,
		"the histogram's name (default: profile)"),
	PC_OPT_VALUE(0, "depth", "N", OPT_DEPTH,
		"frames kept of each stack, 1 to 127 (default 32)"),
	PC_OPT_VALUE(0, "pid", "PID", OPT_PID,
		"only the samples of this process's threads"),
	PC_OPT_VALUE(0, "comm", "COMM", OPT_COMM,
		"only the samples of tasks of this name"),
	PC_OPT_FLAG(0, "user-stacks", OPT_USER_STACKS,
		"the user stack (frame pointers) and the process\n"
		"too; then --depth is at most 93"),
	PC_OPT_FLAG(0, "no-kthreads", OPT_NO_KTHREADS,
		"leave kernel threads (idle too) out"),
	PC_OPT_END
};

static const struct pc_opt flamegraph_opts[] = {
	PC_OPT_VALUE('i', "input", "FILE", OPT_INPUT,
		"the folded stacks, - for standard input"),
	PC_OPT_VALUE('o', "output", "FILE", OPT_OUTPUT,
		"the SVG file (default: standard output)"),
	PC_OPT_VALUE(0, "title", "TITLE", OPT_TITLE,
		"the heading, at most 200 bytes (default: the\n"
		"histogram's NAME; Flame Graph with -i)"),
	PC_OPT_VALUE(0, "width", "PX", OPT_WIDTH,
		"the width, 200 to 65536 (default: 1200)"),
	PC_OPT_END
};

static const struct pc_opt heatmap_opts[] = {
	PC_OPT_VALUE('i', "interval", "S", OPT_INTERVAL,
		"seconds per column, e.g. 1 or 0.25 (default 1)"),
	PC_OPT_VALUE('n', "count", "N", OPT_COUNT,
		"stop after N intervals (default: never)"),
	PC_OPT_VALUE('d', "duration", "S", OPT_DURATION,
		"stop after S seconds (S / interval intervals,\n"
		"rounded up)"),
	PC_OPT_VALUE(0, "svg", "FILE", OPT_SVG,
		"also draw it as an SVG picture, rewritten\n"
		"whole after every interval: hover a cell for\n"
		"its bounds, interval and count"),
	PC_OPT_VALUE(0, "title", "TITLE", OPT_TITLE,
		"the SVG's heading, at most 200 bytes"),
	PC_OPT_FLAG(0, "full", OPT_FULL,
		"every bucket a row"),
	PC_OPT_FLAG(0, "color", OPT_COLOR,
		"256-colour cells, also off a terminal"),
	PC_OPT_FLAG(0, "no-color", OPT_NO_COLOR,
		"characters, also on a terminal (also: NO_COLOR\n"
		"in the environment)"),
	PC_OPT_END
};

static const struct pc_opt no_opts[] = {
	PC_OPT_END
};

/**
 * struct pc_cmd_info - a command: its options and its help
 * @name: what the command line calls it
 * @opts: its options (PC_OPT_END ends them), in the order its help lists
 *	them
 * @needs_name: NAME is required
 * @takes_name: NAME is optional
 * @synopsis: the usage line, after "probectl "
 * @about: what the command does: the help before the options
 * @examples: the help after the options, or NULL
 *
 * pc_usage() writes the help: @about, the options from @opts, @examples.
 */
struct pc_cmd_info {
	const char *name;
	const struct pc_opt *opts;
	bool needs_name;
	bool takes_name;
	const char *synopsis;
	const char *about;
	const char *examples;
};

static const struct pc_cmd_info cmds[PC_NR_CMDS] = {
	[PC_CMD_LOAD] = {
		.name = "load",
		.opts = load_opts,
		.synopsis = "load [--target F1,F2] [--tracepoints TP] [--hist SPEC] [--maxactive N] [--mechanism M] [--module PATH]",
		.about =
			"Loads probe_core: the installed module (modprobe's search), or the\n"
			"file PATH from a build tree.  The options become its parameters.\n",
		.examples =
			"Examples:\n"
			"  probectl load --target do_fork,vfs_read\n"
			"  probectl load --tracepoints sched_switch --hist log2\n"
			"  probectl load --module build/$(uname -r)/modules/core/probe_core.ko --target do_fork\n",
	},
	[PC_CMD_UNLOAD] = {
		.name = "unload",
		.opts = no_opts,
		.synopsis = "unload",
		.about =
			"Unloads probe_core.  Fails while handler modules use it or files\n"
			"are open under /sys/kernel/debug/probe_core or /dev/probe_core.\n",
		.examples =
			"Example:\n"
			"  probectl unload\n",
	},
	[PC_CMD_STATUS] = {
		.name = "status",
		.opts = no_opts,
		.synopsis = "status",
		.about =
			"Prints whether probe_core is loaded, its version and ABI, the\n"
			"running kernel, and its numbers of histograms and probes, as\n"
			"'key: value' lines.  Exits 1 when probe_core is not loaded.\n",
		.examples =
			"Example:\n"
			"  probectl status\n",
	},
	[PC_CMD_LIST] = {
		.name = "list",
		.opts = list_opts,
		.synopsis = "list [--json]",
		.about =
			"Prints one line per histogram: name, probe kind, symbol, hits,\n"
			"missed, count, flags (own, disabled, waiting, gone) and probe,\n"
			"'-' for none.  The probe is the name detach, enable and disable\n"
			"take: a glob's ('vfs_*') on each of its functions' histograms.\n",
		.examples =
			"Examples:\n"
			"  probectl list\n"
			"  probectl list --json | jq -r '.[].name'\n",
	},
	[PC_CMD_SHOW] = {
		.name = "show",
		.opts = show_opts,
		.needs_name = true,
		.synopsis = "show NAME [--percpu] [--full] [--json | --csv | --folded] [--top N] [--keys [--sort BY]]",
		.about =
			"Prints a histogram: its stats, percentiles with their error bound,\n"
			"missed events and buckets; for a keyed histogram each key too.\n"
			"Adjacent buckets are merged into at most 40 rows, as the debugfs\n"
			"hist file prints them; --full prints every bucket.  A\n"
			"histogram keyed by stack (attach --stacks, stacks=, profile,\n"
			"offcpu) prints its stacks instead, the most counted (or of times,\n"
			"the largest sum) first, each with its frames innermost first.\n"
			"--keys prints a keyed histogram (attach --by-pid, a handler's\n"
			"keys) one line per key, after a header line: the key, its label,\n"
			"count, sum, p50, p99 and max, sorted by --sort, largest first.\n",
		.examples =
			"Examples:\n"
			"  probectl show do_fork\n"
			"  probectl show vfs_read:by=pid --keys --top 10 --sort p99\n"
			"  probectl show thardirq/irq_time --percpu\n"
			"  probectl show do_fork --json | jq .total.p99\n"
			"  probectl show vfs_read:stacks --top 5\n"
			"  probectl show vfs_read:stacks --folded > vfs_read.folded\n",
	},
	[PC_CMD_WATCH] = {
		.name = "watch",
		.opts = watch_opts,
		.needs_name = true,
		.synopsis = "watch NAME -i SECONDS [-n COUNT] [--hist] [--json]",
		.about =
			"Every SECONDS, moves the histogram's values out (an atomic\n"
			"snapshot-and-reset: no event is lost or counted twice) and prints\n"
			"one line: time, count, mean, p50, p90, p99, max and missed.\n"
			"Starting resets the histogram.\n",
		.examples =
			"Examples:\n"
			"  probectl watch do_fork -i 1\n"
			"  probectl watch do_fork -i 0.5 -n 10 --json\n",
	},
	[PC_CMD_ATTACH] = {
		.name = "attach",
		.opts = attach_opts,
		.synopsis = "attach (--kprobe FUNC (--arg N | --count | --stacks [--depth N]) | --kretprobe FUNC [--retval | --graph[=GLOB]] | --uprobe PATH:SYMBOL (--arg N | --count | --stacks) | --uretprobe PATH:SYMBOL [--retval] | --tracepoint TP | --offcpu [--no-kthreads]) [--user-stacks] [--name NAME] [--unit UNIT] [--hist SPEC] [--maxactive N] [--pid PID] [--comm COMM] [--by-pid | --by-cgroup] [--mechanism M]",
		.about =
			"Adds a probe of probe_core's own and a histogram of the same name\n"
			"while probe_core is loaded (needs CAP_SYS_ADMIN).  The name is FUNC\n"
			"with target='s suffix: FUNC:argN[:UNIT], FUNC:count, FUNC:stacks,\n"
			"FUNC:retval[:UNIT].\n"
			"\n"
			"--kretprobe FUNC --graph: one histogram FUNC:graph keyed by callee:\n"
			"FUNC's calls, each function FUNC calls directly (found in its code)\n"
			"timed in the calls it returns into FUNC, and FUNC's self time; with\n"
			"--graph=GLOB also the functions of GLOB (f_op->read_iter's). show\n"
			"prints it as a tree.\n"
			"\n"
			"--uprobe and --uretprobe probe a function of a program or shared\n"
			"library: SYMBOL in the 64-bit ELF file PATH (split at the last ':'),\n"
			"as NAME, NAME@VERSION, NAME@@VERSION (the default version) or a file\n"
			"offset 0xHEX.  Their name is NAME without its version (characters\n"
			"other than A-Z a-z 0-9 _ . - made _), or for an offset PATH's last\n"
			"part, _ and the offset (libc.so.6_0x98930), with the same suffixes.\n"
			"\n"
			"--name NAME replaces FUNC, SYMBOL or TP in the name (the suffixes\n"
			"stay): one function may have a probe per process (--pid), each\n"
			"named apart, beside a --by-pid one.\n",
		.examples =
			"Examples:\n"
			"  probectl attach --kretprobe vfs_read --hist log2\n"
			"  probectl attach --kprobe tcp_sendmsg --arg 3 --unit bytes\n"
			"  probectl attach --kprobe do_fork --count\n"
			"  probectl attach --kprobe vfs_read --stacks --depth 16\n"
			"  probectl attach --kretprobe 'vfs_*'\n"
			"  probectl attach --kretprobe vfs_read --retval --unit bytes\n"
			"  probectl attach --kretprobe vfs_read --graph='*_read_iter'\n"
			"  probectl attach --tracepoint sched_switch\n"
			"  probectl attach --offcpu\n"
			"  probectl attach --tracepoint runqlat --by-pid\n"
			"  probectl attach --tracepoint runqlat --by-cgroup\n"
			"  probectl attach --offcpu --user-stacks --comm nginx\n"
			"  probectl attach --uprobe /lib/x86_64-linux-gnu/libc.so.6:malloc --arg 1\n"
			"  probectl attach --uretprobe /lib/x86_64-linux-gnu/libc.so.6:getaddrinfo\n"
			"  probectl attach --uprobe ./a.out:0x1139 --count --name a_loop\n"
			"  probectl attach --kretprobe vfs_read --pid 1234 --name nginx_read\n"
			"  probectl attach --kretprobe vfs_read --by-pid\n",
	},
	[PC_CMD_DETACH] = {
		.name = "detach",
		.opts = no_opts,
		.needs_name = true,
		.synopsis = "detach NAME",
		.about =
			"Removes a probe of probe_core's own and its histograms, by the\n"
			"name in list's probe column.  A glob as attached ('vfs_*') takes\n"
			"the probe of that name, else its counting one ('vfs_*:count').\n",
		.examples =
			"Examples:\n"
			"  probectl detach vfs_read\n"
			"  probectl detach 'vfs_*'\n",
	},
	[PC_CMD_RESET] = {
		.name = "reset",
		.opts = no_opts,
		.needs_name = true,
		.synopsis = "reset NAME",
		.about =
			"Empties a histogram (hits are kept).\n",
		.examples =
			"Example:\n"
			"  probectl reset do_fork\n",
	},
	[PC_CMD_ENABLE] = {
		.name = "enable",
		.opts = no_opts,
		.needs_name = true,
		.synopsis = "enable NAME",
		.about =
			"Enables a disabled probe of probe_core's own.\n",
		.examples =
			"Example:\n"
			"  probectl enable do_fork\n",
	},
	[PC_CMD_DISABLE] = {
		.name = "disable",
		.opts = no_opts,
		.needs_name = true,
		.synopsis = "disable NAME",
		.about =
			"Disables a probe of probe_core's own; its histogram stays.\n",
		.examples =
			"Example:\n"
			"  probectl disable do_fork\n",
	},
	[PC_CMD_EXPORT] = {
		.name = "export",
		.opts = export_opts,
		.synopsis = "export --prometheus [--textfile-dir DIR] [--per-cpu] | export --remote-write URL [--instance NAME] [--job NAME]",
		.about =
			"Prints every histogram in Prometheus' text format: cumulative\n"
			"'le' buckets (at powers of two for loglinear histograms), _sum and\n"
			"_count of every value since the histogram was created (interval\n"
			"reads and resets do not lower them), the counters\n"
			"probe_core_probe_hits_total and probe_core_probe_missed_total, and\n"
			"the gauge probe_core_created_timestamp_seconds.\n"
			"With --remote-write, pushes the same, each histogram as a native\n"
			"histogram, in one Prometheus remote write request (protobuf, snappy);\n"
			"an HTTP error or a failed connection is one line and exit status 1.\n",
		.examples =
			"Examples:\n"
			"  probectl export --prometheus\n"
			"  probectl export --prometheus --textfile-dir /var/lib/prometheus/node-exporter\n"
			"  probectl export --remote-write http://prometheus:9090/api/v1/write\n",
	},
	[PC_CMD_PROFILE] = {
		.name = "profile",
		.opts = profile_opts,
		.synopsis = "profile -F HZ [-d SECONDS [--folded | --json] [--top N]] [--name NAME] [--depth N] [--pid PID] [--comm COMM] [--user-stacks] [--no-kthreads]",
		.about =
			"Samples what every CPU runs, HZ times a second, and counts the\n"
			"samples by kernel stack ('[user] COMM' for a task in user space,\n"
			"'[idle]' for an idle CPU) in a histogram of probe_core's own\n"
			"(needs CAP_SYS_ADMIN).  Without -d the profiler stays, until\n"
			"probectl detach NAME: read it with probectl show NAME.  With -d it\n"
			"samples for SECONDS, stops, prints the stacks as show does, and\n"
			"goes.  --user-stacks keeps each sample's user stack (walked by frame\n"
			"pointers) and its process too: two programs never share a stack.\n",
		.examples =
			"Examples:\n"
			"  probectl profile -F 99 -d 10 --top 10\n"
			"  probectl profile -F 99 -d 30 --folded > cpu.folded\n"
			"  probectl profile -F 999 --name busy; probectl show busy --folded\n"
			"  probectl profile -F 99 -d 10 --user-stacks --pid 1234\n",
	},
	[PC_CMD_FLAMEGRAPH] = {
		.name = "flamegraph",
		.opts = flamegraph_opts,
		.takes_name = true,
		.synopsis = "flamegraph (NAME | -i FILE) [-o FILE] [--title TITLE] [--width PX]",
		.about =
			"Draws stacks as a flame graph: one SVG file that needs nothing\n"
			"else (no network, no fonts), to open in a browser.  NAME is a\n"
			"histogram keyed by stack (attach --stacks, profile, offcpu), its\n"
			"stacks weighed as show --folded weighs them.  FILE holds a line\n"
			"'frame;frame;... COUNT' per stack, root first (the format of\n"
			"flamegraph.pl and speedscope).  Identical stacks are\n"
			"merged; a frame's width is its share of the samples, the root at\n"
			"the bottom, children in name order.  Hover a frame for its name\n"
			"and count, click it to zoom.  A malformed line is refused with its\n"
			"line number; no stacks give a graph that says 'No samples'.\n",
		.examples =
			"Examples:\n"
			"  probectl flamegraph profile -o cpu.svg\n"
			"  probectl flamegraph -i stacks.folded -o stacks.svg\n"
			"  probectl flamegraph -i - --title 'vfs_read' < stacks.folded > stacks.svg\n",
	},
	[PC_CMD_HEATMAP] = {
		.name = "heatmap",
		.opts = heatmap_opts,
		.needs_name = true,
		.synopsis = "heatmap NAME [-i SECONDS] [-n COUNT | -d SECONDS] [--svg FILE] [--title TITLE] [--full] [--color | --no-color]",
		.about =
			"Draws a histogram over time, as a latency heatmap: every SECONDS,\n"
			"moves its values out (a snapshot-and-reset, as watch does: no\n"
			"value is lost or counted twice) into a new column, the newest on\n"
			"the right; one row per bucket, adjacent buckets merged into at\n"
			"most 40 rows as the hist file merges them, the highest values at\n"
			"the top, labelled [lo, hi) on the left; each cell shaded by how\n"
			"many values it holds, from ' ' (none) through . : - = + * # % to @\n"
			"(the most), or in colour.  Starting resets the histogram; the\n"
			"newest 1000 intervals are kept.  On a terminal the picture is\n"
			"redrawn after every interval; otherwise it is printed once, at the\n"
			"end: after COUNT intervals, SECONDS of -d, or SIGINT or SIGTERM\n"
			"(the values of the interval under way then stay in the histogram).\n",
		.examples =
			"Examples:\n"
			"  probectl heatmap vfs_read -i 1\n"
			"  probectl heatmap vfs_read -i 0.5 -d 60 --svg vfs_read.svg\n",
	},
	[PC_CMD_VERSION] = {
		.name = "version",
		.opts = no_opts,
		.synopsis = "version",
		.about = "Prints probectl's ABI version.\n",
	},
};

/*
 * One option's lines of the help: "  -i, --interval S    seconds ...", the
 * help from column 22, on a line of its own when the option is too wide;
 * each further line of the help indented to column 22.
 */
/**
 * pc_cmd_name() - a command's name
 * @cmd: PC_CMD_LOAD to PC_CMD_VERSION
 *
 * Return: what the command line calls it.
 */
const char *pc_cmd_name(enum pc_cmd cmd)
{
	return cmds[cmd].name;
}

/**
 * pc_cmd_opts() - a command's options
 * @cmd: PC_CMD_LOAD to PC_CMD_VERSION
 *
 * Return: its table, ended by an entry whose @lng is NULL.
 */
const struct pc_opt *pc_cmd_opts(enum pc_cmd cmd)
{
	return cmds[cmd].opts;
}

static void usage_opt(FILE *f, const struct pc_opt *o)
{
	char left[64];
	const char *h, *nl;
	int n = 0;

	if (o->shrt)
		n = snprintf(left, sizeof(left), "-%c, ", o->shrt);
	snprintf(left + n, sizeof(left) - n, "--%s%s%s", o->lng,
		 o->argh ? " " : "", o->argh ? o->argh : "");
	fprintf(f, "  %s", left);
	if (strlen(left) > PC_HELP_COL - 4)
		fprintf(f, "\n%*s", PC_HELP_COL, "");
	else
		fprintf(f, "%*s", (int)(PC_HELP_COL - 2 - strlen(left)), "");
	for (h = o->help; (nl = strchr(h, '\n')); h = nl + 1)
		fprintf(f, "%.*s\n%*s", (int)(nl - h), h, PC_HELP_COL, "");
	fprintf(f, "%s\n", h);
}

/**
 * pc_usage() - usage text
 * @f: where to
 * @cmd: a command, or PC_CMD_NONE for the global usage
 * @full: with the description and examples (--help), else the synopsis
 */
void pc_usage(FILE *f, enum pc_cmd cmd, bool full)
{
	const struct pc_opt *o;
	int i;

	if (cmd != PC_CMD_NONE) {
		fprintf(f, "usage: probectl %s\n", cmds[cmd].synopsis);
		if (!full) {
			fprintf(f, "Try 'probectl %s --help'.\n", cmds[cmd].name);
			return;
		}
		fprintf(f, "\n%s", cmds[cmd].about);
		if (cmds[cmd].opts->lng)
			fputc('\n', f);
		for (o = cmds[cmd].opts; o->lng; o++)
			usage_opt(f, o);
		if (cmds[cmd].examples)
			fprintf(f, "\n%s", cmds[cmd].examples);
		return;
	}
	fprintf(f, "usage: probectl COMMAND [OPTIONS]\n");
	if (!full) {
		fprintf(f, "Try 'probectl --help'.\n");
		return;
	}
	fprintf(f,
		"\nControls probe_core and reads its histograms through %s.\n\nCommands:\n",
		PCORE_DEVICE);
	for (i = PC_CMD_LOAD; i < PC_CMD_VERSION; i++)
		fprintf(f, "  %s\n", cmds[i].synopsis);
	fprintf(f,
		"\n"
		"'probectl COMMAND --help' (or 'probectl help COMMAND') describes a\n"
		"command.  Exit status: 0 success, 1 error, 2 usage error.\n"
		"\n"
		"Examples:\n"
		"  probectl load --target do_fork\n"
		"  probectl list\n"
		"  probectl show do_fork\n"
		"  probectl watch do_fork -i 1 -n 5\n"
		"  probectl export --prometheus\n"
		"  probectl flamegraph -i stacks.folded -o stacks.svg\n"
		"  probectl heatmap vfs_read -i 1 --svg vfs_read.svg\n"
		"  probectl unload\n");
}

/* The reason for a usage error, into a->err; evaluates to PC_EXIT_USAGE. */
/* Whether @v has a blank, a control character or DEL. */
static bool has_ctl_or_blank(const char *v)
{
	for (; *v; v++)
		if ((unsigned char)*v <= ' ' || *v == 0x7f)
			return true;
	return false;
}

static __printf(2, 3) int fail(struct pc_args *a, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(a->err, sizeof(a->err), fmt, ap);
	va_end(ap);
	return PC_EXIT_USAGE;
}

/**
 * pc_parse_u64() - a decimal number, strictly
 * @s: digits only: no sign, blank, prefix or trailing character
 * @max: largest value accepted
 * @v: the value
 *
 * Return: 0, -EINVAL when @s is not a decimal number, -ERANGE when it is
 * above @max (or above 2^64 - 1).
 */
int pc_parse_u64(const char *s, unsigned long long max,
		 unsigned long long *v)
{
	unsigned long long n = 0;
	unsigned int d;

	if (!*s)
		return -EINVAL;
	for (; *s; s++) {
		if (*s < '0' || *s > '9')
			return -EINVAL;
		d = *s - '0';
		if (n > (~0ULL - d) / 10)
			return -ERANGE;
		n = n * 10 + d;
	}
	if (n > max)
		return -ERANGE;
	*v = n;
	return 0;
}

/**
 * pc_parse_seconds() - an interval: digits, optionally '.' and 1 to 9 more
 * @s: e.g. "1", "0.25"
 * @ns: the interval in ns
 *
 * Return: 0; -EINVAL when @s is not such a number or is zero; -ERANGE
 * above PC_INTERVAL_MAX_S.
 */
int pc_parse_seconds(const char *s, unsigned long long *ns)
{
	char whole[24], frac[10] = "000000000";
	const char *dot = strchr(s, '.');
	unsigned long long w, f;
	size_t n = dot ? (size_t)(dot - s) : strlen(s);
	int ret;

	if (!n || n >= sizeof(whole))
		return n ? -ERANGE : -EINVAL;
	memcpy(whole, s, n);
	whole[n] = '\0';
	ret = pc_parse_u64(whole, PC_INTERVAL_MAX_S, &w);
	if (ret)
		return ret;
	f = 0;
	if (dot) {
		n = strlen(dot + 1);
		if (!n || n > 9)
			return -EINVAL;
		memcpy(frac, dot + 1, n);
		ret = pc_parse_u64(frac, 999999999, &f);
		if (ret)
			return -EINVAL;
	}
	if (!w && !f)
		return -EINVAL;
	if (w == PC_INTERVAL_MAX_S && f)
		return -ERANGE;
	*ns = w * 1000000000ULL + f;
	return 0;
}

/* "A,B,C" into three numbers */
/**
 * pc_parse_hist() - a histogram spec, as hist= takes it
 * @s: loglinear, loglinear:P, log2, linear:MIN,MAX,STEP, exp or exp:S
 * @h: filled in
 * @why: set to the reason when refused
 *
 * The kernel's own parser (pcore_hist_spec_parse(), compiled from
 * modules/core/pcore_engine.c) reads it: probectl takes and refuses what
 * hist= takes and refuses, with the same reasons.
 *
 * Return: 0 or -EINVAL.
 */
int pc_parse_hist(const char *s, struct pc_hist_arg *h, const char **why)
{
	static const unsigned int uapi_kind[] = {
		[PCORE_HIST_LOG2] = PCORE_UAPI_HIST_LOG2,
		[PCORE_HIST_LINEAR] = PCORE_UAPI_HIST_LINEAR,
		[PCORE_HIST_LOGLINEAR] = PCORE_UAPI_HIST_LOGLINEAR,
		[PCORE_HIST_EXP] = PCORE_UAPI_HIST_EXP,
	};
	struct pcore_hist_spec spec;

	memset(h, 0, sizeof(*h));
	if (strlen(s) > PC_HIST_SPEC_MAX) {
		*why = "too long";
		return -EINVAL;
	}
	if (pcore_hist_spec_parse(s, &spec, why))
		return -EINVAL;
	h->kind = uapi_kind[spec.kind];
	h->precision = spec.precision;
	h->min = spec.min;
	h->max = spec.max;
	h->step = spec.step;
	h->set = true;
	strcpy(h->text, s);
	return 0;
}

/**
 * pc_check_symbol() - a function or tracepoint name, as target= takes it
 * @s: 1 to PCORE_UAPI_NAME_MAX - 1 characters of [A-Za-z0-9_.:*?=], the
 *	first not ':' (a target's suffix, which pcore_probe_spec_parse()
 *	checks), '=' only after a ':' (":by=pid"); '*' and '?' make a glob
 *	of functions, which probe_core expands
 * @why: set to the reason when refused
 *
 * Return: 0 or -EINVAL.
 */
int pc_check_symbol(const char *s, const char **why)
{
	size_t n = strnlen(s, PCORE_UAPI_NAME_MAX);
	const char *p;

	if (!n) {
		*why = "empty name";
		return -EINVAL;
	}
	if (n >= PCORE_UAPI_NAME_MAX) {
		*why = "name longer than 127 characters";
		return -EINVAL;
	}
	for (p = s; *p; p++) {
		if ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
		    (*p >= '0' && *p <= '9') || *p == '_' || *p == '.' ||
		    *p == '*' || *p == '?' || (*p == ':' && p != s) ||
		    (*p == '=' && memchr(s, ':', p - s)))
			continue;
		*why = "characters other than A-Z a-z 0-9 _ . * ? : = (or ':' first, or '=' before a ':')";
		return -EINVAL;
	}
	return 0;
}

/**
 * pc_check_name() - a histogram name: "<name>" or "<module>/<name>"
 * @s: 1 to PCORE_UAPI_NAME_MAX - 1 printable, non-blank ASCII characters
 * @why: set to the reason when refused
 *
 * Return: 0 or -EINVAL.
 */
int pc_check_name(const char *s, const char **why)
{
	size_t n = strnlen(s, PCORE_UAPI_NAME_MAX);
	const unsigned char *p;

	if (!n) {
		*why = "empty name";
		return -EINVAL;
	}
	if (n >= PCORE_UAPI_NAME_MAX) {
		*why = "name longer than 127 characters";
		return -EINVAL;
	}
	for (p = (const unsigned char *)s; *p; p++) {
		if (*p <= ' ' || *p >= 0x7f) {
			*why = "blank, control or non-ASCII character";
			return -EINVAL;
		}
	}
	return 0;
}

/* A character of a uprobe's histogram name; '.' and '-' not first. */
static bool uprobe_name_char(char ch, bool first)
{
	return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
	       (ch >= '0' && ch <= '9') || ch == '_' ||
	       ((ch == '.' || ch == '-') && !first);
}

/**
 * pc_check_uprobe_name() - attach --name: a uprobe's histogram name
 * @s: 1 to PCORE_UAPI_NAME_MAX - 1 characters of [A-Za-z0-9_.-], the
 *	first neither '.' nor '-'.  probe_core's names also take ':' (not
 *	first), but it reads what follows the first ':' as the suffix
 *	(":count", ":argN"...), which probectl adds itself.
 * @why: set to the reason when refused
 *
 * Return: 0 or -EINVAL.
 */
int pc_check_uprobe_name(const char *s, const char **why)
{
	size_t n = strnlen(s, PCORE_UAPI_NAME_MAX), i;

	if (!n) {
		*why = "empty name";
		return -EINVAL;
	}
	if (n >= PCORE_UAPI_NAME_MAX) {
		*why = "name longer than 127 characters";
		return -EINVAL;
	}
	for (i = 0; i < n; i++) {
		if (!uprobe_name_char(s[i], !i)) {
			*why = "characters other than A-Z a-z 0-9 _ . - (or '.' or '-' first)";
			return -EINVAL;
		}
	}
	return 0;
}

/*
 * --uprobe or --uretprobe PATH:SYMBOL, split at the last ':' (a PATH may
 * hold ':', a SYMBOL cannot).  SYMBOL's syntax is checked here, the file
 * when the command runs.
 */
static int set_uprobe(struct pc_args *a, const char *v, const char *shown)
{
	const char *colon = strrchr(v, ':'), *why;
	struct pc_elf_sym q;

	if (!colon)
		return fail(a, "%s: '%.60s' is not PATH:SYMBOL", shown, v);
	if (colon == v)
		return fail(a, "%s: no PATH before ':' in '%.60s'", shown, v);
	if (colon - v >= PC_PATH_MAX)
		return fail(a, "%s: PATH longer than 4095 characters", shown);
	if (colon[-1] == '/')
		return fail(a, "%s: PATH ends with '/' in '%.60s': a directory is not a program",
			    shown, v);
	if (!colon[1])
		return fail(a, "%s: no SYMBOL after ':' in '%.60s'", shown, v);
	if (pc_elf_parse_sym(colon + 1, &q, &why))
		return fail(a, "%s: %s", shown, why);
	memcpy(a->attach_path, v, colon - v);
	a->attach_path[colon - v] = '\0';
	a->attach_sym = colon + 1;
	return 0;
}

/*
 * A uprobe's histogram name when --name is not given: SYMBOL's name
 * without its version, or for an offset PATH's last component, '_' and
 * the offset ("libc.so.6_0x98930"); characters a name cannot hold become
 * '_'.  It must leave room for the suffix.
 */
static int uprobe_label(struct pc_args *a, size_t room)
{
	char *l = a->attach_label;
	const char *src = a->attach_sym, *slash, *why;
	struct pc_elf_sym q;
	size_t n, i;

	if (pc_elf_parse_sym(a->attach_sym, &q, &why))
		return fail(a, "SYMBOL: %s", why);	/* checked */
	n = q.name_len;
	if (q.is_offset) {
		slash = strrchr(a->attach_path, '/');
		src = slash ? slash + 1 : a->attach_path;
		n = strlen(src);
	}
	if (n >= room)
		return fail(a, "the name made from '%.60s' is too long with its suffix: give --name NAME",
			    src);
	for (i = 0; i < n; i++)
		l[i] = uprobe_name_char(src[i], !i) ? src[i] : '_';
	l[n] = '\0';
	if (q.is_offset &&
	    snprintf(l + n, room - n, "_0x%llx",
		     (unsigned long long)q.offset) >= (int)(room - n))
		return fail(a, "the name made from '%.60s' is too long with its suffix: give --name NAME",
			    src);
	return 0;
}

/**
 * pc_check_list() - a comma-separated list of symbols for target= or
 *	tracepoints=
 * @s: 1 to PC_MAX_TARGETS names, none empty, no duplicate
 * @why: set to the reason when refused
 *
 * Return: 0 or -EINVAL.
 */
int pc_check_list(const char *s, const char **why)
{
	char buf[PC_MAX_TARGETS * PCORE_UAPI_NAME_MAX], *names[PC_MAX_TARGETS];
	char *p = buf, *comma;
	int n = 0, i;

	if (strlen(s) >= sizeof(buf)) {
		*why = "list too long";
		return -EINVAL;
	}
	strcpy(buf, s);
	for (;;) {
		comma = strchr(p, ',');
		if (comma)
			*comma = '\0';
		if (pc_check_symbol(p, why))
			return -EINVAL;
		if (n == PC_MAX_TARGETS) {
			*why = "more than 64 names";
			return -EINVAL;
		}
		for (i = 0; i < n; i++) {
			if (!strcmp(names[i], p)) {
				*why = "a name is given twice";
				return -EINVAL;
			}
		}
		names[n++] = p;
		if (!comma)
			return 0;
		p = comma + 1;
	}
}

/* Appends " <key>=<val>" (no blank before the first) to buf. */
static int add_param(char *buf, size_t len, size_t *used, const char *key,
		     const char *val)
{
	int n = snprintf(buf + *used, len - *used, "%s%s=%s",
			 *used ? " " : "", key, val);

	if (n < 0 || (size_t)n >= len - *used)
		return -ENOSPC;
	*used += n;
	return 0;
}

/**
 * pc_load_params() - probe_core's module parameters for load
 * @a: parsed load command
 * @buf: where to write "target=... tracepoints=... hist=... maxactive=N
 *	mechanism=M"
 * @len: size of @buf
 *
 * Return: 0, or -ENOSPC when @buf is too small.
 */
int pc_load_params(const struct pc_args *a, char *buf, size_t len)
{
	char num[16];
	size_t used = 0;
	int ret = 0;

	buf[0] = '\0';
	snprintf(num, sizeof(num), "%u", a->maxactive);
	if (a->target)
		ret = add_param(buf, len, &used, "target", a->target);
	if (!ret && a->tracepoints)
		ret = add_param(buf, len, &used, "tracepoints", a->tracepoints);
	if (!ret && a->hist.set)
		ret = add_param(buf, len, &used, "hist", a->hist.text);
	if (!ret && a->maxactive_set)
		ret = add_param(buf, len, &used, "maxactive", num);
	if (!ret && a->mechanism)
		ret = add_param(buf, len, &used, "mechanism", a->mechanism);
	return ret;
}

static const struct pc_opt *find_opt(const struct pc_opt *opts,
				     const char *lng, size_t len, char shrt)
{
	for (; opts->lng; opts++) {
		if (lng && strlen(opts->lng) == len &&
		    !strncmp(opts->lng, lng, len))
			return opts;
		if (!lng && shrt && opts->shrt == shrt)
			return opts;
	}
	return NULL;
}

/* Checks and stores one option's value. */
static int set_opt(struct pc_args *a, const struct pc_opt *o, const char *v,
		   const char *shown)
{
	unsigned long long n;
	const char *why;
	int ret;

	switch (o->id) {
	case OPT_TARGET:
	case OPT_TRACEPOINTS:
		if (pc_check_list(v, &why))
			return fail(a, "%s: %s", shown, why);
		if (o->id == OPT_TARGET)
			a->target = v;
		else
			a->tracepoints = v;
		return 0;
	case OPT_HIST_SPEC:
		if (pc_parse_hist(v, &a->hist, &why))
			return fail(a, "%s: %s", shown, why);
		return 0;
	case OPT_MAXACTIVE:
		ret = pc_parse_u64(v, PC_MAXACTIVE_MAX, &n);
		if (ret)
			return fail(a, ret == -ERANGE ?
				    "%s: '%s' is above 4096" :
				    "%s: '%s' is not a decimal number", shown, v);
		a->maxactive = n;
		a->maxactive_set = true;
		return 0;
	case OPT_MODULE:
		if (!*v || strlen(v) >= 4096)
			return fail(a, "%s: empty or too long path", shown);
		a->module = v;
		return 0;
	case OPT_JSON:
		a->format = PC_FMT_JSON;
		return 0;
	case OPT_CSV:
		a->format = PC_FMT_CSV;
		return 0;
	case OPT_PERCPU:
	case OPT_PER_CPU:
		a->percpu = true;
		return 0;
	case OPT_INTERVAL:
		ret = pc_parse_seconds(v, &a->interval_ns);
		if (ret)
			return fail(a, ret == -ERANGE ?
				    "%s: '%s' is above 86400 seconds" :
				    "%s: '%s' is not a positive number of seconds (e.g. 1 or 0.5)",
				    shown, v);
		return 0;
	case OPT_COUNT:
		ret = pc_parse_u64(v, 0xffffffffULL, &n);
		if (ret || !n)
			return fail(a, ret == -ERANGE ?
				    "%s: '%s' is too large" :
				    "%s: '%s' is not a positive decimal number",
				    shown, v);
		a->count = n;
		return 0;
	case OPT_HIST_FLAG:
		a->watch_hist = true;
		return 0;
	case OPT_FULL:
		a->full = true;
		return 0;
	case OPT_SVG:
		if (!*v || strlen(v) >= PC_PATH_MAX)
			return fail(a, "%s: empty or too long path", shown);
		if (!strcmp(v, "-"))
			return fail(a, "%s: give a file (standard output shows the heatmap as text)",
				    shown);
		a->heat_svg = v;
		return 0;
	case OPT_COLOR:
	case OPT_NO_COLOR:
		if (a->heat_color)
			return fail(a, "give one of --color and --no-color");
		a->heat_color = o->id == OPT_COLOR ? 1 : -1;
		return 0;
	case OPT_OFFCPU:
		/* --offcpu is --tracepoint offcpu, tracepoints=offcpu's handler */
		v = "offcpu";
		/* fall through */
	case OPT_KPROBE:
	case OPT_KRETPROBE:
	case OPT_TRACEPOINT:
	case OPT_UPROBE:
	case OPT_URETPROBE:
		if (a->attach_kind)
			return fail(a, "give one of --kprobe, --kretprobe, --uprobe, --uretprobe and --tracepoint");
		a->attach_entry = o->id == OPT_KPROBE || o->id == OPT_UPROBE;
		if (o->id == OPT_UPROBE || o->id == OPT_URETPROBE) {
			if (set_uprobe(a, v, shown))
				return PC_EXIT_USAGE;
			a->attach_kind = PCORE_ATTACH_UPROBE;
			return 0;
		}
		if (pc_check_symbol(v, &why))
			return fail(a, "%s: %s", shown, why);
		/* Every kernel function probe is attached as target= takes it. */
		a->attach_kind = o->id == OPT_TRACEPOINT || o->id == OPT_OFFCPU ?
			PCORE_ATTACH_TRACEPOINT : PCORE_ATTACH_KRETPROBE;
		a->attach_name = v;
		return 0;
	case OPT_NAME:
		if (pc_check_uprobe_name(v, &why))
			return fail(a, "%s: %s", shown, why);
		a->attach_hist_name = v;
		return 0;
	case OPT_ARG:
		ret = pc_parse_u64(v, PC_ARGS_MAX, &n);
		if (ret || !n)
			return fail(a, "%s: '%s' is not an argument number from 1 to 6",
				    shown, v);
		a->attach_arg = n;
		return 0;
	case OPT_RETVAL:
		a->attach_retval = true;
		return 0;
	case OPT_PID:
		ret = pc_parse_u64(v, INT32_MAX, &n);
		if (ret || !n)
			return fail(a, "%s: '%s' is not a process id", shown, v);
		a->attach_pid = n;
		return 0;
	case OPT_COMM:
		if (!*v || strlen(v) > PC_COMM_MAX)
			return fail(a, "%s: '%s' is not 1 to 15 characters (a task name)",
				    shown, v);
		a->attach_comm = v;
		return 0;
	case OPT_USER_STACKS:
		a->user_stacks = true;
		return 0;
	case OPT_NO_KTHREADS:
		a->no_kthreads = true;
		return 0;
	case OPT_BY_PID:
		a->attach_by_pid = true;
		return 0;
	case OPT_BY_CGROUP:
		a->attach_by_cgroup = true;
		return 0;
	case OPT_MECHANISM:
		if (!strcmp(v, "kprobe"))
			a->attach_mech = PCORE_ATTACH_MECH_KPROBE;
		else if (!strcmp(v, "direct"))
			a->attach_mech = PCORE_ATTACH_MECH_DIRECT;
		else if (!strcmp(v, "auto"))
			a->attach_mech = PCORE_ATTACH_MECH_AUTO;
		else
			return fail(a, "%s: '%s' is not kprobe, direct or auto",
				    shown, v);
		a->mechanism = v;
		return 0;
	case OPT_CALLS:
		a->attach_count = true;
		return 0;
	case OPT_STACKS:
		a->attach_stacks = true;
		return 0;
	case OPT_GRAPH:
		if (v && (!*v || strlen(v) >= PCORE_UAPI_NAME_MAX))
			return fail(a, "%s: the glob is 1 to %d characters",
				    shown, PCORE_UAPI_NAME_MAX - 1);
		a->attach_graph = true;
		a->attach_graph_glob = v;
		return 0;
	case OPT_DEPTH:
		ret = pc_parse_u64(v, PC_DEPTH_MAX, &n);
		if (ret || !n)
			return fail(a, "%s: '%s' is not a number of frames from 1 to 127",
				    shown, v);
		a->attach_depth = n;
		return 0;
	case OPT_FOLDED:
		a->format = PC_FMT_FOLDED;
		return 0;
	case OPT_FREQ:
		ret = pc_parse_u64(v, PC_HZ_MAX, &n);
		if (ret || !n)
			return fail(a, "%s: '%s' is not a number of samples per second from 1 to 4000",
				    shown, v);
		a->hz = n;
		return 0;
	case OPT_DURATION:
		ret = pc_parse_seconds(v, &a->duration_ns);
		if (ret)
			return fail(a, ret == -ERANGE ?
				    "%s: '%s' is above 86400 seconds" :
				    "%s: '%s' is not a positive number of seconds (e.g. 10 or 0.5)",
				    shown, v);
		return 0;
	case OPT_KEYS:
		a->keys = true;
		return 0;
	case OPT_SORT:
		if (!strcmp(v, "count"))
			a->sort = PC_SORT_COUNT;
		else if (!strcmp(v, "p99"))
			a->sort = PC_SORT_P99;
		else if (!strcmp(v, "sum"))
			a->sort = PC_SORT_SUM;
		else
			return fail(a, "%s: '%s' is not count, p99 or sum",
				    shown, v);
		return 0;
	case OPT_TOP:
		ret = pc_parse_u64(v, 1000000, &n);
		if (ret || !n)
			return fail(a, "%s: '%s' is not a number from 1 to 1000000 (of stacks, or with --keys of keys)",
				    shown, v);
		a->top = n;
		return 0;
	case OPT_UNIT:
		for (n = 0; v[n]; n++)
			if ((unsigned char)v[n] <= ' ' || v[n] == 0x7f ||
			    v[n] == ':' || v[n] == ',')
				break;
		if (!n || v[n] || n > PC_UNIT_MAX)
			return fail(a, "%s: a unit is 1 to 15 characters, no blank, control, ':' or ','",
				    shown);
		a->attach_unit = v;
		return 0;
	case OPT_PROMETHEUS:
		a->prometheus = true;
		return 0;
	case OPT_TEXTFILE_DIR:
		if (!*v || strlen(v) >= 4000)
			return fail(a, "%s: empty or too long path", shown);
		a->textfile_dir = v;
		return 0;
	case OPT_REMOTE_WRITE:
		if (strncasecmp(v, "http://", 7) && strncasecmp(v, "https://", 8))
			return fail(a, "%s: not an http:// or https:// URL", shown);
		if (!v[strcspn(v, ":") + 3] || strlen(v) >= 4000 || has_ctl_or_blank(v))
			return fail(a, "%s: no host, too long, or a blank or control character", shown);
		a->remote_write = v;
		return 0;
	case OPT_INSTANCE:
	case OPT_JOB:
		if (!*v || strlen(v) > 255 || has_ctl_or_blank(v))
			return fail(a, "%s: 1 to 255 characters, no blank or control character",
				    shown);
		if (o->id == OPT_INSTANCE)
			a->rw_instance = v;
		else
			a->rw_job = v;
		return 0;
	case OPT_INPUT:
	case OPT_OUTPUT:
		if (!*v || strlen(v) >= PC_PATH_MAX)
			return fail(a, "%s: empty or too long path", shown);
		if (o->id == OPT_INPUT)
			a->flame_in = v;
		else
			a->flame_out = v;
		return 0;
	case OPT_TITLE:
		if (strlen(v) > PC_FLAME_TITLE_MAX)
			return fail(a, "%s: longer than 200 bytes", shown);
		a->flame_title = v;
		return 0;
	case OPT_WIDTH:
		ret = pc_parse_u64(v, PC_FLAME_MAX_WIDTH, &n);
		if (ret || n < PC_FLAME_MIN_WIDTH)
			return fail(a, "%s: '%s' is not a width from 200 to 65536",
				    shown, v);
		a->flame_width = n;
		return 0;
	case NR_OPTS:
		break;
	}
	return fail(a, "internal error");
}

/*
 * A uprobe's histogram name (attach_label): --name, or the one made from
 * SYMBOL with room left for the suffix of the spec so far (":arg1:bytes";
 * ":by=pid" is not counted).  Return: 0, or PC_EXIT_USAGE after the message.
 */
static int attach_uprobe_name(struct pc_args *a)
{
	struct pcore_probe_spec sfx = a->attach_probe;
	char suffix[PCORE_UAPI_NAME_MAX];

	sfx.func[0] = '\0';
	sfx.flags = 0;
	pcore_probe_spec_name(&sfx, suffix, sizeof(suffix));	/* fits */
	if (a->attach_hist_name)
		snprintf(a->attach_label, sizeof(a->attach_label), "%s",
			 a->attach_hist_name);
	else if (uprobe_label(a, sizeof(a->attach_label) - strlen(suffix)))
		return PC_EXIT_USAGE;
	a->attach_name = a->attach_label;
	return 0;
}

/*
 * attach: the probe in fields, as the kernel takes them: FUNC parsed as
 * target= takes it (by the kernel's own parser, pcore_spec.c), then the
 * options, then the kernel's rules; the name is the spec as text.
 */
static int attach_probe(struct pc_args *a)
{
	struct pcore_probe_spec *ps = &a->attach_probe, named;
	char why[PCORE_SPEC_WHY_MAX], full[2 * PCORE_UAPI_NAME_MAX];

	memset(ps, 0, sizeof(*ps));
	if (a->attach_kind == PCORE_ATTACH_KRETPROBE &&
	    pcore_probe_spec_parse(a->attach_name, ps, why, sizeof(why)))
		return fail(a, "%s: %s", a->attach_name, why);
	if ((a->attach_arg || a->attach_count || a->attach_stacks ||
	     a->attach_retval || a->attach_graph) && ps->what)
		return fail(a, "%s: give what to record in FUNC's suffix or as an option, not both",
			    a->attach_name);
	if (a->attach_arg) {
		ps->what = PCORE_WHAT_ARG;
		ps->arg = a->attach_arg;
	} else if (a->attach_count) {
		ps->what = PCORE_WHAT_COUNT;
	} else if (a->attach_stacks) {
		ps->what = PCORE_WHAT_STACKS;
	} else if (a->attach_retval) {
		ps->what = PCORE_WHAT_RETVAL;
	} else if (a->attach_graph) {
		ps->what = PCORE_WHAT_GRAPH;
		if (a->attach_graph_glob)
			snprintf(ps->graph, sizeof(ps->graph), "%s",
				 a->attach_graph_glob);
	}
	if (ps->graph[0] && a->attach_hist_name)
		return fail(a, "--name goes with --graph, not with a glob of callees (the glob travels in the histogram's name, F:graph:GLOB)");
	/* --unit goes with --arg or --retval: FUNC has no unit then */
	if (a->attach_unit)
		snprintf(ps->unit, sizeof(ps->unit), "%s", a->attach_unit);
	if (a->attach_kind == PCORE_ATTACH_UPROBE && attach_uprobe_name(a))
		return PC_EXIT_USAGE;
	/* a tracepoint, or a uprobe's name: not a spec's text */
	if (a->attach_kind != PCORE_ATTACH_KRETPROBE)
		snprintf(ps->func, sizeof(ps->func), "%s", a->attach_name);
	if (a->attach_by_pid)
		ps->flags |= PCORE_ATTACH_BY_PID;
	if (a->attach_by_cgroup)
		ps->flags |= PCORE_ATTACH_BY_CGROUP;
	if (a->user_stacks && a->attach_stacks)
		ps->flags |= PCORE_ATTACH_USTACK;
	if (a->attach_kind != PCORE_ATTACH_TRACEPOINT &&
	    pcore_probe_spec_check(ps, why, sizeof(why)))
		return fail(a, "%s: %s", a->attach_name, why);
	named = *ps;
	/* --name: instead of FUNC (a uprobe's has it already) */
	if (a->attach_hist_name)
		snprintf(named.func, sizeof(named.func), "%s",
			 a->attach_hist_name);
	if (pcore_probe_spec_name(&named, full, sizeof(full)) ||
	    strlen(full) >= sizeof(a->attach_full))
		return fail(a, "%s: longer than 127 characters with its suffix",
			    full);
	strcpy(a->attach_full, full);
	return 0;
}

/*
 * attach: the options that go together, and the name with its suffix.
 * --uprobe and --uretprobe follow the rules of --kprobe and --kretprobe.
 */
static int check_attach(struct pc_args *a)
{
	bool uprobe = a->attach_kind == PCORE_ATTACH_UPROBE;
	bool ret = (a->attach_kind == PCORE_ATTACH_KRETPROBE || uprobe) &&
		   !a->attach_entry;
	const char *entry = uprobe ? "--uprobe" : "--kprobe";

	if (!a->attach_kind)
		return fail(a, "attach needs --kprobe FUNC, --kretprobe FUNC, --uprobe PATH:SYMBOL, --uretprobe PATH:SYMBOL or --tracepoint TP");
	if (a->maxactive_set && !ret)
		return fail(a, "--maxactive is for --kretprobe and --uretprobe only");
	if ((a->attach_arg || a->attach_count) && !a->attach_entry)
		return fail(a, "--%s is for --kprobe and --uprobe only",
			    a->attach_arg ? "arg" : "count");
	if (a->attach_stacks && !a->attach_entry)
		return fail(a, "--stacks is for --kprobe and --uprobe only");
	if (a->attach_depth && !a->attach_stacks)
		return fail(a, "--depth is for --stacks only");
	if (a->attach_graph &&
	    (a->attach_kind != PCORE_ATTACH_KRETPROBE || a->attach_entry))
		return fail(a, "--graph is for --kretprobe only");
	if (a->attach_graph && (a->attach_retval || a->mechanism))
		return fail(a, "--graph goes with neither --retval nor --mechanism (kretprobes time it)");
	if (a->attach_entry &&
	    !!a->attach_arg + a->attach_count + a->attach_stacks != 1)
		return fail(a, "%s needs one of --arg N, --count and --stacks",
			    entry);
	if (a->attach_retval && !ret)
		return fail(a, "--retval is for --kretprobe and --uretprobe only");
	if (a->attach_unit && !a->attach_arg && !a->attach_retval)
		return fail(a, "--unit is for --arg and --retval only");
	if ((a->attach_count || a->attach_stacks) && a->hist.set)
		return fail(a, "--hist does not apply to --%s",
			    a->attach_count ? "count" : "stacks");
	/* offcpu's histogram is log2 (its sums exact): nothing to choose */
	if (a->hist.set && a->attach_kind == PCORE_ATTACH_TRACEPOINT &&
	    !strcmp(a->attach_name, "offcpu"))
		return fail(a, "--hist does not apply to --offcpu (its times are log2, their sums exact)");
	if ((a->attach_pid || a->attach_comm) && a->attach_kind ==
	    PCORE_ATTACH_TRACEPOINT && strcmp(a->attach_name, "offcpu"))
		return fail(a, "--pid and --comm are for function probes and --offcpu, not --tracepoint");
	/* but runqlat's wait by process: --tracepoint runqlat --by-pid */
	if (a->attach_by_pid && a->attach_kind == PCORE_ATTACH_TRACEPOINT &&
	    strcmp(a->attach_name, "runqlat"))
		return fail(a, "--by-pid is for function probes and runqlat, not --tracepoint");
	if (a->user_stacks && !a->attach_stacks &&
	    (a->attach_kind != PCORE_ATTACH_TRACEPOINT ||
	     strcmp(a->attach_name, "offcpu")))
		return fail(a, "--user-stacks is for --stacks and --offcpu only");
	if (a->no_kthreads && (a->attach_kind != PCORE_ATTACH_TRACEPOINT ||
			       strcmp(a->attach_name, "offcpu")))
		return fail(a, "--no-kthreads is for --offcpu only");
	if (a->attach_by_pid && (a->attach_retval || a->attach_stacks))
		return fail(a, "--by-pid does not go with --%s",
			    a->attach_retval ? "retval" : "stacks");
	if (a->attach_by_cgroup && a->attach_by_pid)
		return fail(a, "--by-cgroup does not go with --by-pid");
	if (a->attach_by_cgroup && a->attach_kind == PCORE_ATTACH_TRACEPOINT &&
	    strcmp(a->attach_name, "runqlat"))
		return fail(a, "--by-cgroup is for function probes and runqlat, not --tracepoint");
	if (a->attach_by_cgroup && (a->attach_retval || a->attach_stacks))
		return fail(a, "--by-cgroup does not go with --%s",
			    a->attach_retval ? "retval" : "stacks");
	if (a->attach_mech && a->attach_kind != PCORE_ATTACH_KRETPROBE)
		return fail(a, "--mechanism is for --kprobe and --kretprobe only");
	return attach_probe(a);
}

/* After all arguments: what each command requires. */
static int check_cmd(struct pc_args *a, unsigned long long seen)
{
	const char *why;

	if (cmds[a->cmd].needs_name && !a->name)
		return fail(a, "%s needs a histogram NAME", cmds[a->cmd].name);
	if (a->name && pc_check_name(a->name, &why))
		return fail(a, "NAME: %s", why);
	switch (a->cmd) {
	case PC_CMD_SHOW:
		if (!!(seen & 1ULL << OPT_JSON) + !!(seen & 1ULL << OPT_CSV) +
		    !!(seen & 1ULL << OPT_FOLDED) > 1)
			return fail(a, "give one of --json, --csv and --folded");
		if ((seen & 1ULL << OPT_TOP) && (seen & 1ULL << OPT_CSV))
			return fail(a, "--top does not go with --csv");
		if (a->full && a->format != PC_FMT_TEXT)
			return fail(a, "--full is for the text output (--json and --csv hold every bucket)");
		if ((seen & 1ULL << OPT_SORT) && !a->keys)
			return fail(a, "--sort is for --keys");
		if (a->keys && (a->format == PC_FMT_CSV ||
				a->format == PC_FMT_FOLDED || a->full ||
				a->percpu))
			return fail(a, "--keys prints one line per key, of every CPU: not with --%s",
				    a->format == PC_FMT_CSV ? "csv" :
				    a->format == PC_FMT_FOLDED ? "folded" :
				    a->full ? "full" : "percpu");
		break;
	case PC_CMD_WATCH:
		if (!(seen & 1ULL << OPT_INTERVAL))
			return fail(a, "watch needs -i SECONDS");
		break;
	case PC_CMD_ATTACH:
		return check_attach(a);
	case PC_CMD_PROFILE:
		if (!a->hz)
			return fail(a, "profile needs -F HZ");
		if (!a->duration_ns && (seen & (1ULL << OPT_FOLDED |
						1ULL << OPT_JSON |
						1ULL << OPT_TOP)))
			return fail(a, "--folded, --json and --top print what -d SECONDS collected");
		if ((seen & 1ULL << OPT_FOLDED) && (seen & 1ULL << OPT_JSON))
			return fail(a, "give one of --json and --folded");
		break;
	case PC_CMD_EXPORT:
		if (a->remote_write) {
			if (a->textfile_dir || a->percpu)
				return fail(a, "--remote-write sends the totals since creation: no --textfile-dir or --per-cpu");
			break;
		}
		if ((seen & 1ULL << OPT_INSTANCE) || (seen & 1ULL << OPT_JOB))
			return fail(a, "--instance and --job label what --remote-write sends");
		if (!a->prometheus)
			return fail(a, "export needs a format: --prometheus or --remote-write URL");
		break;
	case PC_CMD_HEATMAP:
		if (a->count && a->duration_ns)
			return fail(a, "give one of -n COUNT and -d SECONDS");
		if (!a->interval_ns)
			a->interval_ns = 1000000000ULL;
		if (a->flame_title && !a->heat_svg)
			return fail(a, "--title is the title of --svg's picture");
		if (a->duration_ns) {
			unsigned long long n = (a->duration_ns +
						a->interval_ns - 1) /
					       a->interval_ns;

			a->count = n > 0xffffffffULL ? 0xffffffffU : n;
		}
		break;
	case PC_CMD_FLAMEGRAPH:
		if (a->name && a->flame_in)
			return fail(a, "flamegraph: give a histogram NAME or -i FILE, not both");
		if (!a->name && !a->flame_in)
			return fail(a, "flamegraph needs -i FILE (folded stacks)");
		break;
	default:
		break;
	}
	return 0;
}

static bool is_help(const char *s)
{
	return !strcmp(s, "-h") || !strcmp(s, "--help");
}

static enum pc_cmd find_cmd(const char *s)
{
	int i;

	for (i = PC_CMD_LOAD; i < PC_NR_CMDS; i++)
		if (!strcmp(cmds[i].name, s))
			return i;
	return PC_CMD_NONE;
}

/* One option argument at argv[*i]; may take the next one as its value. */
static int parse_opt(struct pc_args *a, int argc, char **argv, int *i,
		     unsigned long long *seen)
{
	const char *arg = argv[*i], *eq = NULL, *v = NULL;
	const struct pc_opt *o;
	char shown[40];

	if (arg[1] == '-') {
		eq = strchr(arg + 2, '=');
		o = find_opt(cmds[a->cmd].opts, arg + 2,
			     eq ? (size_t)(eq - arg - 2) : strlen(arg + 2), 0);
		if (o)
			snprintf(shown, sizeof(shown), "--%s", o->lng);
	} else {
		o = find_opt(cmds[a->cmd].opts, NULL, 0, arg[1]);
		if (o)
			snprintf(shown, sizeof(shown), "-%c", o->shrt);
		if (o && arg[2])
			v = arg + 2;	/* -i1 */
		if (!o || (arg[2] && !o->argh))
			o = NULL;
	}
	if (!o)
		return fail(a, "%s: unknown option '%.60s'", cmds[a->cmd].name,
			    arg);
	if (*seen & 1ULL << o->id)
		return fail(a, "%s given twice", shown);
	*seen |= 1ULL << o->id;
	/* --graph[=GLOB]: the one flag with an optional value */
	if (eq && !o->argh && o->id == OPT_GRAPH)
		v = eq + 1;
	else if (eq && !o->argh)
		return fail(a, "%s takes no value", shown);
	if (o->argh) {
		if (eq)
			v = eq + 1;
		if (!v) {
			if (*i + 1 >= argc)
				return fail(a, "%s needs a value", shown);
			v = argv[++*i];
		}
	}
	return set_opt(a, o, v, shown);
}

/**
 * pc_parse_args() - parse a command line
 * @argc: as main() got it
 * @argv: as main() got it; strings in @a point into it
 * @a: filled in
 *
 * Options may come before or after NAME, as --opt VALUE, --opt=VALUE or,
 * for short ones, -i VALUE or -iVALUE; "--" ends the options.  -h or
 * --help anywhere before "--" asks for help.
 *
 * Return: 0, or PC_EXIT_USAGE with the reason in @a->err.
 */
int pc_parse_args(int argc, char **argv, struct pc_args *a)
{
	unsigned long long seen = 0;
	bool opts_done = false;
	const char *arg;
	int i, ret;

	memset(a, 0, sizeof(*a));
	if (argc < 2)
		return fail(a, "no command given");
	arg = argv[1];
	if (is_help(arg) || !strcmp(arg, "help")) {
		a->help = true;
		if (argc == 2 || is_help(arg))
			return argc == 2 ? 0 :
				fail(a, "unexpected argument '%.60s'", argv[2]);
		a->cmd = find_cmd(argv[2]);
		if (a->cmd == PC_CMD_NONE)
			return fail(a, "unknown command '%.60s'", argv[2]);
		return argc == 3 ? 0 :
			fail(a, "unexpected argument '%.60s'", argv[3]);
	}
	if (!strcmp(arg, "--version")) {
		a->cmd = PC_CMD_VERSION;
		return argc == 2 ? 0 :
			fail(a, "unexpected argument '%.60s'", argv[2]);
	}
	a->cmd = find_cmd(arg);
	if (a->cmd == PC_CMD_NONE)
		return fail(a, arg[0] == '-' ? "unknown option '%.60s'" :
			    "unknown command '%.60s'", arg);
	for (i = 2; i < argc && strcmp(argv[i], "--"); i++) {
		if (is_help(argv[i])) {
			a->help = true;
			return 0;
		}
	}
	for (i = 2; i < argc; i++) {
		arg = argv[i];
		if (!opts_done && !strcmp(arg, "--")) {
			opts_done = true;
		} else if (!opts_done && arg[0] == '-' && arg[1]) {
			ret = parse_opt(a, argc, argv, &i, &seen);
			if (ret)
				return ret;
		} else if ((cmds[a->cmd].needs_name ||
			    cmds[a->cmd].takes_name) && !a->name) {
			a->name = arg;
		} else {
			return fail(a, "%s: unexpected argument '%.60s'",
				    cmds[a->cmd].name, arg);
		}
	}
	return check_cmd(a, seen);
}
