// SPDX-License-Identifier: GPL-2.0
/*
 * mechanism=direct beside the kernel's other users of a function's ftrace
 * site: a BPF fentry program (what bpftrace's kfunc: probes are) and a
 * kprobe.  An ftrace site takes one direct call: whichever of probe_core
 * and the BPF trampoline comes second is refused with EBUSY, the first
 * keeps counting every call, and once the first is gone the second
 * attaches.  Kprobes share the site with either: a BPF program and
 * probe_core's kprobe, or probe_core's direct call and its kprobe, each
 * count every call.
 *
 * The guest has no libbpf or bpftrace, so the program is loaded with the
 * bpf() system call: a tracing program of the kind BPF_TRACE_FENTRY, whose
 * target is named by its BTF id, found here by walking the kernel's BTF
 * (/sys/kernel/btf/vmlinux).  A kernel without that file, or without a
 * BPF JIT (which trampolines need), cannot load one: the tests of BPF are
 * skipped, saying so.  getppid in the quiet VM: nothing else calls it, so
 * counts are exact.
 */
#include "pcore_ioctl.h"
#include <ctype.h>
#include <stdint.h>
#include <linux/bpf.h>
#include <linux/btf.h>
#include "kselftest_harness.h"

#define NCALLS		500
#define FN		"sys_getppid:count"
/*
 * What sys_getppid resolves to (pcore_direct checks it), and the name of
 * its code in BTF: SYSCALL_DEFINE0 makes __x64_sys_getppid an alias of
 * __do_sys_getppid, and BTF, made from the debug info, has only the
 * latter.  The BPF trampoline goes to that name's address, the same site.
 */
#define FN_SYM		"__x64_sys_getppid"
#define FN_BTF		"__do_sys_getppid"
#define BTF_VMLINUX	"/sys/kernel/btf/vmlinux"
#define BPF_JIT		"/proc/sys/net/core/bpf_jit_enable"
#define ENABLED_FUNCS	"/sys/kernel/debug/tracing/enabled_functions"
#define REFUSED		"direct " FN ": ftrace refused a direct call on " FN_SYM \
			" (-EBUSY): another direct user (a BPF trampoline?) has it"

static char buf[PCORE_BUF], log[16384];

static void getppids(int n)
{
	int i;

	for (i = 0; i < n; i++)
		syscall(SYS_getppid);
}

/*
 * BTF: a header, then the types, each a struct btf_type followed by what
 * its kind carries, then the strings.  Type ids count the types from 1.
 * The bytes after the struct btf_type, or -1 for a kind this walker does
 * not know (a newer kernel's: the test fails, saying so).
 */
static long btf_extra(const struct btf_type *t)
{
	unsigned long vlen = BTF_INFO_VLEN(t->info);

	switch (BTF_INFO_KIND(t->info)) {
	case BTF_KIND_PTR:
	case BTF_KIND_FWD:
	case BTF_KIND_TYPEDEF:
	case BTF_KIND_VOLATILE:
	case BTF_KIND_CONST:
	case BTF_KIND_RESTRICT:
	case BTF_KIND_FUNC:
	case BTF_KIND_FLOAT:
	case BTF_KIND_TYPE_TAG:
		return 0;
	case BTF_KIND_INT:
	case BTF_KIND_VAR:
	case BTF_KIND_DECL_TAG:
		return 4;
	case BTF_KIND_ARRAY:
		return sizeof(struct btf_array);
	case BTF_KIND_STRUCT:
	case BTF_KIND_UNION:
		return vlen * sizeof(struct btf_member);
	case BTF_KIND_ENUM:
		return vlen * sizeof(struct btf_enum);
	case BTF_KIND_FUNC_PROTO:
		return vlen * sizeof(struct btf_param);
	case BTF_KIND_DATASEC:
		return vlen * sizeof(struct btf_var_secinfo);
	case BTF_KIND_ENUM64:
		return vlen * sizeof(struct btf_enum64);
	}
	return -1;
}

/* The whole of @path into a malloc()ed buffer, its size in *@len. */
static char *read_all(const char *path, size_t *len)
{
	size_t room = 1 << 20, n = 0;
	char *b = malloc(room), *nb;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t k;

	if (fd < 0 || !b)
		goto fail;
	while ((k = read(fd, b + n, room - n)) > 0) {
		n += k;
		if (n < room)
			continue;
		nb = realloc(b, room * 2);
		if (!nb)
			goto fail;
		b = nb;
		room *= 2;
	}
	if (k < 0)
		goto fail;
	close(fd);
	*len = n;
	return b;
fail:
	if (fd >= 0)
		close(fd);
	free(b);
	return NULL;
}

/*
 * The BTF id of the function (BTF_KIND_FUNC) @name in the kernel's BTF;
 * -ENOENT when the kernel has no BTF, another -errno when it has no such
 * function or the walk fails; *@why (@len bytes) says which.
 */
static int btf_func_id(const char *name, char *why, size_t len)
{
	const struct btf_header *h;
	const struct btf_type *t;
	const char *types, *strs;
	size_t size, off;
	int id, ret;
	char *b;
	long x;

	if (access(BTF_VMLINUX, F_OK)) {
		snprintf(why, len, "no %s: this kernel has no BTF (CONFIG_DEBUG_INFO_BTF), so no fentry programs",
			 BTF_VMLINUX);
		return -ENOENT;
	}
	b = read_all(BTF_VMLINUX, &size);
	if (!b) {
		snprintf(why, len, "cannot read %s: %s", BTF_VMLINUX, strerror(errno));
		return -EIO;
	}
	h = (const struct btf_header *)b;
	ret = -EINVAL;
	if (size < sizeof(*h) || h->magic != BTF_MAGIC || h->hdr_len > size ||
	    h->type_off + h->type_len > size - h->hdr_len ||
	    h->str_off + h->str_len > size - h->hdr_len) {
		snprintf(why, len, "%s: not BTF, or cut short (%zu bytes)",
			 BTF_VMLINUX, size);
		goto out;
	}
	types = b + h->hdr_len + h->type_off;
	strs = b + h->hdr_len + h->str_off;
	ret = -ESRCH;
	snprintf(why, len, "no function %s in %s", name, BTF_VMLINUX);
	for (off = 0, id = 1; off + sizeof(*t) <= h->type_len; id++) {
		t = (const struct btf_type *)(types + off);
		x = btf_extra(t);
		if (x < 0) {
			snprintf(why, len, "%s: type %d has kind %u, unknown here",
				 BTF_VMLINUX, id, BTF_INFO_KIND(t->info));
			ret = -EINVAL;
			break;
		}
		if (BTF_INFO_KIND(t->info) == BTF_KIND_FUNC &&
		    t->name_off < h->str_len &&
		    !strncmp(strs + t->name_off, name, h->str_len - t->name_off)) {
			ret = id;
			break;
		}
		off += sizeof(*t) + x;
	}
out:
	free(b);
	return ret;
}

static int sys_bpf(int cmd, union bpf_attr *a)
{
	return syscall(__NR_bpf, cmd, a, sizeof(*a));
}

/* An array map of one 64-bit counter; its fd, or -1 (errno). */
static int counter_new(void)
{
	union bpf_attr a;

	memset(&a, 0, sizeof(a));
	a.map_type = BPF_MAP_TYPE_ARRAY;
	a.key_size = sizeof(__u32);
	a.value_size = sizeof(__u64);
	a.max_entries = 1;
	return sys_bpf(BPF_MAP_CREATE, &a);
}

/* The counter of map @map, or -1ULL. */
static unsigned long long counter_read(int map)
{
	union bpf_attr a;
	__u64 v = -1ULL;
	__u32 key = 0;

	memset(&a, 0, sizeof(a));
	a.map_fd = map;
	a.key = (uintptr_t)&key;
	a.value = (uintptr_t)&v;
	return sys_bpf(BPF_MAP_LOOKUP_ELEM, &a) ? -1ULL : v;
}

#define INSN(c, d, s, o, i)						\
	{ .code = (c), .dst_reg = (d), .src_reg = (s), .off = (o), .imm = (i) }

/*
 * An fentry program on the function of BTF id @btf_id that adds one to
 * map @map's counter at each call; its fd, or -1 (errno, the verifier's
 * log in @vlog).
 */
static int counter_prog(int map, int btf_id, char *vlog, size_t len)
{
	const struct bpf_insn insn[] = {
		/* *(u32 *)(r10 - 4) = 0: the key, on the stack */
		INSN(BPF_ST | BPF_MEM | BPF_W, BPF_REG_10, 0, -4, 0),
		/* r2 = r10 - 4: its address */
		INSN(BPF_ALU64 | BPF_MOV | BPF_X, BPF_REG_2, BPF_REG_10, 0, 0),
		INSN(BPF_ALU64 | BPF_ADD | BPF_K, BPF_REG_2, 0, 0, -4),
		/* r1 = the map: a 64-bit load, two instructions */
		INSN(BPF_LD | BPF_DW | BPF_IMM, BPF_REG_1, BPF_PSEUDO_MAP_FD, 0, map),
		INSN(0, 0, 0, 0, 0),
		/* r0 = bpf_map_lookup_elem(r1, r2): the counter, or NULL */
		INSN(BPF_JMP | BPF_CALL, 0, 0, 0, BPF_FUNC_map_lookup_elem),
		/* if (r0 == NULL) skip the next 2 */
		INSN(BPF_JMP | BPF_JEQ | BPF_K, BPF_REG_0, 0, 2, 0),
		/* r1 = 1; lock *(u64 *)(r0 + 0) += r1 */
		INSN(BPF_ALU64 | BPF_MOV | BPF_K, BPF_REG_1, 0, 0, 1),
		INSN(BPF_STX | BPF_ATOMIC | BPF_DW, BPF_REG_0, BPF_REG_1, 0, BPF_ADD),
		/* return 0 */
		INSN(BPF_ALU64 | BPF_MOV | BPF_K, BPF_REG_0, 0, 0, 0),
		INSN(BPF_JMP | BPF_EXIT, 0, 0, 0, 0),
	};
	union bpf_attr a;

	memset(&a, 0, sizeof(a));
	a.prog_type = BPF_PROG_TYPE_TRACING;
	a.expected_attach_type = BPF_TRACE_FENTRY;
	a.attach_btf_id = btf_id;
	a.insns = (uintptr_t)insn;
	a.insn_cnt = ARRAY_SIZE(insn);
	a.license = (uintptr_t)"GPL";
	a.log_buf = (uintptr_t)vlog;
	a.log_size = len;
	a.log_level = 1;
	vlog[0] = '\0';
	return sys_bpf(BPF_PROG_LOAD, &a);
}

/* Program @prog attached at its function (a BPF link); its fd, or -1. */
static int fentry_attach(int prog)
{
	union bpf_attr a;

	memset(&a, 0, sizeof(a));
	a.raw_tracepoint.prog_fd = prog;	/* name 0: a tracing program */
	return sys_bpf(BPF_RAW_TRACEPOINT_OPEN, &a);
}

/* The address /proc/kallsyms gives @name, or 0 */
static unsigned long long ksym_addr(const char *name)
{
	unsigned long long addr, found = 0;
	char line[512], sym[256];
	FILE *f = fopen("/proc/kallsyms", "re");

	if (!f)
		return 0;
	while (!found && fgets(line, sizeof(line), f))
		if (sscanf(line, "%llx %*s %255s", &addr, sym) == 2 &&
		    !strcmp(sym, name))
			found = addr;
	fclose(f);
	return found;
}

/* 0 when @fd is not open; 0 or the errno of close() */
static int close_fd(int *fd)
{
	int ret = 0;

	if (*fd >= 0)
		ret = close(*fd) ? errno : 0;
	*fd = -1;
	return ret;
}

/*
 * The ftrace sites in use: the lines of enabled_functions that start with
 * a function's name (a direct call's target follows on an indented line);
 * -1 on error.
 */
static int enabled_funcs(void)
{
	char *s, *end;
	int n = 0;

	if (pcore_read(ENABLED_FUNCS, buf, PCORE_BUF) < 0)
		return -1;
	for (s = buf; *s; s = *end ? end + 1 : end) {
		end = strchrnul(s, '\n');
		n += !isspace(*s);
	}
	return n;
}

FIXTURE(bpf) {
	int fd;		/* /dev/probe_core */
	int kmsg;
	int btf_id;	/* FN_BTF's */
	bool no_bpf;	/* no fentry programs here: @why says why */
	int map;	/* the counter of the BPF program */
	int prog;
	int link;	/* the program attached */
	char why[256];
};

FIXTURE_SETUP(bpf)
{
	static const char * const mods[] = { "probe_core" };
	static char vlog[65536];

	self->fd = self->map = self->prog = self->link = -1;
	ASSERT_EQ(0, pcore_mods_unload(mods, 1));
	self->kmsg = kmsg_open();
	ASSERT_LE(0, self->kmsg);
	self->btf_id = btf_func_id(FN_BTF, self->why, sizeof(self->why));
	self->no_bpf = self->btf_id == -ENOENT;
	if (!self->no_bpf && access(BPF_JIT, F_OK)) {
		snprintf(self->why, sizeof(self->why),
			 "no %s: this kernel has no BPF JIT (CONFIG_BPF_JIT), so no fentry programs",
			 BPF_JIT);
		self->no_bpf = true;
	}
	if (self->no_bpf)
		return;		/* the tests of BPF skip, saying why */
	ASSERT_LT(0, self->btf_id) TH_LOG("%s", self->why);
	/* one function under two names: the same ftrace site */
	ASSERT_NE(0, ksym_addr(FN_SYM));
	ASSERT_EQ(ksym_addr(FN_SYM), ksym_addr(FN_BTF));
	self->map = counter_new();
	ASSERT_LE(0, self->map) TH_LOG("map: %s", strerror(errno));
	self->prog = counter_prog(self->map, self->btf_id, vlog, sizeof(vlog));
	ASSERT_LE(0, self->prog) TH_LOG("fentry program: %s\n%s", strerror(errno), vlog);
}

FIXTURE_TEARDOWN(bpf)
{
	static const char * const mods[] = { "probe_core" };

	close_fd(&self->link);
	close_fd(&self->prog);
	close_fd(&self->map);
	close_fd(&self->fd);
	EXPECT_EQ(0, pcore_mods_unload(mods, 1));
	EXPECT_EQ(0, pcore_kmsg_bad(self->kmsg, log, sizeof(log))) {
		TH_LOG("kernel log:\n%s", log);
	}
	close(self->kmsg);
}

/*
 * probe_core loaded with target=FN and @params, its probe of the kind
 * @kind: NCALLS calls, each counted by the probe; @bpf counted by the
 * program in all (it may be attached or not).
 */
#define EXPECT_LOAD_COUNTS(params, kind, bpf) do {			\
	struct pcore_ioc_entry e_;					\
									\
	PCORE_LOAD_OPEN("target=" FN params, self->fd);			\
	ASSERT_EQ(0, pcore_list_one(self->fd, FN, &e_));		\
	EXPECT_STREQ(kind, e_.probe_kind);				\
	getppids(NCALLS);						\
	ASSERT_EQ(0, pcore_list_one(self->fd, FN, &e_));		\
	EXPECT_EQ(NCALLS, e_.count);					\
	EXPECT_EQ(0, e_.missed);					\
	EXPECT_EQ(bpf, counter_read(self->map));			\
} while (0)

/*
 * BPF first: probe_core's direct call on the function is refused, the
 * load fails with EBUSY and one line, and leaves nothing (no module,
 * kprobe, debugfs directory or ftrace site of its own); the BPF program
 * counts every call.  Once its link is closed, the same load succeeds
 * and counts every call.
 */
TEST_F_TIMEOUT(bpf, bpf_first, PCORE_TIMEOUT_PATCHING)
{
	int sites;

	if (self->no_bpf)
		SKIP(return, "%s", self->why);
	ASSERT_EQ(0, enabled_funcs()) TH_LOG("%s", buf);
	self->link = fentry_attach(self->prog);
	ASSERT_LE(0, self->link) TH_LOG("fentry attach: %s", strerror(errno));
	sites = enabled_funcs();
	EXPECT_EQ(1, sites) TH_LOG("%s", buf);
	EXPECT_EQ(EBUSY, pcore_load("target=" FN " mechanism=direct"));
	EXPECT_EQ(1, kmsg_collect(self->kmsg, log, sizeof(log))) TH_LOG("%s", log);
	EXPECT_NE(NULL, strstr(log, REFUSED)) TH_LOG("%s", log);
	EXPECT_FALSE(pcore_loaded());
	EXPECT_NE(0, access(PCORE_DBG, F_OK));
	EXPECT_EQ(0, pcore_read(KPROBES_LIST, buf, PCORE_BUF)) TH_LOG("%s", buf);
	EXPECT_EQ(sites, enabled_funcs()) TH_LOG("%s", buf);
	/* their program still sees every call */
	getppids(NCALLS);
	EXPECT_EQ(NCALLS, counter_read(self->map));

	/* closing the link takes their trampoline off at once */
	ASSERT_EQ(0, close_fd(&self->link));
	EXPECT_EQ(0, enabled_funcs()) TH_LOG("%s", buf);
	EXPECT_LOAD_COUNTS(" mechanism=direct", "direct", NCALLS);
}

/* A probe of sys_getppid by @flags and @what through PCORE_IOC_ATTACH. */
static int attach_what(int fd, unsigned int what, unsigned int flags)
{
	struct pcore_ioc_attach a;

	pcore_att_init(&a, "", PCORE_ATTACH_KRETPROBE, PCORE_UAPI_HIST_DEFAULT);
	snprintf(a.target, sizeof(a.target), "sys_getppid");
	a.what = what;
	a.flags = flags;
	return pcore_ioc(fd, PCORE_IOC_ATTACH, &a);
}

/* The attach of the BPF program is refused with EBUSY (asserted). */
#define EXPECT_FENTRY_EBUSY() do {					\
	int err_;							\
									\
	self->link = fentry_attach(self->prog);				\
	err_ = errno;							\
	EXPECT_EQ(-1, self->link);					\
	EXPECT_EQ(EBUSY, err_) TH_LOG("fentry attach: %s", strerror(err_)); \
	close_fd(&self->link);						\
} while (0)

/*
 * probe_core first: attaching the BPF program fails with EBUSY (what a
 * bpftrace kfunc: probe started after probe_core meets), and probe_core
 * counts on, every call.  Once the probe is detached, or probe_core
 * unloaded, the program attaches and counts every call.
 */
TEST_F_TIMEOUT(bpf, direct_first, PCORE_TIMEOUT_PATCHING)
{
	struct pcore_ioc_entry e;

	if (self->no_bpf)
		SKIP(return, "%s", self->why);
	PCORE_LOAD_OPEN("target=" FN " mechanism=direct", self->fd);
	EXPECT_EQ(1, kmsg_collect(self->kmsg, log, sizeof(log))) TH_LOG("%s", log);
	EXPECT_NE(NULL, strstr(log, FN ": direct on " FN_SYM)) TH_LOG("%s", log);
	getppids(NCALLS);
	EXPECT_FENTRY_EBUSY();
	getppids(NCALLS);
	ASSERT_EQ(0, pcore_list_one(self->fd, FN, &e));
	EXPECT_STREQ("direct", e.probe_kind);
	EXPECT_EQ(2 * NCALLS, e.count);
	EXPECT_EQ(0, counter_read(self->map));
	/* the refusal is theirs: no line of probe_core's */
	EXPECT_EQ(0, kmsg_collect(self->kmsg, log, sizeof(log))) TH_LOG("%s", log);

	/* the probe detached: the program attaches */
	ASSERT_EQ(0, pcore_name_ioc(self->fd, PCORE_IOC_DETACH, FN));
	self->link = fentry_attach(self->prog);
	ASSERT_LE(0, self->link) TH_LOG("fentry attach: %s", strerror(errno));
	getppids(NCALLS);
	EXPECT_EQ(NCALLS, counter_read(self->map));
	ASSERT_EQ(0, close_fd(&self->link));

	/* attached again (by the ioctl): refused again, until rmmod */
	ASSERT_EQ(0, attach_what(self->fd, PCORE_WHAT_COUNT, 0));
	ASSERT_EQ(0, pcore_list_one(self->fd, FN, &e));
	EXPECT_STREQ("direct", e.probe_kind);
	EXPECT_FENTRY_EBUSY();
	getppids(NCALLS);
	ASSERT_EQ(0, pcore_list_one(self->fd, FN, &e));
	EXPECT_EQ(NCALLS, e.count);
	ASSERT_EQ(0, close_fd(&self->fd));
	ASSERT_EQ(0, pcore_unload());
	self->link = fentry_attach(self->prog);
	ASSERT_LE(0, self->link) TH_LOG("fentry attach: %s", strerror(errno));
	getppids(NCALLS);
	EXPECT_EQ(2 * NCALLS, counter_read(self->map));
}

/*
 * A BPF program and probe_core's kprobe (mechanism=kprobe, the default)
 * share the function, whichever comes first: each counts every call.
 */
TEST_F_TIMEOUT(bpf, beside_a_kprobe, PCORE_TIMEOUT_PATCHING)
{
	struct pcore_ioc_entry e;

	if (self->no_bpf)
		SKIP(return, "%s", self->why);
	/* the program first */
	self->link = fentry_attach(self->prog);
	ASSERT_LE(0, self->link) TH_LOG("fentry attach: %s", strerror(errno));
	EXPECT_LOAD_COUNTS("", "kprobe", NCALLS);

	/* the kprobe first: the program again, after it */
	ASSERT_EQ(0, close_fd(&self->link));
	getppids(NCALLS);
	EXPECT_EQ(NCALLS, counter_read(self->map));
	self->link = fentry_attach(self->prog);
	ASSERT_LE(0, self->link) TH_LOG("fentry attach: %s", strerror(errno));
	getppids(NCALLS);
	ASSERT_EQ(0, pcore_list_one(self->fd, FN, &e));
	EXPECT_EQ(3 * NCALLS, e.count);
	EXPECT_EQ(0, e.missed);
	EXPECT_EQ(2 * NCALLS, counter_read(self->map));
}

#define BY_PID	"sys_getppid:count:by=pid"

/*
 * A kprobe and a direct call on the same function at the same time,
 * whichever comes first: each counts every call.  The kprobe is
 * probe_core's ":count:by=pid", attached with PCORE_ATTACH_MECH_KPROBE
 * (the attach's mechanism wins over mechanism=direct).
 */
TEST_F_TIMEOUT(bpf, direct_beside_a_kprobe, PCORE_TIMEOUT_PATCHING)
{
	struct pcore_ioc_entry e;

	/* no BPF here: it runs without BTF too */
	/* the direct call first */
	PCORE_LOAD_OPEN("target=" FN " mechanism=direct", self->fd);
	ASSERT_EQ(0, attach_what(self->fd, PCORE_WHAT_COUNT,
				 PCORE_ATTACH_BY_PID | PCORE_ATTACH_MECH_KPROBE));
	ASSERT_EQ(0, pcore_list_one(self->fd, BY_PID, &e));
	EXPECT_STREQ("kprobe", e.probe_kind);
	getppids(NCALLS);
	ASSERT_EQ(0, pcore_list_one(self->fd, BY_PID, &e));
	EXPECT_EQ(NCALLS, e.count);
	EXPECT_EQ(0, e.missed);
	ASSERT_EQ(0, pcore_list_one(self->fd, FN, &e));
	EXPECT_STREQ("direct", e.probe_kind);
	EXPECT_EQ(NCALLS, e.count);

	/* the kprobe first: the direct call again, after it */
	ASSERT_EQ(0, pcore_name_ioc(self->fd, PCORE_IOC_DETACH, FN));
	getppids(NCALLS);
	ASSERT_EQ(0, attach_what(self->fd, PCORE_WHAT_COUNT, 0));
	ASSERT_EQ(0, pcore_list_one(self->fd, FN, &e));
	EXPECT_STREQ("direct", e.probe_kind);
	getppids(NCALLS);
	ASSERT_EQ(0, pcore_list_one(self->fd, FN, &e));
	EXPECT_EQ(NCALLS, e.count);
	ASSERT_EQ(0, pcore_list_one(self->fd, BY_PID, &e));
	EXPECT_EQ(3 * NCALLS, e.count);
	EXPECT_EQ(0, e.missed);

	/* the kprobe goes: the direct call counts on alone */
	ASSERT_EQ(0, pcore_name_ioc(self->fd, PCORE_IOC_DETACH, BY_PID));
	getppids(NCALLS);
	ASSERT_EQ(0, pcore_list_one(self->fd, FN, &e));
	EXPECT_EQ(2 * NCALLS, e.count);
	EXPECT_EQ(0, pcore_read(KPROBES_LIST, buf, PCORE_BUF)) TH_LOG("%s", buf);
}

TEST_HARNESS_MAIN
