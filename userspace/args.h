/* SPDX-License-Identifier: GPL-2.0 */
/*
 * probectl's command line, parsed into a struct.  No I/O: a usage error
 * leaves its message in struct pc_args.err.
 */
#ifndef PROBECTL_ARGS_H
#define PROBECTL_ARGS_H

#include "probectl.h"
#include "pcore_spec.h"

enum pc_cmd {
	PC_CMD_NONE,	/* help without a command: the global usage */
	PC_CMD_LOAD,
	PC_CMD_UNLOAD,
	PC_CMD_STATUS,
	PC_CMD_LIST,
	PC_CMD_SHOW,
	PC_CMD_WATCH,
	PC_CMD_ATTACH,
	PC_CMD_DETACH,
	PC_CMD_RESET,
	PC_CMD_ENABLE,
	PC_CMD_DISABLE,
	PC_CMD_EXPORT,
	PC_CMD_PROFILE,
	PC_CMD_FLAMEGRAPH,
	PC_CMD_HEATMAP,
	PC_CMD_VERSION,
	PC_NR_CMDS
};

enum pc_format {
	PC_FMT_TEXT,
	PC_FMT_JSON,
	PC_FMT_CSV,
	PC_FMT_FOLDED,
};

/* show --keys --sort: the keys, largest first, by this */
enum pc_key_sort {
	PC_SORT_COUNT,
	PC_SORT_P99,
	PC_SORT_SUM,
};

#define PC_HIST_SPEC_MAX	80	/* "linear:" and three u64s fit */
#define PC_MAX_TARGETS		64	/* as probe_core's target= */
#define PC_MAXACTIVE_MAX	4096	/* as probe_core's maxactive= */
#define PC_INTERVAL_MAX_S	86400	/* watch -i: one day */
#define PC_ARGS_MAX		6	/* attach --arg: as target=FUNC:argN */
#define PC_DEPTH_MAX		127	/* attach --depth: as stack_depth= */
#define PC_HZ_MAX		4000	/* profile -F: as profile= */
#define PC_UNIT_MAX		15	/* attach --unit: as probe_core's units */
#define PC_PATH_MAX		4096	/* attach --uprobe PATH, with its NUL */
#define PC_COMM_MAX		15	/* attach --comm: a task's name */

/* What an option sets: set_opt() in args.c checks and stores its value. */
enum pc_opt_id {
	OPT_TARGET,
	OPT_TRACEPOINTS,
	OPT_HIST_SPEC,
	OPT_MAXACTIVE,
	OPT_MODULE,
	OPT_JSON,
	OPT_CSV,
	OPT_PERCPU,
	OPT_INTERVAL,
	OPT_COUNT,
	OPT_HIST_FLAG,
	OPT_KRETPROBE,
	OPT_TRACEPOINT,
	OPT_OFFCPU,
	OPT_PROMETHEUS,
	OPT_TEXTFILE_DIR,
	OPT_PER_CPU,
	OPT_REMOTE_WRITE,
	OPT_INSTANCE,
	OPT_JOB,
	OPT_KPROBE,
	OPT_ARG,
	OPT_RETVAL,
	OPT_CALLS,
	OPT_UNIT,
	OPT_UPROBE,
	OPT_URETPROBE,
	OPT_NAME,
	OPT_PID,
	OPT_COMM,
	OPT_BY_PID,
	OPT_BY_CGROUP,
	OPT_USER_STACKS,
	OPT_NO_KTHREADS,
	OPT_MECHANISM,
	OPT_STACKS,
	OPT_GRAPH,
	OPT_DEPTH,
	OPT_FOLDED,
	OPT_TOP,
	OPT_FREQ,
	OPT_DURATION,
	OPT_INPUT,
	OPT_OUTPUT,
	OPT_TITLE,
	OPT_WIDTH,
	OPT_FULL,
	OPT_SVG,
	OPT_COLOR,
	OPT_NO_COLOR,
	OPT_KEYS,
	OPT_SORT,
	NR_OPTS
};

/**
 * struct pc_opt - one option of a command, with its help
 * @lng: its long name, without "--"
 * @shrt: its short name, or 0 for none
 * @argh: the name of its value in the help ("N", "FILE"), or NULL when it
 *	takes none
 * @id: what it sets
 * @help: its help; '\n' starts a further line
 *
 * Each command has a table of these, ended by PC_OPT_END: the parser
 * looks options up in it, and the help lists it in its order
 * (pc_usage()), so an option, its value and its help are written once.
 * The bash completion reads the options from that help, and the host
 * tests check the man page and the completion against the tables.
 */
struct pc_opt {
	const char *lng;
	char shrt;
	const char *argh;
	enum pc_opt_id id;
	const char *help;
};

/* An option without a value, and one with a value called @argh. */
#define PC_OPT_FLAG(shrt, lng, id, help)	{ lng, shrt, NULL, id, help }
#define PC_OPT_VALUE(shrt, lng, argh, id, help)	{ lng, shrt, argh, id, help }
#define PC_OPT_END				{ NULL, 0, NULL, NR_OPTS, NULL }

/* Where an option's help starts in the help's lines. */
#define PC_HELP_COL	22

/**
 * struct pc_hist_arg - a --hist SPEC, as PCORE_IOC_ATTACH wants it
 * @set: given
 * @kind: PCORE_UAPI_HIST_*
 * @precision: loglinear: sub-bucket bits, 0 for the default
 * @min: linear: lower end
 * @max: linear: upper end (exclusive)
 * @step: linear: bucket width
 * @text: the spec as given, for hist= of load
 */
struct pc_hist_arg {
	bool set;
	unsigned int kind;
	unsigned int precision;
	unsigned long long min;
	unsigned long long max;
	unsigned long long step;
	char text[PC_HIST_SPEC_MAX + 1];
};

/**
 * struct pc_args - a parsed command line
 * @cmd: the command
 * @help: print @cmd's help (PC_CMD_NONE: the global one) and exit 0
 * @name: NAME of show, watch, detach, reset, enable, disable; flamegraph's
 *	optional NAME
 * @target: load --target
 * @tracepoints: load --tracepoints
 * @module: load --module
 * @hist: load and attach --hist
 * @maxactive_set: --maxactive given
 * @maxactive: load and attach --maxactive
 * @format: show --json/--csv/--folded, list/watch --json
 * @top: show --top: the most counted stacks (with --keys: the first keys)
 *	only, 0 for all
 * @keys: show --keys: one line per key
 * @sort: show --sort, with --keys
 * @percpu: show --percpu, export --per-cpu
 * @full: show and heatmap --full: every bucket a row
 * @watch_hist: watch --hist
 * @interval_ns: watch and heatmap -i, in ns
 * @count: watch and heatmap -n, 0 for no limit
 * @attach_kind: PCORE_ATTACH_KRETPROBE, PCORE_ATTACH_TRACEPOINT or
 *	PCORE_ATTACH_UPROBE
 * @attach_name: attach --kprobe FUNC, --kretprobe FUNC or --tracepoint TP;
 *	for --uprobe and --uretprobe, @attach_label
 * @attach_entry: attach --kprobe or --uprobe: a probe at the entry (a
 *	kprobe is attached, as every kernel function probe, with the kind
 *	PCORE_ATTACH_KRETPROBE and target='s suffix)
 * @attach_path: attach --uprobe or --uretprobe PATH:SYMBOL: PATH
 * @attach_sym: SYMBOL: NAME[@[@]VERSION] or an offset (elfsym.h)
 * @attach_hist_name: attach --name, or NULL
 * @attach_label: --name, or the name made from SYMBOL (or from PATH's
 *	last component and the offset)
 * @attach_arg: attach --arg N, 0 when not given
 * @attach_retval: attach --retval
 * @attach_count: attach --count
 * @attach_stacks: attach --stacks: the suffix ":stacks"
 * @attach_depth: attach and profile --depth, 0 when not given
 * @hz: profile -F
 * @duration_ns: profile and heatmap -d, in ns; 0 when not given
 * @attach_unit: attach --unit, or NULL
 * @attach_full: the name sent: @attach_name and its suffix
 * @attach_probe: the probe sent in fields: @attach_name parsed as
 *	target= takes it (pcore_probe_spec_parse()), with the options
 * @attach_pid: attach --pid, 0 when not given
 * @attach_comm: attach --comm, or NULL
 * @attach_graph: attach --graph: the suffix ":graph"
 * @attach_graph_glob: attach --graph=GLOB: the functions F may call
 *	indirectly, the suffix ":graph:GLOB"; NULL without
 * @attach_by_pid: attach --by-pid: the suffix ":by=pid"
 * @attach_by_cgroup: attach --by-cgroup: the suffix ":by=cgroup"
 * @user_stacks: attach (--stacks, --offcpu) and profile --user-stacks:
 *	PCORE_ATTACH_USTACK (":stacks:ustack")
 * @no_kthreads: attach --offcpu and profile --no-kthreads:
 *	PCORE_ATTACH_NO_KTHREADS
 * @mechanism: load and attach --mechanism: "kprobe", "direct" or "auto",
 *	or NULL
 * @attach_mech: attach --mechanism as PCORE_ATTACH_MECH_*, or 0
 * @prometheus: export --prometheus
 * @textfile_dir: export --textfile-dir
 * @remote_write: export --remote-write URL, or NULL
 * @rw_instance: export --instance, or NULL (the host's name)
 * @rw_job: export --job, or NULL (probe_core)
 * @flame_in: flamegraph -i FILE ("-": standard input), or NULL
 * @flame_out: flamegraph -o FILE, or NULL for standard output
 * @flame_title: flamegraph and heatmap --title, or NULL
 * @flame_width: flamegraph --width, 0 for the default
 * @heat_svg: heatmap --svg FILE, or NULL
 * @heat_color: heatmap: 1 --color, -1 --no-color, 0 neither (colour on a
 *	terminal)
 * @err: why the command line was refused
 *
 * Strings point into argv.
 */
struct pc_args {
	enum pc_cmd cmd;
	bool help;
	const char *name;
	const char *target;
	const char *tracepoints;
	const char *module;
	struct pc_hist_arg hist;
	bool maxactive_set;
	unsigned int maxactive;
	enum pc_format format;
	unsigned int top;
	bool keys;
	enum pc_key_sort sort;
	bool percpu;
	bool full;
	bool watch_hist;
	unsigned long long interval_ns;
	unsigned int count;
	unsigned int attach_kind;
	const char *attach_name;
	bool attach_entry;
	char attach_path[PC_PATH_MAX];
	const char *attach_sym;
	const char *attach_hist_name;
	char attach_label[PCORE_UAPI_NAME_MAX];
	unsigned int attach_arg;
	bool attach_retval;
	bool attach_count;
	bool attach_stacks;
	bool attach_graph;
	const char *attach_graph_glob;
	unsigned int attach_depth;
	unsigned int hz;
	unsigned long long duration_ns;
	const char *attach_unit;
	char attach_full[PCORE_UAPI_NAME_MAX];
	struct pcore_probe_spec attach_probe;
	unsigned int attach_pid;
	const char *attach_comm;
	bool attach_by_pid;
	bool attach_by_cgroup;
	bool user_stacks;
	bool no_kthreads;
	const char *mechanism;
	unsigned int attach_mech;
	bool prometheus;
	const char *textfile_dir;
	const char *remote_write;
	const char *rw_instance;
	const char *rw_job;
	const char *flame_in;
	const char *flame_out;
	const char *flame_title;
	unsigned int flame_width;
	const char *heat_svg;
	int heat_color;
	char err[200];
};

int pc_parse_args(int argc, char **argv, struct pc_args *a);
void pc_usage(FILE *f, enum pc_cmd cmd, bool full);
const char *pc_cmd_name(enum pc_cmd cmd);
const struct pc_opt *pc_cmd_opts(enum pc_cmd cmd);

int pc_parse_u64(const char *s, unsigned long long max,
		 unsigned long long *v);
int pc_parse_seconds(const char *s, unsigned long long *ns);
int pc_parse_hist(const char *s, struct pc_hist_arg *h, const char **why);
int pc_check_symbol(const char *s, const char **why);
int pc_check_name(const char *s, const char **why);
int pc_check_uprobe_name(const char *s, const char **why);
int pc_check_list(const char *s, const char **why);
int pc_load_params(const struct pc_args *a, char *buf, size_t len);

#endif /* PROBECTL_ARGS_H */
