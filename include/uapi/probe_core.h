/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * probe_core's binary interface: ioctls on /dev/probe_core.
 *
 * Every struct is naturally aligned, with explicit padding, the same on
 * 32- and 64-bit user space; user pointers travel as __u64.  Strings are
 * NUL-terminated within their arrays (the kernel refuses one that is
 * not).  Reserved and padding fields must be zero on input and are zero
 * on output; the kernel writes every output field.
 *
 * Names: a histogram of probe_core's own (target=, tracepoints=, or
 * attached through this device) is "<name>"; one of a handler module is
 * "<module>/<name>".
 *
 * Errors: ENOTTY for an unknown command, EFAULT for a bad pointer, EBADF
 * for a bad file descriptor (PCORE_ATTACH_UPROBE), EINVAL
 * for bad sizes, flags, strings or reserved fields, ENOENT for an unknown
 * name, EPERM for attach, detach, enable and disable without
 * CAP_SYS_ADMIN, ENOSPC when an output buffer is too small (the needed
 * size is reported).
 */
#ifndef _UAPI_PROBE_CORE_H
#define _UAPI_PROBE_CORE_H

#include <linux/ioctl.h>
#include <linux/types.h>

/*
 * 2: uprobes, pid and comm filters; 3: stacks; 4: PCORE_READ_TOTAL,
 * created_ns; 5: PCORE_IOC_ATTACH's probe in fields (@target, @what,
 * @arg, @unit, @flags), the ABI 4 call as PCORE_IOC_ATTACH_V4.
 * Still 5, compatible additions: PCORE_ATTACH_USTACK and
 * PCORE_ATTACH_NO_KTHREADS (a module before them refuses them: EINVAL),
 * PCORE_ATTACH_BY_CGROUP and PCORE_UAPI_HIST_EXP (likewise refused
 * by older modules; an entry's @hist_kind then reads "exp:S"),
 * PCORE_READ_TOTAL with PCORE_READ_KEY on a histogram keyed by cgroup
 * and struct pcore_ioc_read's @lost, which was reserved (an older module
 * refuses the pair: EINVAL; a reader then has the merged total only),
 * @pid and @comm for the "offcpu" tracepoint, and the lines "[u] ...",
 * "[u...]" and "[proc] ..." in the frames of histograms with user stacks
 * only (no histogram an older probectl can make has them): a probectl of
 * ABI 5 reads every histogram it could read before as before.  Later,
 * profilers and "offcpu" without user stacks end each stack with
 * "[proc] TGID COMM" too (a probectl that knows user stacks reads it as
 * theirs; one before shows the line as a frame, at the root of folded
 * lines), and their @nframes may be the depth and one.
 */
#define PCORE_ABI_VERSION	5
#define PCORE_IOC_MAGIC		0xB8
#define PCORE_DEVICE		"/dev/probe_core"

#define PCORE_UAPI_NAME_MAX	128	/* names, including the NUL */
#define PCORE_UAPI_SYMBOL_MAX	160
#define PCORE_UAPI_SHORT_MAX	16	/* kinds and units */
#define PCORE_UAPI_LABEL_MAX	32
/*
 * Room for a stack's frames as text: 128 lines of at most 255 bytes and
 * a "[proc] TGID COMM" line.
 */
#define PCORE_UAPI_FRAMES_MAX	32768

/**
 * struct pcore_ioc_version - PCORE_IOC_VERSION
 * @abi: out: PCORE_ABI_VERSION of the module
 * @nr_cpu_ids: out: CPU numbers are below this
 * @module_version: out: probe_core's MODULE_VERSION
 * @reserved: zero
 */
struct pcore_ioc_version {
	__u32 abi;
	__u32 nr_cpu_ids;
	char module_version[32];
	__u64 reserved[4];
};

/* struct pcore_ioc_entry.flags */
#define PCORE_ENT_HAS_PROBE	0x1	/* fed by a probe: symbol, hits, missed */
#define PCORE_ENT_DISABLED	0x2	/* its probe is disabled */
#define PCORE_ENT_WAITING	0x4	/* its tracepoint's module is not loaded */
#define PCORE_ENT_OWN		0x8	/* probe_core's own: detach works */
#define PCORE_ENT_GONE		0x10	/* uprobe: its file was deleted or unmounted */
#define PCORE_ENT_STACKS	0x20	/* keyed by kernel stack: frames (ABI 3) */

/**
 * struct pcore_ioc_entry - one histogram, as PCORE_IOC_LIST reports it
 * @name: "<name>" or "<module>/<name>"
 * @symbol: what its probe resolved to, "" without a probe
 * @probe_kind: "kprobe", "kretprobe", "tracepoint", "uprobe", "uretprobe",
 *	"functions", "profile", "direct" (an ftrace direct call) or ""
 * @unit: unit of the values, e.g. "ns"
 * @hist_kind: "log2", "linear", "loglinear", "count" or "exp:S" (S the
 *	schema, 0 to 8: the buckets are those of a native histogram of
 *	schema S; position 0 the zero bucket, position p native index p - 1)
 * @key_name: what a key is ("irq", "pid"...), "" when not keyed
 * @hits: calls of its probe's handler
 * @missed: events its probe missed (kprobe and kretprobe nmissed)
 * @count: values in the histogram since it was created
 * @nbuckets: buckets per key
 * @nkeys: key slots: 1 when not keyed
 * @flags: PCORE_ENT_*
 * @mem_kib: memory the histogram takes, in KiB rounded up, counted
 *	against probe_core's mem_max (0 from a module older than the field,
 *	which was padding)
 * @probe: the probe of probe_core's own that feeds it, by the name that
 *	detach, enable and disable take: its own name for a function's, the
 *	glob ("vfs_*", "vfs_*:count") for each histogram of a glob's; ""
 *	for a handler module's histogram and one no probe feeds.  Only in
 *	entries of PCORE_ENTRY_SIZE bytes (see struct pcore_ioc_list)
 */
struct pcore_ioc_entry {
	char name[PCORE_UAPI_NAME_MAX];
	char symbol[PCORE_UAPI_SYMBOL_MAX];
	char probe_kind[PCORE_UAPI_SHORT_MAX];
	char unit[PCORE_UAPI_SHORT_MAX];
	char hist_kind[PCORE_UAPI_SHORT_MAX];
	char key_name[PCORE_UAPI_SHORT_MAX];
	__u64 hits;
	__u64 missed;
	__u64 count;
	__u32 nbuckets;
	__u32 nkeys;
	__u32 flags;
	__u32 mem_kib;
	char probe[PCORE_UAPI_NAME_MAX];
};

/*
 * Sizes of struct pcore_ioc_entry that PCORE_IOC_LIST takes: the first,
 * up to @mem_kib, and the whole struct, with @probe (ABI 5, since the
 * field was added).  A module that refuses PCORE_ENTRY_SIZE (EINVAL) is
 * older than @probe: ask again with PCORE_ENTRY_V5_SIZE.
 */
#define PCORE_ENTRY_V5_SIZE	392
#define PCORE_ENTRY_SIZE	520

/**
 * struct pcore_ioc_list - PCORE_IOC_LIST: every histogram
 * @entries: user pointer to @n struct pcore_ioc_entry
 * @n: in: room in @entries; out: number of histograms (all of them, even
 *	when more than the room: then ENOSPC and nothing is written)
 * @entry_size: in: PCORE_ENTRY_SIZE (sizeof(struct pcore_ioc_entry)), or
 *	PCORE_ENTRY_V5_SIZE for entries without @probe: @entries is then an
 *	array of entries of that size, each the first bytes of the struct
 * @reserved: zero
 */
struct pcore_ioc_list {
	__u64 entries;
	__u32 n;
	__u32 entry_size;
	__u64 reserved[2];
};

/* struct pcore_ioc_read.flags */
#define PCORE_READ_RESET	0x1	/* snapshot-and-reset, atomically */
#define PCORE_READ_KEY		0x2	/* one key slot (@slot), not all keys */
#define PCORE_READ_TOTAL	0x4	/* since creation, through resets (ABI 4) */
/* PCORE_READ_TOTAL | PCORE_READ_KEY: one cgroup's total (ABI 5, later) */

/**
 * struct pcore_ioc_bucket - one bucket of a snapshot
 * @lo: lowest value in the bucket
 * @hi: one above the highest value; U64_MAX for an open-ended bucket
 * @count: values in the bucket
 */
struct pcore_ioc_bucket {
	__u64 lo;
	__u64 hi;
	__u64 count;
};

/**
 * struct pcore_ioc_read - PCORE_IOC_READ: a histogram's binary snapshot
 * @name: histogram
 * @cpu: in: a CPU number, or -1 for the merged view of all CPUs
 * @flags: in: PCORE_READ_*.  With PCORE_READ_RESET, @cpu must be -1 and
 *	the whole histogram (all keys) is moved out and reset; the answer is
 *	what was moved out (for a keyed one: of all keys, or of @slot with
 *	PCORE_READ_KEY).  Without it the answer is what was recorded since
 *	the last interval read or reset.  PCORE_READ_TOTAL (alone, @cpu -1,
 *	since ABI version 4) answers every value since the histogram was
 *	created, all keys and CPUs merged, whatever was reset or moved out
 *	since: a count, sum or bucket that never goes down while the
 *	histogram exists (the counters of a Prometheus exporter).
 *	PCORE_READ_TOTAL with PCORE_READ_KEY (@cpu -1, no @frames; a
 *	histogram keyed by cgroup only, key name "cgroup", else EINVAL; a
 *	compatible addition to ABI 5): @slot is an entry of the histogram's
 *	totals per cgroup, below nkeys (there are as many as key slots: the
 *	bound of cgroup_keys=), not a key slot.  The answer: that cgroup's
 *	values since the histogram was created, through interval reads and
 *	resets, with @key its cgroup id and @label its path; @key_used 0
 *	when the entry holds no cgroup, or a cgroup since removed (its
 *	series ends: the values stay in the merged total).  An entry's
 *	count, sum or bucket never goes down while it holds its cgroup; a
 *	cgroup that found no free entry is in the merged total only, and
 *	counted in @lost.  Entries of different cgroups may be answered in
 *	any order and an entry may move only when freed: read them all,
 *	0 to nkeys - 1, and tell them apart by @key.  The read of entry 0
 *	gives every cgroup with values not yet moved out an entry first
 *	(when there is room): a cgroup shows from its first value on to a
 *	reader that starts at 0.
 * @slot: in: with PCORE_READ_KEY, the key slot, below nkeys
 * @buckets: in: user pointer to @nbuckets struct pcore_ioc_bucket
 * @nbuckets: in: room in @buckets; out: the histogram's bucket count
 *	(ENOSPC and no buckets written when the room is smaller)
 * @bucket_size: in: sizeof(struct pcore_ioc_bucket)
 * @key: out: the key of @slot (PCORE_READ_KEY)
 * @key_used: out: 1 when @slot holds a key
 * @pad: zero
 * @label: out: the label of @slot, "" when none
 * @count: out: values
 * @sum: out: their sum
 * @min: out: smallest value, 0 when @count is 0
 * @max: out: largest value
 * @p50: out: percentiles, nearest rank, from the buckets
 * @p90: out
 * @p99: out
 * @p999: out
 * @error_ppm: out: bound of the percentiles' relative error, in parts per
 *	million; 0 when @error_abs applies instead
 * @error_abs: out: bound of the percentiles' absolute error (linear)
 * @missed: out: events its probe missed
 * @dropped: out: values whose key found no slot
 * @frames: in: 0, or with PCORE_READ_KEY on a histogram keyed by stack
 *	(key name "stack"), a user pointer to PCORE_UAPI_FRAMES_MAX bytes
 *	(since ABI version 3): out: the frames of @slot's stack as text, one
 *	per line, innermost first ("func+0x1c/0x40 [module]", "[user] COMM",
 *	"[idle]", "[unknown]"; a last line "[...]" when the stack was cut at
 *	the histogram's depth), NUL-terminated; "" when @slot holds none.
 *	COMM is the task's name as one word: its spaces and control
 *	characters are '_' ("p q\nr" is "[user] p_q_r"), as in debugfs.
 *	With user stacks (PCORE_ATTACH_USTACK), after the kernel frames
 *	(none when the sample was taken in user mode) and their "[...]":
 *	one "[u] 0x%016lx" line per user frame, innermost first (the first
 *	is the user ip), "[u...]" when the user stack was cut at its depth
 *	(32 frames), and last "[proc] TGID COMM": the process and the
 *	task's name as one word (a kernel thread: its pid, no "[u]" line;
 *	a user stack that could not be read: no "[u]" line).  Profilers and
 *	"offcpu" without user stacks: the kernel frames, their "[...]", and
 *	last "[proc] TGID COMM", no "[u]" line; a sample in user mode is
 *	"[user] COMM" then "[proc] TGID COMM"
 * @frames_size: in: PCORE_UAPI_FRAMES_MAX with @frames, else 0; out:
 *	the bytes written, NUL included: nothing past them is written, with
 *	PCORE_READ_RESET too
 * @nframes: out: the stack's frames, the lines of @frames but "[...]":
 *	at most the histogram's depth; "[user] COMM" is one frame, at any
 *	depth, 1 included; with user stacks, the "[u]", "[u...]" and
 *	"[proc]" lines count too, and the "[proc]" line of profilers and
 *	"offcpu" without them (the depth and one at most)
 * @created_ns: out: when the histogram was created (CLOCK_REALTIME, ns
 *	since the Epoch; since ABI version 4): a histogram made again (a
 *	module loaded again, a probe attached again) starts from zero
 * @lost: in: zero; out: with PCORE_READ_TOTAL on a histogram keyed by
 *	cgroup, the values since creation of cgroups that found no free
 *	entry in its totals per cgroup (they are in the merged total, in no
 *	cgroup's); else 0.  Was reserved (zero) before.
 */
struct pcore_ioc_read {
	char name[PCORE_UAPI_NAME_MAX];
	__s32 cpu;
	__u32 flags;
	__u32 slot;
	__u32 nbuckets;
	__u64 buckets;
	__u32 bucket_size;
	__u32 key_used;
	__u64 key;
	char label[PCORE_UAPI_LABEL_MAX];
	__u64 count;
	__u64 sum;
	__u64 min;
	__u64 max;
	__u64 p50;
	__u64 p90;
	__u64 p99;
	__u64 p999;
	__u32 error_ppm;
	__u32 pad;
	__u64 error_abs;
	__u64 missed;
	__u64 dropped;
	__u64 frames;
	__u32 frames_size;
	__u32 nframes;
	__u64 created_ns;
	__u64 lost;
};

/**
 * struct pcore_ioc_name - PCORE_IOC_RESET, _DETACH, _ENABLE, _DISABLE
 * @name: histogram (for detach, enable and disable: of probe_core's own)
 * @reserved: zero
 */
struct pcore_ioc_name {
	char name[PCORE_UAPI_NAME_MAX];
	__u64 reserved[2];
};

/* struct pcore_ioc_attach.kind */
#define PCORE_ATTACH_KRETPROBE	1	/* a kernel function, as target= */
#define PCORE_ATTACH_TRACEPOINT	2	/* like tracepoints=: built-in handler */
#define PCORE_ATTACH_UPROBE	3	/* in a user-space file: @fd, @offset */
#define PCORE_ATTACH_PROFILE	4	/* a CPU profiler: @hz (ABI 3) */

/*
 * struct pcore_ioc_attach.what (ABI 5): what a probe of a function (kernel
 * or user space) records, and the suffix of target= that says the same
 */
#define PCORE_WHAT_TIME		0	/* "FUNC": each call's latency */
#define PCORE_WHAT_COUNT	1	/* "FUNC:count": the calls */
#define PCORE_WHAT_ARG		2	/* "FUNC:argN[:UNIT]": argument @arg */
#define PCORE_WHAT_RETVAL	3	/* "FUNC:retval[:UNIT]": the value returned */
#define PCORE_WHAT_STACKS	4	/* "FUNC:stacks": the calls by kernel stack */
#define PCORE_WHAT_GRAPH	5	/* "FUNC:graph[:GLOB]": where its time goes */

/* struct pcore_ioc_attach.flags (ABI 5) */
#define PCORE_ATTACH_BY_PID	0x1	/* ":by=pid": keyed by process */
/*
 * ":by=cgroup": keyed by the cgroup v2 id of the task the event is for,
 * labelled with the cgroup's path at read time; wherever
 * PCORE_ATTACH_BY_PID goes, never with it
 */
#define PCORE_ATTACH_BY_CGROUP	0x20
/*
 * User stacks and processes too: PCORE_WHAT_STACKS (":stacks:ustack"),
 * PCORE_ATTACH_PROFILE and the tracepoint "offcpu" (see @frames of
 * struct pcore_ioc_read); without it, those two keep the process alone
 */
#define PCORE_ATTACH_USTACK	0x8
/* PCORE_ATTACH_PROFILE and "offcpu": kernel threads left out */
#define PCORE_ATTACH_NO_KTHREADS	0x10
/*
 * How a kernel function is probed (PCORE_ATTACH_KRETPROBE), as
 * mechanism=; none of them: as probe_core's mechanism= parameter says
 */
#define PCORE_ATTACH_MECH_MASK		0x6
#define PCORE_ATTACH_MECH_KPROBE	0x2	/* kprobes and kretprobes */
#define PCORE_ATTACH_MECH_DIRECT	0x4	/* an ftrace direct call, or an error */
#define PCORE_ATTACH_MECH_AUTO		0x6	/* direct where it can go, else kprobes */

/* struct pcore_ioc_attach.hist_kind: as hist= */
#define PCORE_UAPI_HIST_DEFAULT		0	/* as target=: loglinear, log2 for values */
#define PCORE_UAPI_HIST_LOG2		1
#define PCORE_UAPI_HIST_LINEAR		2
#define PCORE_UAPI_HIST_LOGLINEAR	3
#define PCORE_UAPI_HIST_EXP		5	/* a module before it: EINVAL */

/**
 * struct pcore_ioc_attach - PCORE_IOC_ATTACH: a probe of probe_core's own
 * @name: the histogram's name (since ABI 5 only a label, when @target is
 *	given; "" for the name target= would give: "FUNC:arg3:bytes"...).
 *	With @target "", the probe as target= takes it: a function and its
 *	suffixes, or a tracepoint (the only form before ABI 5)
 * @kind: PCORE_ATTACH_*
 * @maxactive: kretprobe: as maxactive=, 0 for the default
 * @hist_kind: PCORE_UAPI_HIST_*
 * @precision: loglinear sub-bucket bits, 0 for the default; exp: the
 *	schema, 0 to 8, exactly (0 is schema 0)
 * @min: linear: lower end
 * @max: linear: upper end (exclusive); loglinear and exp: the largest
 *	value with a bucket of its own, 0 for the default (an hour in ns; exp
 *	schemas 6 to 8: as far as 2048 buckets reach)
 * @step: linear: bucket width
 * @offset: uprobe: offset in the file of the function's first
 *	instruction (not its address: probectl turns an ELF symbol into it)
 * @fd: uprobe: an open file descriptor of the ELF file (executable or
 *	shared library) to probe
 * @pid: only the threads of this process, or 0 for any (not for
 *	tracepoints but "offcpu": the tasks that wait); ESRCH when there is
 *	no such process
 * @comm: only tasks of this name (/proc/PID/comm), or "" for any (not
 *	for tracepoints but "offcpu")
 * @depth: PCORE_WHAT_STACKS and PCORE_ATTACH_PROFILE: the innermost
 *	frames kept of each stack, 1 to 127, or 0 for the default (32); 0
 *	for the others (since ABI 3)
 * @hz: PCORE_ATTACH_PROFILE: samples per second on each CPU, 1 to 4000;
 *	0 for the others (since ABI 3)
 * @target: (ABI 5) the function ("vfs_read"; do_fork and sys_<name>
 *	resolve as for target=) or glob ("vfs_*"), the tracepoint, or for
 *	a uprobe the symbol (which only names it); "" for a profiler, and
 *	for the form of @name above
 * @what: (ABI 5) PCORE_WHAT_*; PCORE_WHAT_TIME for tracepoints
 * @arg: (ABI 5) PCORE_WHAT_ARG: the argument, 1 to 6; else 0
 * @unit: (ABI 5) PCORE_WHAT_ARG and PCORE_WHAT_RETVAL: the values' unit,
 *	1 to 15 characters without blank, ':' or ','; "" for "value"
 * @flags: (ABI 5) PCORE_ATTACH_BY_PID or PCORE_ATTACH_BY_CGROUP (not
 *	both), and for PCORE_ATTACH_KRETPROBE
 *	one of PCORE_ATTACH_MECH_* (a kernel without direct calls refuses
 *	PCORE_ATTACH_MECH_DIRECT: EOPNOTSUPP), or 0; PCORE_ATTACH_USTACK
 *	with PCORE_WHAT_STACKS; PCORE_ATTACH_USTACK and
 *	PCORE_ATTACH_NO_KTHREADS for PCORE_ATTACH_PROFILE and the tracepoint
 *	"offcpu" (with @target "" too)
 * @pad: zero
 * @reserved: zero
 *
 * Of @precision, @min, @max and @step, those @hist_kind does not use must
 * be zero (all of them for the default and log2).  @offset and @fd must
 * be zero for the kinds other than PCORE_ATTACH_UPROBE.  @what, @arg,
 * @unit and @flags must be zero when @target is "".  The rules of the
 * fields are those of the text (a glob takes PCORE_WHAT_TIME or
 * PCORE_WHAT_COUNT; PCORE_ATTACH_BY_PID and PCORE_ATTACH_BY_CGROUP do
 * not go with PCORE_WHAT_RETVAL or PCORE_WHAT_STACKS; a unit only with a value):
 * EINVAL and one log line naming the problem.
 *
 * PCORE_WHAT_GRAPH (PCORE_ATTACH_KRETPROBE only, one function, no
 * flags): the histogram "FUNC:graph" keyed by callee, FUNC's direct
 * callees only; its glob of indirect callees ("FUNC:graph:GLOB") goes in
 * the form of @name above (no @target), which has room for it.  A module
 * older than this kind refuses what 5 (EINVAL).
 *
 * PCORE_ATTACH_UPROBE: PCORE_WHAT_TIME (a uretprobe that times each
 * call), PCORE_WHAT_RETVAL (a uretprobe, the return value),
 * PCORE_WHAT_COUNT or PCORE_WHAT_ARG (a uprobe at the entry).  Every
 * kind but the tracepoint and the profiler takes PCORE_ATTACH_BY_PID: one
 * histogram per process, keyed by its pid and labelled with its name;
 * PCORE_ATTACH_BY_CGROUP likewise, per cgroup v2 (the "runqlat"
 * tracepoint takes either).
 * The probe holds the file's inode, not its path or mount: when the file
 * is deleted or its filesystem unmounted, the probe and its histogram go
 * away (since ABI version 2).
 *
 * PCORE_ATTACH_PROFILE: @name is the histogram's ("" for "profile"):
 * every CPU's samples, counted by stack (the kernel stack the sample
 * interrupted, "[user] COMM" or "[idle]"); @pid and @comm sample only
 * those tasks.  The histogram kind fields, @maxactive, @fd, @offset and
 * the probe fields must be zero.
 */
struct pcore_ioc_attach {
	char name[PCORE_UAPI_NAME_MAX];
	__u32 kind;
	__u32 maxactive;
	__u32 hist_kind;
	__u32 precision;
	__u64 min;
	__u64 max;
	__u64 step;
	__u64 offset;
	__s32 fd;
	__s32 pid;
	char comm[16];
	__u32 depth;
	__u32 hz;
	char target[PCORE_UAPI_NAME_MAX];
	__u32 what;
	__u32 arg;
	char unit[PCORE_UAPI_SHORT_MAX];
	__u32 flags;
	__u32 pad;
	__u64 reserved[2];
};

/*
 * PCORE_IOC_ATTACH_V4: the call of ABI 2 to 4, still taken.  Its struct
 * is the first PCORE_ATTACH_V4_SIZE bytes of struct pcore_ioc_attach: the
 * fields up to @hz, then 8 reserved bytes that must be zero (where
 * @target starts).  The probe is in @name, as target= takes it: as
 * PCORE_IOC_ATTACH with @target "".
 */
#define PCORE_ATTACH_V4_SIZE	216

#define PCORE_IOC_VERSION	_IOR(PCORE_IOC_MAGIC, 0x00, struct pcore_ioc_version)
#define PCORE_IOC_LIST		_IOWR(PCORE_IOC_MAGIC, 0x01, struct pcore_ioc_list)
#define PCORE_IOC_READ		_IOWR(PCORE_IOC_MAGIC, 0x02, struct pcore_ioc_read)
#define PCORE_IOC_RESET		_IOW(PCORE_IOC_MAGIC, 0x03, struct pcore_ioc_name)
#define PCORE_IOC_ATTACH	_IOW(PCORE_IOC_MAGIC, 0x04, struct pcore_ioc_attach)
#define PCORE_IOC_ATTACH_V4	_IOC(_IOC_WRITE, PCORE_IOC_MAGIC, 0x04, PCORE_ATTACH_V4_SIZE)
#define PCORE_IOC_DETACH	_IOW(PCORE_IOC_MAGIC, 0x05, struct pcore_ioc_name)
#define PCORE_IOC_ENABLE	_IOW(PCORE_IOC_MAGIC, 0x06, struct pcore_ioc_name)
#define PCORE_IOC_DISABLE	_IOW(PCORE_IOC_MAGIC, 0x07, struct pcore_ioc_name)

#endif /* _UAPI_PROBE_CORE_H */
