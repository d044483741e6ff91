// SPDX-License-Identifier: GPL-2.0
/*
 * Stacks: stacks=FUNC (and probectl attach --kprobe FUNC --stacks) count
 * the calls of FUNC by kernel stack.  The test module pcore_stackt calls
 * pcore_stackt_leaf() through two known chains, a given number of times
 * each: exactly two stacks, with exactly those counts, each listing its
 * chain, in the debugfs stacks file, through the ioctl (frames as text)
 * and in probectl's views (text, folded, JSON).  Depths cut stacks and
 * say so; an interval read moves the stacks out; bad input is refused
 * with one log line and leaves nothing behind.
 *
 * The folded output of the probectl case is printed between two marker
 * lines: make check hands it to the browser tests (the flame graph in
 * Chromium, speedscope).
 */
#include "pcore_ioctl.h"
#include "kselftest_harness.h"
#include <sys/prctl.h>

#define PCORE_CTL	"/pcore/bin/probectl"
#define OUT		"/tmp/pcore_stacks.ctl"
#define STACKT		"/sys/kernel/debug/pcore_stackt"
#define LEAF_DBG	PCORE_DBG "/pcore_stackt_leaf:stacks"

static char out[PCORE_BUF];
static char log_[65536];

static int ctl(const char * const *argv)
{
	return pcore_run(argv, NULL, OUT, out, sizeof(out));
}

#define CTL(...)	ctl((const char * const []){ PCORE_CTL, __VA_ARGS__, NULL })

static int stackt_run(const char *ab)
{
	return pcore_write(STACKT "/run", ab, strlen(ab));
}

/*
 * Do the lines of @block (one stack: frames one a line) name @funcs, in
 * order, each at the start of a line (after @indent), from the first?
 */
static bool chain(const char *block, const char *indent,
		  const char * const *funcs)
{
	const char *p = block;
	char want[128];
	int i;

	for (i = 0; funcs[i]; i++) {
		snprintf(want, sizeof(want), "%s%s+0x", indent, funcs[i]);
		if (strncmp(p, want, strlen(want)))
			return false;
		p = strchr(p, '\n');
		if (!p)
			return false;
		p++;
	}
	return true;
}

static const char * const chain_b[] = {
	"pcore_stackt_leaf", "pcore_stackt_b2", "pcore_stackt_b",
	"stackt_run_write", NULL
};
static const char * const chain_a[] = {
	"pcore_stackt_leaf", "pcore_stackt_a", "stackt_run_write", NULL
};

/*
 * READ of one key slot of @name (on @cpu, or -1 for all) with its frames
 * into @frames; the errno.
 */
static int rd_frames(int fd, const char *name, int cpu, unsigned int flags,
		     unsigned int slot, struct pcore_ioc_read *r,
		     struct pcore_ioc_bucket *b, char *frames, size_t room)
{
	pcore_rd_init(r, name, cpu, flags, slot, b);
	r->frames = (uintptr_t)frames;
	r->frames_size = room;
	memset(frames, 0xa5, PCORE_UAPI_FRAMES_MAX);
	memset(b, 0xa5, PCORE_MAXB * sizeof(*b));
	return pcore_ioc(fd, PCORE_IOC_READ, r);
}

/*
 * Did the READ leave every byte past what it says it wrote (frames_size
 * bytes of @frames, nbuckets of @b) as rd_frames() put it?
 */
static bool tail_untouched(const struct pcore_ioc_read *r, const char *frames,
			   const struct pcore_ioc_bucket *b)
{
	const unsigned char *p = (const unsigned char *)(b + r->nbuckets);
	size_t i;

	if (r->frames_size > PCORE_UAPI_FRAMES_MAX || r->nbuckets > PCORE_MAXB)
		return false;
	for (i = r->frames_size; i < PCORE_UAPI_FRAMES_MAX; i++)
		if ((unsigned char)frames[i] != 0xa5)
			return false;
	for (i = 0; i < (PCORE_MAXB - r->nbuckets) * sizeof(*b); i++)
		if (p[i] != 0xa5)
			return false;
	return true;
}

/*
 * pcore_stackt_leaf's stacks file, read into out[], starts with the line
 * @header, then a stack counted @count whose frames are @funcs.  A macro:
 * the checks are the test's.
 */
#define ASSERT_FIRST_STACK(header, count, funcs) do {			\
	ASSERT_LT(0, pcore_read(LEAF_DBG "/stacks", out, sizeof(out)));	\
	ASSERT_EQ(0, strncmp(out, header "stack ",			\
			     strlen(header "stack "))) TH_LOG("%s", out); \
	EXPECT_NE(NULL, strstr(out, " count " count "\n"))		\
		TH_LOG("%s", out);					\
	EXPECT_TRUE(chain(strchr(out + strlen(header), '\n') + 1, "  ",	\
			  funcs)) TH_LOG("%s", out);			\
} while (0)

PCORE_KMOD_FIXTURE(stk, "pcore_stackt", log_)

/*
 * stacks=pcore_stackt_leaf: 300 calls through one chain and 700 through
 * the other are two stacks, counted 700 and 300, the most counted first,
 * each with its chain from the probed function up.
 */
TEST_F_TIMEOUT(stk, param, PCORE_TIMEOUT_PATCHING)
{
	struct pcore_probe_line l;
	char *second;

	ASSERT_EQ(0, pcore_load("stacks=pcore_stackt_leaf"));
	ASSERT_EQ(0, pcore_probe_line("pcore_stackt_leaf:stacks", &l));
	EXPECT_STREQ("kprobe", l.kind);
	ASSERT_EQ(0, stackt_run("300 700"));
	ASSERT_FIRST_STACK("# 2 stacks, 0 dropped, depth 32\n", "700", chain_b);
	second = strstr(out, "\n\nstack ");
	ASSERT_NE(NULL, second) TH_LOG("%s", out);
	EXPECT_NE(NULL, strstr(second, " count 300\n")) TH_LOG("%s", out);
	EXPECT_TRUE(chain(strchr(second + 2, '\n') + 1, "  ", chain_a))
		TH_LOG("%s", out);
	EXPECT_EQ(NULL, strstr(second + 2, "\n\nstack ")) TH_LOG("%s", out);
	/* values recorded (stats) and handler calls (probes): 1000 each */
	EXPECT_EQ(1000, pcore_stat("pcore_stackt_leaf:stacks", "recorded"));
	ASSERT_EQ(0, pcore_probe_line("pcore_stackt_leaf:stacks", &l));
	EXPECT_EQ(1000, l.hits);

	/* an interval read moves the stacks out: the next ones start anew */
	ASSERT_LT(0, pcore_read(LEAF_DBG "/interval", out, sizeof(out)));
	EXPECT_NE(NULL, strstr(out, "keys: 2\n")) TH_LOG("%s", out);
	ASSERT_LT(0, pcore_read(LEAF_DBG "/stacks", out, sizeof(out)));
	EXPECT_STREQ("# 0 stacks, 0 dropped, depth 32\n", out);
	ASSERT_EQ(0, stackt_run("0 5"));
	ASSERT_LT(0, pcore_read(LEAF_DBG "/stacks", out, sizeof(out)));
	EXPECT_NE(NULL, strstr(out, "# 1 stacks, 0 dropped")) TH_LOG("%s", out);
	EXPECT_NE(NULL, strstr(out, " count 5\n")) TH_LOG("%s", out);
	ASSERT_EQ(0, pcore_unload());
}

/* stack_depth=2: the two innermost frames, and the mark of a cut stack. */
TEST_F_TIMEOUT(stk, depth, PCORE_TIMEOUT_PATCHING)
{
	static const char * const cut_b[] = {
		"pcore_stackt_leaf", "pcore_stackt_b2", NULL
	};

	ASSERT_EQ(0, pcore_load("target=pcore_stackt_leaf:stacks stack_depth=2"));
	ASSERT_EQ(0, stackt_run("3 7"));
	ASSERT_FIRST_STACK("# 2 stacks, 0 dropped, depth 2\n", "7", cut_b);
	EXPECT_NE(NULL, strstr(out, "[pcore_stackt]\n  [...]\n\n"))
		TH_LOG("%s", out);
	ASSERT_EQ(0, pcore_unload());
}

/*
 * probectl attach --stacks, and its views; the ioctl's frames for one key;
 * detach leaves nothing.
 */
TEST_F_TIMEOUT(stk, probectl, PCORE_TIMEOUT_PATCHING)
{
	static struct pcore_ioc_bucket b[PCORE_MAXB];
	static char frames[PCORE_UAPI_FRAMES_MAX];
	struct pcore_ioc_entry e;
	struct pcore_ioc_read r;
	unsigned int slot, seen = 0;
	char *p;
	int fd;

	ASSERT_EQ(0, pcore_load(NULL));
	ASSERT_EQ(0, CTL("attach", "--kprobe", "pcore_stackt_leaf", "--stacks"))
		TH_LOG("%s", out);
	ASSERT_EQ(0, stackt_run("300 700"));

	ASSERT_EQ(0, CTL("show", "pcore_stackt_leaf:stacks", "--folded"))
		TH_LOG("%s", out);
	/* root first: the syscall entry, then the chain down to the leaf */
	p = strstr(out, ";stackt_run_write [pcore_stackt];pcore_stackt_b [pcore_stackt];pcore_stackt_b2 [pcore_stackt];pcore_stackt_leaf [pcore_stackt] 700\n");
	EXPECT_NE(NULL, p) TH_LOG("%s", out);
	p = strstr(out, ";stackt_run_write [pcore_stackt];pcore_stackt_a [pcore_stackt];pcore_stackt_leaf [pcore_stackt] 300\n");
	EXPECT_NE(NULL, p) TH_LOG("%s", out);
	for (p = out; (p = strchr(p, '\n')); p++)
		seen++;
	EXPECT_EQ(2, seen) TH_LOG("%s", out);
	EXPECT_EQ(0, strncmp(out, "entry_SYSCALL_64", 16)) TH_LOG("%s", out);
	/* for the browser tests (scripts/check.sh takes it from the log) */
	printf("# PCORE-FILE-BEGIN stacks.folded\n%s# PCORE-FILE-END\n", out);
	fflush(stdout);

	ASSERT_EQ(0, CTL("show", "pcore_stackt_leaf:stacks", "--top", "1"))
		TH_LOG("%s", out);
	EXPECT_NE(NULL, strstr(out, "\nstacks: 2\n\nstack count 700\n  pcore_stackt_leaf+0x"))
		TH_LOG("%s", out);
	EXPECT_EQ(NULL, strstr(out, "count 300")) TH_LOG("%s", out);
	ASSERT_EQ(0, CTL("show", "pcore_stackt_leaf:stacks", "--json"))
		TH_LOG("%s", out);
	EXPECT_NE(NULL, strstr(out, "\"stacks\":2,\"dropped\":0,"))
		TH_LOG("%s", out);
	EXPECT_NE(NULL, strstr(out, "{\"count\":700,\"sum\":0,\"frames\":[\"pcore_stackt_leaf+0x"))
		TH_LOG("%s", out);

	/* the ioctl: each key in use comes with its frames as text */
	fd = open(PCORE_DEVICE, O_RDONLY | O_CLOEXEC);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, pcore_list_one(fd, "pcore_stackt_leaf:stacks", &e));
	EXPECT_TRUE(e.flags & PCORE_ENT_STACKS);
	EXPECT_STREQ("stack", e.key_name);
	for (slot = 0, seen = 0; slot < e.nkeys; slot++) {
		ASSERT_EQ(0, rd_frames(fd, "pcore_stackt_leaf:stacks", -1,
				       PCORE_READ_KEY, slot, &r, b, frames,
				       sizeof(frames)));
		if (!r.key_used) {
			EXPECT_EQ(0, r.nframes);
			EXPECT_EQ(1, r.frames_size);
			EXPECT_EQ(0, frames[0]);
			continue;
		}
		seen++;
		EXPECT_EQ(strlen(frames) + 1, r.frames_size);
		EXPECT_TRUE(chain(frames, "", r.count == 700 ? chain_b : chain_a))
			TH_LOG("%s", frames);
		EXPECT_LE(r.count == 700 ? 8 : 7, r.nframes);
	}
	EXPECT_EQ(2, seen);
	/* frames with the wrong room, or without PCORE_READ_KEY: EINVAL */
	EXPECT_EQ(EINVAL, rd_frames(fd, "pcore_stackt_leaf:stacks", -1,
				    PCORE_READ_KEY, 0, &r, b, frames,
				    sizeof(frames) - 1));
	EXPECT_EQ(EINVAL, rd_frames(fd, "pcore_stackt_leaf:stacks", -1, 0, 0, &r,
				    b, frames, sizeof(frames)));
	EXPECT_EQ(EINVAL, rd_frames(fd, "pcore_stackt_leaf:stacks", -1,
				    PCORE_READ_KEY, 0, &r, b, frames, 0));
	r.frames = 0;
	r.frames_size = sizeof(frames);
	r.count = 0;
	EXPECT_EQ(EINVAL, pcore_ioc(fd, PCORE_IOC_READ, &r));
	close(fd);

	ASSERT_EQ(0, CTL("detach", "pcore_stackt_leaf:stacks")) TH_LOG("%s", out);
	EXPECT_EQ(0, pcore_hist_dirs());
	ASSERT_EQ(0, pcore_unload());
}

/* A stack's frames as a folded line's would be: functions, no offsets. */
static void funcs_of(char *dst, size_t len, const char *frames)
{
	size_t n = 0;
	const char *p;

	dst[0] = '\0';
	for (p = frames; *p && n + 1 < len; p++) {
		if (*p == '+') {	/* skip "+0x../0x.." up to " [mod]" or EOL */
			while (*p && *p != ' ' && *p != '\n')
				p++;
			if (!*p)
				break;
		}
		dst[n++] = *p;
	}
	dst[n] = '\0';
}

#define PROF_STACKS	64

/*
 * profile=99: a busy loop in the test module, pinned to CPU 1 for 3 s, is
 * the top stack of CPU 1's samples, with at least 80 % of them.  Stacks
 * are compared as a flame graph shows them (functions without offsets):
 * each instruction of the loop is a stack of its own in the kernel's
 * table.  The loop calls the clock once per 200000 rounds, so little else
 * runs on CPU 1: the kernel's own work there (timers, RCU, kworkers) is a
 * few samples of about 300.  The profiler is disabled before the reads.
 */
TEST_F_TIMEOUT(stk, profile, PCORE_TIMEOUT_PATCHING)
{
	static struct pcore_ioc_bucket b[PCORE_MAXB];
	static char frames[PCORE_UAPI_FRAMES_MAX];
	static struct { char f[2048]; unsigned long long n; } st[PROF_STACKS];
	unsigned long long total = 0;
	unsigned int slot, ns = 0, i, top = 0;
	struct pcore_ioc_entry e;
	struct pcore_ioc_read r;
	struct pcore_probe_line l;
	int fd;

	if (pcore_possible_cpus() < 2)
		SKIP(return, "needs 2 CPUs");
	ASSERT_EQ(0, pcore_load("profile=99"));
	ASSERT_EQ(0, pcore_probe_line("profile", &l));
	EXPECT_STREQ("profile", l.kind);
	EXPECT_STREQ("99_Hz", l.symbol);
	fd = open(PCORE_DEVICE, O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, pcore_pin(1));
	ASSERT_EQ(0, pcore_name_ioc(fd, PCORE_IOC_RESET, "profile"));
	ASSERT_EQ(0, pcore_write(STACKT "/spin", "3000", 4));
	/* no more samples: reading 4096 slots on CPU 1 would be some */
	ASSERT_EQ(0, pcore_name_ioc(fd, PCORE_IOC_DISABLE, "profile"));
	ASSERT_EQ(0, pcore_list_one(fd, "profile", &e));
	for (slot = 0; slot < e.nkeys; slot++) {
		ASSERT_EQ(0, rd_frames(fd, "profile", 1, PCORE_READ_KEY, slot,
				       &r, b, frames, sizeof(frames)));
		if (!r.key_used || !r.count)
			continue;
		total += r.count;
		funcs_of(st[ns].f, sizeof(st[ns].f), frames);
		for (i = 0; i < ns && strcmp(st[i].f, st[ns].f); i++)
			;
		st[i].n += r.count;
		if (i == ns && ns < PROF_STACKS - 1)
			ns++;
	}
	close(fd);
	for (i = 0; i < ns; i++)
		if (st[i].n > st[top].n)
			top = i;
	TH_LOG("CPU 1: %llu samples, %u stacks; top %llu:\n%s", total, ns,
	       st[top].n, st[top].f);
	/* 99 Hz for 3 s: about 300; fewer when the host starves the vCPU */
	EXPECT_LE(100, total);
	EXPECT_GE(400, total);
	EXPECT_EQ(0, strncmp(st[top].f, "pcore_stackt_spin [pcore_stackt]\nstackt_spin_write [pcore_stackt]\n",
			     65)) TH_LOG("%s", st[top].f);
	EXPECT_LE(total * 8, st[top].n * 10);
	ASSERT_EQ(0, pcore_unload());
}

/* The number after the first @field ("\"hits\":") of @json, or ~0ULL. */
static unsigned long long json_num(const char *json, const char *field)
{
	const char *p = strstr(json, field);

	return p ? strtoull(p + strlen(field), NULL, 10) : ~0ULL;
}

/*
 * probectl profile -d: a profile that agrees with itself.  The profiler
 * samples both CPUs at 999 Hz for 1 s while probectl sleeps, then probectl
 * reads every one of the 4096 slots (one ioctl each, about 100 ms under
 * emulation, about 100 samples if the profiler still ran): the stacks it
 * prints add up exactly to the samples the profiler took (the entry's hits,
 * less those dropped), and none of them is probectl's own read.
 * About 2 s on cloud-6.1, 10 s on debug-6.1.
 */
TEST_F_TIMEOUT(stk, profile_consistent, PCORE_TIMEOUT_PATCHING)
{
	unsigned long long hits, dropped, sum = 0, n = 0;
	double t0 = pcore_now();
	const char *p;

	ASSERT_EQ(0, pcore_load(NULL));
	ASSERT_EQ(0, CTL("profile", "-F", "999", "-d", "1", "--json"))
		TH_LOG("%s", out);
	hits = json_num(out, "\"hits\":");
	dropped = json_num(out, "\"dropped\":");
	for (p = out; (p = strstr(p, "{\"count\":")); p++, n++)
		sum += strtoull(p + 9, NULL, 10);
	TH_LOG("%llu stacks: %llu samples, hits %llu, dropped %llu (%.1f s)",
	       n, sum, hits, dropped, pcore_now() - t0);
	EXPECT_LT(0, n) TH_LOG("%s", out);
	EXPECT_EQ(hits, sum + dropped) TH_LOG("%s", out);
	EXPECT_EQ(NULL, strstr(out, "pcore_ioc_read")) TH_LOG("%s", out);
	EXPECT_EQ(0, pcore_hist_dirs());	/* detached */
	ASSERT_EQ(0, pcore_unload());
}

/*
 * probectl's reads of a running profiler are not in the profile: a
 * profiler samples both CPUs at 999 Hz while probectl show reads its 4096
 * slots (one ioctl each, with a frame buffer allocated per read: about
 * 200 samples of pcore_ioc_read and its allocations on cloud-6.1 if they
 * were taken), then it is stopped and its stacks file read.  No stack has
 * a frame of the ioctls' work (pcore_ioc_*), and the stats file counts
 * the samples left out.  A sample at the very edge of a call (in
 * pcore_ioctl before its task is marked or after it is not) stays: at
 * most 5 % of those left out (0 or 1 of about 250 on cloud-6.1 and 6.12,
 * 3 to 22 of 7000 to 16000 on debug-6.1, whose KASAN checks make the
 * marking itself slow).
 * About 1 s on cloud-6.1, 18 s on debug-6.1.
 */
TEST_F_TIMEOUT(stk, profile_leaves_out_probectl, PCORE_TIMEOUT_PATCHING)
{
	unsigned long own, edge = 0;
	double t0 = pcore_now();
	char *p, *end, *q;
	int fd;

	ASSERT_EQ(0, pcore_load(NULL));
	ASSERT_EQ(0, CTL("profile", "-F", "999", "--name", "live"))
		TH_LOG("%s", out);
	ASSERT_EQ(0, CTL("show", "live", "--top", "1")) TH_LOG("%s", out);
	fd = open(PCORE_DEVICE, O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, pcore_name_ioc(fd, PCORE_IOC_DISABLE, "live"));
	close(fd);
	ASSERT_LT(0, pcore_read(PCORE_DBG "/live/stacks", out, sizeof(out)));
	/* a stack with such a frame: print it alone */
	q = strstr(out, "\n  pcore_ioc_");
	for (p = q; p && p > out && strncmp(p, "\nstack ", 7); p--)
		;
	end = q ? strstr(q, "\nstack ") : NULL;
	if (end)
		*end = 0;
	EXPECT_EQ(NULL, q) TH_LOG("%s", p);
	if (end)
		*end = '\n';
	/* the edges: the stacks through pcore_ioctl, and their counts */
	for (p = out; (p = strstr(p, "\nstack ")); p++) {
		end = strstr(p + 1, "\nstack ");
		q = strstr(p, "\n  pcore_ioctl+");
		if (q && (!end || q < end))
			edge += strtoul(strstr(p, " count ") + 7, NULL, 10);
	}
	ASSERT_LT(0, pcore_read(PCORE_DBG "/live/stats", out, sizeof(out)));
	p = strstr(out, "\nown_samples_left_out: ");
	ASSERT_NE(NULL, p) TH_LOG("%s", out);
	own = strtoul(p + 23, NULL, 10);
	TH_LOG("own samples left out: %lu, at a call's edge: %lu (%.1f s)",
	       own, edge, pcore_now() - t0);
	EXPECT_LT(0, own) TH_LOG("%s", out);
	EXPECT_GE(own, edge * 20);
	ASSERT_EQ(0, CTL("detach", "live")) TH_LOG("%s", out);
	ASSERT_EQ(0, pcore_unload());
}

/*
 * A frame where an interrupt stopped the code below it is that code's
 * instruction, not a return address: at a function's first instruction
 * it is printed as that function (+0x0), not as the end of the function
 * before it in memory.  A stacks kprobe on the tick (update_process_times,
 * in hard interrupt context on every kernel here) while this CPU calls
 * pcore_stackt_a() and pcore_stackt_leaf() in a loop for 1 s: under
 * emulation an interrupt is taken between translated blocks, and a
 * function's start begins one, so about a third of the ticks stop the
 * loop at the first instruction of one of the two (a return address is
 * never printed at +0x0): the stacks are read after each million calls
 * (about 1 s of the loop on cloud-6.1), until one is seen, for up to 20 s.  Before the fix such frames read
 * "pcore_stackt_b+0x40/0x40", say, and profile_leaves_out_probectl
 * failed one boot in ten on debug-6.1 with "pcore_ioc_list+0x8f0/0x8f0"
 * for the first instruction of pcore_ioctl().
 * About 1 s on cloud-6.1.
 */
TEST_F_TIMEOUT(stk, interrupted_frame_is_its_ip, PCORE_TIMEOUT_PATCHING)
{
	double t0 = pcore_now();
	bool seen = false;
	int writes = 0;

	ASSERT_EQ(0, pcore_load(NULL));
	ASSERT_EQ(0, CTL("attach", "--kprobe", "update_process_times",
			 "--stacks")) TH_LOG("%s", out);
	/* until one is seen, or 20 s */
	while (!seen && pcore_now() - t0 < 20) {
		ASSERT_EQ(0, stackt_run("1000000 0"));
		writes++;
		ASSERT_LT(0, pcore_read(PCORE_DBG "/update_process_times:stacks/stacks",
					out, sizeof(out)));
		seen = strstr(out, "\n  pcore_stackt_a+0x0/") ||
		       strstr(out, "\n  pcore_stackt_leaf+0x0/");
	}
	EXPECT_TRUE(seen) TH_LOG("%s", out);
	TH_LOG("%d writes of 1000000 calls in %.1f s", writes, pcore_now() - t0);
	ASSERT_EQ(0, CTL("detach", "update_process_times:stacks"))
		TH_LOG("%s", out);
	ASSERT_EQ(0, pcore_unload());
}

/*
 * The frames of one stack's text, one a line after @indent, up to an empty
 * line or the end; the "[...]" of a cut stack is no frame.  -1 when a line
 * does not start with @indent (a line broken in two).
 */
static int frame_lines(const char *text, const char *indent)
{
	size_t il = strlen(indent);
	const char *p;
	int n = 0;

	for (p = text; *p && *p != '\n'; p = strchr(p, '\n') + 1) {
		if (!strchr(p, '\n') || strncmp(p, indent, il) ||
		    p[il] == ' ' || p[il] == '\n')
			return -1;
		if (strncmp(p + il, "[...]\n", 6))
			n++;
	}
	return n;
}

/* Slots a stack looks at from its key: PCORE_KEY_PROBES in hist.c. */
#define KEY_PROBES	32

/* The comm of the spinner, and its frame as every reader shows it. */
#define UCOMM		"p q\nr"
#define UFRAME		"[user] p_q_r\n"

/*
 * A task named UCOMM that spins in user space until killed (or until its
 * parent dies); its pid, or -1.
 */
static pid_t spinner(void)
{
	int p[2];
	pid_t pid;
	char c;

	if (pipe(p))
		return -1;
	pid = fork();
	if (!pid) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		prctl(PR_SET_NAME, UCOMM);
		if (write(p[1], "x", 1) != 1)
			_exit(1);
		for (;;)
			__asm__ volatile("" ::: "memory");
	}
	close(p[1]);
	if (pid > 0 && read(p[0], &c, 1) != 1) {
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
		pid = -1;
	}
	close(p[0]);
	return pid;
}

/*
 * Samples of a task in user space are one frame, "[user] COMM", at every
 * depth: the smallest (1 and 2, less than the three words that frame
 * takes in a slot without a process), 3 and the largest; then the
 * process, "[proc] PID COMM" (a profiler's stacks name it).  A profiler
 * (probectl profile --depth D --pid) samples a task named "p q\nr" that
 * spins in user space; each reader shows no more frames than the depth
 * and the process, and the comm whole, as one word (p_q_r, as the keys
 * file shows a label): the debugfs
 * stacks file, the ioctl's frames (READ_KEY of each stack's slots, and
 * READ_KEY | READ_RESET, which write exactly frames_size bytes of the
 * buffer and nbuckets buckets), probectl show (at depth 1), and the
 * interval file (a harvest).  On the debug kernel, KASAN checks that no
 * reader or writer goes past a slot or a buffer.
 */
TEST_F_TIMEOUT(stk, user_depth, PCORE_TIMEOUT_PATCHING)
{
	static const char * const depths[] = { "1", "2", "3", "127" };
	static struct pcore_ioc_bucket b[PCORE_MAXB];
	static char frames[PCORE_UAPI_FRAMES_MAX], want[PCORE_UAPI_FRAMES_MAX];
	struct pcore_ioc_entry e;
	struct pcore_ioc_read r;
	unsigned int d, slot, depth, users, wantn = 0, keys[64], nk, k, i;
	int fd, n, rslot, tries, found;
	char pid[16], *p, ustk[64], ublk[80];
	pid_t child;

	ASSERT_EQ(0, pcore_load(NULL));
	fd = open(PCORE_DEVICE, O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, fd);
	for (d = 0; d < ARRAY_SIZE(depths); d++) {
		depth = atoi(depths[d]);
		child = spinner();
		ASSERT_LT(0, child);
		snprintf(pid, sizeof(pid), "%d", child);
		/* the spinner's stack in user mode, and as a block of debugfs */
		snprintf(ustk, sizeof(ustk), UFRAME "[proc] %d p_q_r\n", child);
		snprintf(ublk, sizeof(ublk), "\n  " UFRAME "  [proc] %d p_q_r\n\n",
			 child);
		ASSERT_EQ(0, CTL("profile", "-F", "1000", "--depth", depths[d],
				 "--pid", pid, "--name", "ustk")) TH_LOG("%s", out);
		/* a sample in user space: about 1 ms away */
		for (tries = 0; tries < 100; tries++) {
			usleep(20000);
			ASSERT_LT(0, pcore_read(PCORE_DBG "/ustk/stacks", out,
						sizeof(out)));
			if (strstr(out, "\n  [user] "))
				break;
		}
		ASSERT_EQ(0, pcore_name_ioc(fd, PCORE_IOC_DISABLE, "ustk"));
		kill(child, SIGKILL);
		waitpid(child, NULL, 0);

		/* debugfs: every line a frame, the depth and [proc] at most */
		ASSERT_LT(0, pcore_read(PCORE_DBG "/ustk/stacks", out, sizeof(out)));
		p = strchr(out, '\n');
		ASSERT_NE(NULL, p);
		EXPECT_EQ(depth, strtoul(strstr(out, "depth ") + 6, NULL, 10));
		for (users = 0; (p = strstr(p, "\nstack ")); users++) {
			p = strchr(p + 1, '\n') + 1;
			n = frame_lines(p, "  ");
			EXPECT_LE(0, n) TH_LOG("depth %u:\n%s", depth, out);
			EXPECT_GE(depth + 1, n) TH_LOG("depth %u:\n%s", depth, out);
		}
		EXPECT_LT(0, users);
		EXPECT_NE(NULL, strstr(out, ublk))
			TH_LOG("depth %u:\n%s", depth, out);

		/*
		 * The ioctl: the frames of slot 0 (in use or not) and of each
		 * stack of the stacks file; no byte past frames_size written.
		 * A stack's slot is one of the PCORE_KEY_PROBES from its key
		 * (see pcore_stack_slot()): reading those, not all 4096 slots,
		 * keeps the test short on the debug kernel.
		 */
		for (nk = 0, p = out; nk < ARRAY_SIZE(keys) &&
				     (p = strstr(p, "\nstack ")); p++)
			keys[nk++] = strtoul(p + 7, NULL, 16);
		ASSERT_EQ(0, pcore_list_one(fd, "ustk", &e));
		ASSERT_EQ(0, rd_frames(fd, "ustk", -1, PCORE_READ_KEY, 0, &r,
				       b, frames, sizeof(frames)));
		EXPECT_TRUE(tail_untouched(&r, frames, b))
			TH_LOG("slot 0: frames_size %u", r.frames_size);
		EXPECT_EQ(strlen(frames) + 1, r.frames_size);
		rslot = -1;
		users = 0;
		for (k = 0; k < nk; k++) {
			for (i = 0, found = 0; i < KEY_PROBES; i++) {
				slot = (keys[k] + i) & (e.nkeys - 1);
				ASSERT_EQ(0, pcore_rd(fd, "ustk", -1,
						      PCORE_READ_KEY, slot, &r, b));
				if (!r.key_used || r.key != keys[k])
					continue;
				found++;
				ASSERT_EQ(0, rd_frames(fd, "ustk", -1,
						       PCORE_READ_KEY, slot, &r,
						       b, frames, sizeof(frames)));
				EXPECT_TRUE(tail_untouched(&r, frames, b))
					TH_LOG("depth %u slot %u: frames_size %u",
					       depth, slot, r.frames_size);
				EXPECT_EQ(strlen(frames) + 1, r.frames_size);
				n = frame_lines(frames, "");
				EXPECT_EQ(n, r.nframes) TH_LOG("%s", frames);
				EXPECT_GE(depth + 1, r.nframes) TH_LOG("%s", frames);
				if (!strcmp(frames, ustk)) {
					EXPECT_EQ(2, r.nframes);
					users++;
				}
				/* to reset: the [user] stack, or else any */
				if (rslot < 0 || !strcmp(frames, ustk)) {
					rslot = slot;
					strcpy(want, frames);
					wantn = r.nframes;
				}
			}
			EXPECT_LE(1, found) TH_LOG("stack %08x: no slot", keys[k]);
		}
		EXPECT_LE(1, users) TH_LOG("depth %u: no [user] frame", depth);

		/*
		 * probectl show reads each of the 4096 slots with its
		 * frames: at the smallest depth only (the debug kernel is
		 * slow), the one that overran the reader's buffer.
		 */
		if (depth == 1) {
			ASSERT_EQ(0, CTL("show", "ustk")) TH_LOG("%s", out);
			ublk[strlen(ublk) - 1] = '\0';	/* maybe the last */
			EXPECT_NE(NULL, strstr(out, ublk + 1)) TH_LOG("%s", out);
			EXPECT_EQ(NULL, strstr(out, "p q")) TH_LOG("%s", out);
		}

		/*
		 * A reset of one slot: the text and nframes of the read
		 * (the profiler is disabled), and no more bytes written.
		 */
		ASSERT_LE(0, rslot);
		ASSERT_EQ(0, rd_frames(fd, "ustk", -1,
				       PCORE_READ_KEY | PCORE_READ_RESET,
				       rslot, &r, b, frames, sizeof(frames)));
		EXPECT_STREQ(want, frames);
		EXPECT_EQ(strlen(want) + 1, r.frames_size);
		EXPECT_EQ(wantn, r.nframes);
		EXPECT_TRUE(tail_untouched(&r, frames, b))
			TH_LOG("reset: frames_size %u", r.frames_size);
		/* and again: no stack now */
		ASSERT_EQ(0, rd_frames(fd, "ustk", -1,
				       PCORE_READ_KEY | PCORE_READ_RESET,
				       rslot, &r, b, frames, sizeof(frames)));
		EXPECT_EQ(0, r.key_used);
		EXPECT_EQ(1, r.frames_size);
		EXPECT_EQ(0, frames[0]);
		EXPECT_TRUE(tail_untouched(&r, frames, b))
			TH_LOG("reset: frames_size %u", r.frames_size);
		/* the interval file harvests whatever came since */
		ASSERT_LT(0, pcore_read(PCORE_DBG "/ustk/interval", out,
					sizeof(out)));
		ASSERT_EQ(0, CTL("detach", "ustk")) TH_LOG("%s", out);
	}
	close(fd);
	ASSERT_EQ(0, pcore_unload());
}

/*
 * The block of the stacks file whose frames include @frame: its count and
 * sum.  Returns 0, or -1 when no stack has that frame.
 */
static int stack_with(const char *text, const char *frame,
		      unsigned long long *count, unsigned long long *sum)
{
	const char *p = strstr(text, frame), *head;

	if (!p)
		return -1;
	for (head = p; head > text && strncmp(head, "\nstack ", 7); head--)
		;
	if (strncmp(head, "\nstack ", 7))
		return -1;
	*sum = 0;
	return sscanf(head, "\nstack %*x count %llu sum %llu", count, sum) >= 1 ?
	       0 : -1;
}

/* Does @s occur in [@blk, @end) (@end NULL: to the end of the text)? */
static bool block_has(const char *blk, const char *end, const char *s)
{
	const char *p = strstr(blk, s);

	return p && (!end || p < end);
}

/*
 * tracepoints=offcpu: 10 naps of 50 ms in a known path are one stack
 * (schedule ... msleep, pcore_stackt_nap) with at least 10 waits and
 * about 500 ms off CPU.  At least 10, not exactly: msleep() sleeps again
 * when woken early, and a task can get a stale wakeup meant for an
 * earlier wait (a lock's deferred wake_q); the debug kernel once counted
 * 11 waits for the 10 naps, 544 ms.  At least 500 ms: each nap sleeps at
 * least 50 ms, however many waits it takes.  At most
 * 1000 ms: msleep(50) is 14 jiffies (56 ms at HZ=250, Debian's), and an
 * emulated CPU that the host shares with another VM may take some tens of
 * ms more to run the woken task; 100 ms per nap is far above both.
 */
TEST_F_TIMEOUT(stk, offcpu, PCORE_TIMEOUT_PATCHING)
{
	unsigned long long count, sum;
	char *line, *end;

	ASSERT_EQ(0, pcore_load("tracepoints=offcpu"));
	ASSERT_EQ(0, pcore_write(STACKT "/nap", "10", 2));
	ASSERT_LT(0, pcore_read(PCORE_DBG "/offcpu/stacks", out, sizeof(out)));
	ASSERT_EQ(0, stack_with(out, "\n  pcore_stackt_nap+0x", &count, &sum))
		TH_LOG("%s", out);
	TH_LOG("the naps' stack: %llu waits, %llu ns off CPU", count, sum);
	EXPECT_LE(10, count) TH_LOG("%s", out);
	EXPECT_LE(500000000ULL, sum) TH_LOG("%s", out);
	EXPECT_GE(1000000000ULL, sum) TH_LOG("%s", out);
	EXPECT_NE(NULL, strstr(out, "  msleep+0x")) TH_LOG("%s", out);

	/* probectl's folded lines weigh a stack by its time, root first */
	ASSERT_EQ(0, CTL("show", "offcpu", "--folded")) TH_LOG("%s", out);
	line = strstr(out, ";stackt_nap_write [pcore_stackt];pcore_stackt_nap [pcore_stackt];msleep;");
	ASSERT_NE(NULL, line) TH_LOG("%s", out);
	end = strchr(line, '\n');
	ASSERT_NE(NULL, end);
	while (end[-1] != ' ')
		end--;
	EXPECT_EQ(sum, strtoull(end, NULL, 10)) TH_LOG("%s", out);
	ASSERT_EQ(0, pcore_unload());
}

/* Reads the offcpu timer's row of probe_core's timers file. */
static int offcpu_timer(unsigned long long *measured,
			unsigned long long *evicted,
			unsigned long long *exited)
{
	static char buf[4096];
	unsigned long long discarded, unmatched;
	const char *row;

	if (pcore_read(PCORE_DBG "/timers", buf, sizeof(buf)) < 0)
		return -1;
	row = strstr(buf, "offcpu task ");
	if (!row || (row != buf && row[-1] != '\n'))
		return -1;
	return sscanf(row, "offcpu task %llu %llu %llu %llu %llu", measured,
		      &discarded, &unmatched, evicted, exited) == 5 ? 0 : -1;
}

/*
 * tracepoints=offcpu while more tasks exit than its table holds (a table
 * of 256, offcpu_tasks=256), and one task dozes in pcore_stackt_doze() all
 * along.  A task's last switch comes after its exit dropped its stamps:
 * it must stamp nothing.  (It did: each exit left a stamp that nothing
 * consumes, the table filled, and new stamps evicted the oldest, the
 * dozing task's, the very wait offcpu is there to show.)  So: nothing
 * evicted, every exit accounted as exited, and the doze recorded under
 * its stack, at least as long as the exits took.  Four times the table,
 * not only a little more: the doze's own window is full then.  Not a
 * smaller table: the live tasks that wait meanwhile (kernel threads) take
 * slots too.  About 0.5 s on cloud-6.1.
 */
#define OFFCPU_TASKS	256
#define OFFCPU_EXITS	(4 * OFFCPU_TASKS)

TEST_F_TIMEOUT(stk, offcpu_exits_leave_no_stamps, PCORE_TIMEOUT_PATCHING)
{
	unsigned long long count, sum, measured, evicted, exited;
	char path[64], wchan[64];
	double t0, t1;
	pid_t dozer, pid;
	int i, st, tries;

	ASSERT_EQ(0, pcore_load("tracepoints=offcpu offcpu_tasks=256"));
	dozer = fork();
	ASSERT_LE(0, dozer);
	if (!dozer)
		_exit(pcore_write(STACKT "/doze", "600000", 6) ? 1 : 0);
	/* Asleep in the doze: stamped before the first exit. */
	snprintf(path, sizeof(path), "/proc/%d/wchan", dozer);
	for (tries = 0; tries < 1000; tries++) {
		if (pcore_read(path, wchan, sizeof(wchan)) > 0 &&
		    strstr(wchan, "msleep"))
			break;
		usleep(10000);
	}
	ASSERT_GT(1000, tries) TH_LOG("the dozer never slept: %s", wchan);
	t0 = pcore_now();
	for (i = 0; i < OFFCPU_EXITS; i++) {
		pid = vfork();
		if (!pid)
			_exit(0);
		ASSERT_LT(0, pid);
		ASSERT_EQ(pid, waitpid(pid, &st, 0));
	}
	t1 = pcore_now();
	ASSERT_EQ(0, kill(dozer, SIGKILL));
	ASSERT_EQ(dozer, waitpid(dozer, &st, 0));
	ASSERT_TRUE(WIFSIGNALED(st));
	TH_LOG("%d exits in %.1f s", OFFCPU_EXITS, t1 - t0);

	ASSERT_EQ(0, offcpu_timer(&measured, &evicted, &exited));
	TH_LOG("offcpu timer: measured %llu evicted %llu exited %llu",
	       measured, evicted, exited);
	EXPECT_EQ(0ULL, evicted);
	EXPECT_LE((unsigned long long)OFFCPU_EXITS, exited);
	ASSERT_LT(0, pcore_read(PCORE_DBG "/offcpu/stacks", out, sizeof(out)));
	ASSERT_EQ(0, stack_with(out, "\n  pcore_stackt_doze+0x", &count, &sum))
		TH_LOG("the doze is not recorded: %s", out);
	EXPECT_LE(1ULL, count);
	EXPECT_LE((unsigned long long)((t1 - t0) * 1e9), sum);
	ASSERT_EQ(0, pcore_unload());
}

/* Ten nanosleeps of 20 ms. */
static int ten_sleeps(int k, void *unused)
{
	struct timespec ts = { 0, 20000000 };
	int i;

	for (i = 0; i < 10; i++)
		nanosleep(&ts, NULL);
	return 0;
}

/*
 * tracepoints=offcpu with kretprobes on functions that tasks sleep in
 * (target=pcore_stackt_nap,hrtimer_nanosleep): a sleeping task has a
 * kretprobe's return trampoline on its stack.  The kernel refuses to
 * unwind through it in a task that is not current and is runnable (the
 * task a switch puts back): "WARNING: ... rethook_find_ret_addr", a
 * crash with panic_on_warn, and on the debug kernel a lockdep report
 * and a hang (printing from inside __schedule).  No kernel report, and
 * the stacks right: the naps' stack goes through pcore_stackt_nap up to
 * stackt_nap_write (its return address, behind the trampoline), the
 * nanosleeps' through hrtimer_nanosleep.  About 2 s on cloud-6.1.
 */
TEST_F_TIMEOUT(stk, offcpu_under_kretprobes, PCORE_TIMEOUT_PATCHING)
{
	unsigned long long count, sum;
	pid_t pid;
	int st;

	ASSERT_EQ(0, pcore_load("tracepoints=offcpu target=pcore_stackt_nap,hrtimer_nanosleep"));
	pid = pcore_spawn(ten_sleeps, NULL);
	ASSERT_LE(0, pid);
	ASSERT_EQ(0, pcore_write(STACKT "/nap", "10", 2));
	ASSERT_EQ(pid, waitpid(pid, &st, 0));
	ASSERT_TRUE(WIFEXITED(st) && !WEXITSTATUS(st));
	EXPECT_EQ(0, pcore_kmsg_bad(self->kmsg, log_, sizeof(log_)))
		TH_LOG("kernel log:\n%s", log_);

	ASSERT_LT(0, pcore_read(PCORE_DBG "/offcpu/stacks", out, sizeof(out)));
	ASSERT_EQ(0, stack_with(out, "\n  pcore_stackt_nap+0x", &count, &sum))
		TH_LOG("%s", out);
	EXPECT_LE(10ULL, count) TH_LOG("%s", out);
	EXPECT_LE(500000000ULL, sum) TH_LOG("%s", out);
	EXPECT_NE(NULL, strstr(out, "\n  stackt_nap_write+0x")) TH_LOG("%s", out);
	ASSERT_EQ(0, stack_with(out, "\n  hrtimer_nanosleep+0x", &count, &sum))
		TH_LOG("%s", out);
	EXPECT_LE(10ULL, count) TH_LOG("%s", out);
	EXPECT_LE(200000000ULL, sum) TH_LOG("%s", out);
	ASSERT_EQ(0, pcore_unload());
}

/*
 * The naps' stack starts where the task left its CPU, __schedule(),
 * whoever else is on sched_switch: with a second handler there (the
 * cpuhists module), the tracepoint calls its handlers through its
 * iterator, __traceiter_sched_switch(), which is no frame of the wait.
 */
TEST_F_TIMEOUT(stk, offcpu_stack_starts_in_schedule, PCORE_TIMEOUT_PATCHING)
{
	unsigned long long count, sum;
	const char *p, *head;

	ASSERT_EQ(0, pcore_load("tracepoints=offcpu"));
	ASSERT_EQ(0, pcore_mod_load("cpuhists", NULL));
	ASSERT_EQ(0, pcore_write(STACKT "/nap", "3", 1));
	ASSERT_LT(0, pcore_read(PCORE_DBG "/offcpu/stacks", out, sizeof(out)));
	ASSERT_EQ(0, pcore_mod_unload_wait("cpuhists"));
	ASSERT_EQ(0, stack_with(out, "\n  pcore_stackt_nap+0x", &count, &sum))
		TH_LOG("%s", out);
	EXPECT_LE(3ULL, count) TH_LOG("%s", out);
	p = strstr(out, "\n  pcore_stackt_nap+0x");
	for (head = p; strncmp(head, "\nstack ", 7); head--)
		;
	head = strchr(head + 1, '\n');
	ASSERT_NE(NULL, head);
	EXPECT_EQ(0, strncmp(head, "\n  __schedule+0x", 16))
		TH_LOG("%.*s", (int)(p - head), head);
	EXPECT_EQ(NULL, strstr(out, "__traceiter_sched_switch")) TH_LOG("%s", out);
	ASSERT_EQ(0, pcore_unload());
}

/*
 * The same at stack_depth=1, where the one frame kept is the iterator's
 * (the unwind is cut there): it stays, as without a process, rather than
 * leaving a stack of no kernel frame.  Every stack is three lines: one
 * kernel frame, "[...]" and its process; the naps are the test's.  (The
 * iterator was dropped whenever the stack had more than one word, and
 * the process's three words made it so: "[...]" and "[proc]" alone.)
 */
TEST_F_TIMEOUT(stk, offcpu_depth1_keeps_a_frame, PCORE_TIMEOUT_PATCHING)
{
	unsigned long long naps = 0, count;
	const char *blk, *end, *p;
	unsigned int lines;
	char want[64];

	ASSERT_EQ(0, pcore_load("tracepoints=offcpu stack_depth=1"));
	ASSERT_EQ(0, pcore_mod_load("cpuhists", NULL));
	ASSERT_EQ(0, pcore_write(STACKT "/nap", "3", 1));
	ASSERT_LT(0, pcore_read(PCORE_DBG "/offcpu/stacks", out, sizeof(out)));
	ASSERT_EQ(0, pcore_mod_unload_wait("cpuhists"));
	snprintf(want, sizeof(want), "\n  [proc] %d ", getpid());
	for (blk = strstr(out, "\nstack "); blk; blk = end) {
		end = strstr(blk + 1, "\nstack ");
		p = strchr(blk + 1, '\n');
		ASSERT_NE(NULL, p);
		for (lines = 0; p && p[1] == ' ' && p[2] == ' ';
		     p = strchr(p + 1, '\n'))
			lines++;
		EXPECT_EQ(3U, lines)
			TH_LOG("%.*s", end ? (int)(end - blk) : (int)strlen(blk), blk);
		p = strchr(strchr(blk + 1, '\n') + 1, '\n');
		EXPECT_EQ(0, strncmp(p, "\n  [...]\n  [proc] ", 18))
			TH_LOG("%.*s", end ? (int)(end - blk) : (int)strlen(blk), blk);
		if (block_has(blk, end, want) &&
		    sscanf(blk, "\nstack %*x count %llu", &count) == 1)
			naps += count;
	}
	EXPECT_LE(3ULL, naps) TH_LOG("%s", out);
	ASSERT_EQ(0, pcore_unload());
}

/*
 * The same through the API, as a handler module may do it: the stack of
 * the task a switch puts back, pcore_hist_add_task_stack() of next
 * (pcore_apitest case=task_stack), with a kretprobe on pcore_stackt_nap.
 * The kernel does not let that stack be walked through the trampoline
 * (it warned, as above): no kernel report; the naps' waits are dropped,
 * counted, not recorded under a stack cut at the trampoline.  A task
 * preempted in pcore_stackt_nap()'s ftrace trampoline, before the
 * kretprobe's entry hooked its return, has no return pending: its stack
 * is walked and may show pcore_stackt_nap (rt-6.12 did, once: an
 * interrupt at pcore_stackt_nap+0x5); a nap's sleep (msleep) never.
 */
TEST_F_TIMEOUT(stk, task_stack_under_kretprobes, PCORE_TIMEOUT_PATCHING)
{
	unsigned int nstacks = 0, dropped = 0;
	const char *blk, *end;
	int got;

	ASSERT_EQ(0, pcore_load("target=pcore_stackt_nap"));
	ASSERT_EQ(0, pcore_mod_load("pcore_apitest", "case=task_stack"));
	ASSERT_EQ(0, pcore_write(STACKT "/nap", "5", 1));
	ASSERT_LT(0, pcore_read(PCORE_DBG "/pcore_apitest/offstk/stacks", out,
				sizeof(out)));
	ASSERT_EQ(0, pcore_mod_unload_wait("pcore_apitest"));
	EXPECT_EQ(0, pcore_kmsg_bad(self->kmsg, log_, sizeof(log_)))
		TH_LOG("kernel log:\n%s", log_);
	got = sscanf(out, "# %u stacks, %u dropped", &nstacks, &dropped);
	ASSERT_EQ(2, got) TH_LOG("%s", out);
	EXPECT_LE(5U, dropped) TH_LOG("%s", out);
	EXPECT_LT(0U, nstacks) TH_LOG("%s", out);
	/* No stack of a sleep inside a nap: one stack a block. */
	for (blk = strstr(out, "\nstack "); blk; blk = end) {
		end = strstr(blk + 1, "\nstack ");
		EXPECT_FALSE(block_has(blk, end, "pcore_stackt_nap") &&
			     block_has(blk, end, "msleep"))
			TH_LOG("%.*s", end ? (int)(end - blk) : (int)strlen(blk), blk);
	}
	ASSERT_EQ(0, pcore_unload());
}

/* Bad input: refused with one log line naming it; nothing left behind. */
TEST_F_TIMEOUT(stk, bad, PCORE_TIMEOUT_PATCHING)
{
	static const struct pcore_bad_load bad[] = {
		{ "stacks=pcore_stackt_leaf stack_depth=0", EINVAL,
		  "stack_depth=0: must be 1 to 127 frames" },
		{ "stacks=pcore_stackt_leaf stack_depth=128", EINVAL,
		  "stack_depth=128: must be 1 to 127 frames" },
		{ "tracepoints=offcpu offcpu_tasks=1", EINVAL,
		  "offcpu_tasks=1: must be 2 to 65536" },
		{ "tracepoints=offcpu offcpu_tasks=65537", EINVAL,
		  "offcpu_tasks=65537: must be 2 to 65536" },
		{ "stacks=pcore_no_such_fn", ENOENT,
		  "pcore_no_such_fn:stacks: no such kernel function pcore_no_such_fn" },
		{ "target=pcore_stackt_leaf:stacks:by=pid", EINVAL,
		  "':by=pid' is not for ':stacks'" },
		{ "target=pcore_stackt_*:stacks", EINVAL,
		  "a glob takes no suffix but ':count'" },
		{ "stacks=pcore_stackt_leaf,pcore_stackt_leaf", EINVAL,
		  "stacks=pcore_stackt_leaf:stacks: given twice" },
	};
	struct pcore_ioc_attach a;
	int fd;

	PCORE_EXPECT_BAD_LOADS(bad, log_);

	PCORE_LOAD_OPEN(NULL, fd);
	pcore_att_init(&a, "pcore_stackt_leaf:stacks", PCORE_ATTACH_KRETPROBE, 0);
	a.depth = 128;
	EXPECT_EQ(EINVAL, pcore_ioc(fd, PCORE_IOC_ATTACH, &a));
	kmsg_collect(self->kmsg, log_, sizeof(log_));
	EXPECT_NE(NULL, strstr(log_, "hist pcore_stackt_leaf:stacks: depth must be 1 to 127 frames"))
		TH_LOG("%s", log_);
	/* a depth is for :stacks and profilers only, hz for profilers */
	pcore_att_init(&a, "pcore_stackt_leaf:count", PCORE_ATTACH_KRETPROBE, 0);
	a.depth = 8;
	EXPECT_EQ(EINVAL, pcore_ioc(fd, PCORE_IOC_ATTACH, &a));
	pcore_att_init(&a, "pcore_stackt_leaf:stacks", PCORE_ATTACH_KRETPROBE, 0);
	a.hz = 99;
	EXPECT_EQ(EINVAL, pcore_ioc(fd, PCORE_IOC_ATTACH, &a));
	close(fd);
	EXPECT_EQ(2, CTL("attach", "--kprobe", "pcore_stackt_leaf", "--stacks",
			 "--depth", "0"));
	EXPECT_EQ(2, CTL("attach", "--kprobe", "pcore_stackt_leaf", "--stacks",
			 "--depth", "128"));
	EXPECT_EQ(1, CTL("attach", "--kprobe", "pcore_no_such_fn", "--stacks"));
	EXPECT_NE(NULL, strstr(out, "no function")) TH_LOG("%s", out);
	EXPECT_EQ(0, pcore_hist_dirs());
	ASSERT_EQ(0, pcore_read(PCORE_DBG "/probes", out, sizeof(out)) < 0);
	EXPECT_EQ(NULL, strstr(out, "stacks")) TH_LOG("%s", out);
}

TEST_HARNESS_MAIN
