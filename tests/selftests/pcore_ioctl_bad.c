// SPDX-License-Identifier: GPL-2.0
/*
 * /dev/probe_core with bad input: each refused call gives the documented
 * errno, changes nothing (LIST and the kprobes list are the same after)
 * and warns nothing in the kernel log.  Then a seeded fuzz loop of ioctls
 * around probe_core's magic: only documented errnos, no kernel warning.
 */
#include "pcore_ioctl.h"
#include <limits.h>
#include <stddef.h>
#include <termios.h>
#include "kselftest_harness.h"
#include "pcore_ioctl_fuzz.h"

static char fp_before[PCORE_BUF], fp_after[PCORE_BUF];
static struct pcore_ioc_bucket bk[PCORE_MAXB];
static struct pcore_ioc_entry ents[PCORE_MAXE];

FIXTURE(bad) {
	int fd;
	int kmsg;
	bool changes;	/* the test may change what is attached */
};

FIXTURE_SETUP(bad)
{
	static const char * const mods[] = { "cpuhists", "probe_core" };

	PCORE_KMSG_SETUP(mods, 2);
	ASSERT_EQ(0, pcore_load("target=do_fork tracepoints=sched_switch"));
	ASSERT_EQ(0, pcore_mod_load("cpuhists", NULL));
	self->fd = open(PCORE_DEVICE, O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, self->fd);
	ASSERT_EQ(0, pcore_fingerprint(self->fd, fp_before, PCORE_BUF));
	self->changes = false;
}

FIXTURE_TEARDOWN(bad)
{
	static const char * const mods[] = { "cpuhists", "probe_core" };
	static char log[65536];

	if (!self->changes) {
		EXPECT_EQ(0, pcore_fingerprint(self->fd, fp_after, PCORE_BUF));
		EXPECT_STREQ(fp_before, fp_after);
	}
	close(self->fd);
	EXPECT_EQ(0, pcore_mods_unload(mods, 2));
	EXPECT_NE(0, access(PCORE_DBG, F_OK));
	EXPECT_EQ(0, pcore_kmsg_bad(self->kmsg, log, sizeof(log))) {
		TH_LOG("kernel log:\n%s", log);
	}
	close(self->kmsg);
	EXPECT_EQ(0, pcore_read(KPROBES_LIST, fp_after, PCORE_BUF));
}

/*
 * One refused call: the errno, and nothing changed.  @arg is passed as is
 * (it may be a bad pointer).
 */
#define REFUSED(err, cmd, arg) refused(_metadata, self->fd, err, cmd, \
				       (void *)(arg), #cmd " " #arg, __LINE__)

static void refused(struct __test_metadata *_metadata, int fd, int err,
		    unsigned long cmd, void *arg, const char *what, int line)
{
	int ret = ioctl(fd, cmd, arg) ? errno : 0;

	EXPECT_EQ(err, ret) {
		TH_LOG("line %d: %s: %s instead of %s", line, what,
		       strerror(ret), strerror(err));
	}
	EXPECT_EQ(0, pcore_fingerprint(fd, fp_after, PCORE_BUF));
	EXPECT_STREQ(fp_before, fp_after) {
		TH_LOG("line %d: %s changed something", line, what);
	}
}

TEST_F_TIMEOUT(bad, unknown_commands, PCORE_TIMEOUT_PATCHING)
{
	unsigned long cmds[] = {
		0, 1, _IO(PCORE_IOC_MAGIC, 0), _IO(PCORE_IOC_MAGIC, 8),
		_IOWR(PCORE_IOC_MAGIC, 0x08, struct pcore_ioc_read),
		_IOWR(PCORE_IOC_MAGIC, 0x09, struct pcore_ioc_name),
		_IOWR(PCORE_IOC_MAGIC, 0xff, struct pcore_ioc_list),
		/* right magic and number, wrong size */
		_IOR(PCORE_IOC_MAGIC, 0x00, char[71]),
		_IOR(PCORE_IOC_MAGIC, 0x00, char[73]),
		_IOWR(PCORE_IOC_MAGIC, 0x01, char[31]),
		_IOWR(PCORE_IOC_MAGIC, 0x02, char[320]),
		_IOWR(PCORE_IOC_MAGIC, 0x02, char[336]),
		_IOW(PCORE_IOC_MAGIC, 0x03, char[143]),
		_IOW(PCORE_IOC_MAGIC, 0x04, char[192]),
		_IOW(PCORE_IOC_MAGIC, 0x05, char[4095]),
		/* right number and size, wrong direction */
		_IOW(PCORE_IOC_MAGIC, 0x00, struct pcore_ioc_version),
		_IOR(PCORE_IOC_MAGIC, 0x01, struct pcore_ioc_list),
		_IOW(PCORE_IOC_MAGIC, 0x02, struct pcore_ioc_read),
		_IOWR(PCORE_IOC_MAGIC, 0x03, struct pcore_ioc_name),
		_IO(PCORE_IOC_MAGIC, 0x04),
		_IOR(PCORE_IOC_MAGIC, 0x07, struct pcore_ioc_name),
		/* another magic */
		_IOR(PCORE_IOC_MAGIC + 1, 0x00, struct pcore_ioc_version),
		_IOW(PCORE_IOC_MAGIC - 1, 0x05, struct pcore_ioc_name),
		FIONREAD, TCGETS, SIOCGIFFLAGS,
		0xffffffff,
	};
	struct pcore_ioc_name n = { .name = "do_fork" };
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(cmds); i++) {
		EXPECT_EQ(ENOTTY, pcore_ioc(self->fd, cmds[i], &n)) {
			TH_LOG("command %#lx", cmds[i]);
		}
		EXPECT_EQ(ENOTTY, pcore_ioc(self->fd, cmds[i], NULL)) {
			TH_LOG("command %#lx", cmds[i]);
		}
	}
	REFUSED(ENOTTY, _IOW(PCORE_IOC_MAGIC, 0x05, char[145]), &n);
}

TEST_F_TIMEOUT(bad, bad_pointers, PCORE_TIMEOUT_PATCHING)
{
	void *ptrs[] = { NULL, (void *)1, (void *)0xffff888000000000ULL,
			 (void *)-4096L, pcore_unmapped_page(), (void *)(1ULL << 47) };
	struct pcore_ioc_list l;
	struct pcore_ioc_read r;
	unsigned int i, j;
	char *page;

	ASSERT_NE(NULL, ptrs[4]);
	for (i = 0; i < ARRAY_SIZE(pcore_ioc_cmds); i++)
		for (j = 0; j < ARRAY_SIZE(ptrs); j++) {
			EXPECT_EQ(EFAULT, pcore_ioc(self->fd, pcore_ioc_cmds[i], ptrs[j])) {
				TH_LOG("command %#lx, pointer %p", pcore_ioc_cmds[i], ptrs[j]);
			}
		}

	/* LIST and READ with bad output pointers inside their structs. */
	for (j = 0; j < ARRAY_SIZE(ptrs); j++) {
		l = (struct pcore_ioc_list){
			.entries = (uintptr_t)ptrs[j], .n = PCORE_MAXE,
			.entry_size = sizeof(struct pcore_ioc_entry),
		};
		REFUSED(EFAULT, PCORE_IOC_LIST, &l);
		memset(&r, 0, sizeof(r));
		strcpy(r.name, "do_fork");
		r.cpu = -1;
		r.buckets = (uintptr_t)ptrs[j];
		r.nbuckets = PCORE_MAXB;
		r.bucket_size = sizeof(struct pcore_ioc_bucket);
		REFUSED(EFAULT, PCORE_IOC_READ, &r);
		strcpy(r.name, "cpuhists/oncpu");
		r.cpu = 1;
		r.flags = PCORE_READ_KEY;
		r.slot = 0;
		REFUSED(EFAULT, PCORE_IOC_READ, &r);
	}

	/*
	 * A struct that runs into an unmapped page, and output structs in
	 * read-only memory: in they can be read, out they cannot be written.
	 */
	page = mmap(NULL, 8192, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, page);
	ASSERT_EQ(0, munmap(page + 4096, 4096));
	for (i = 0; i < ARRAY_SIZE(pcore_ioc_cmds); i++) {
		size_t size = _IOC_SIZE(pcore_ioc_cmds[i]);
		struct pcore_ioc_name *n = (void *)(page + 4096 - size + 8);

		memset(page, 0, 4096);
		strcpy(n->name, "do_fork");
		REFUSED(EFAULT, pcore_ioc_cmds[i], n);
	}
	memset(page, 0, 4096);
	l = (struct pcore_ioc_list){ .entries = (uintptr_t)ents, .n = PCORE_MAXE,
				     .entry_size = sizeof(struct pcore_ioc_entry) };
	memcpy(page, &l, sizeof(l));
	/* Too little room, and the answer cannot be written: EFAULT. */
	l.n = 0;
	memcpy(page + 3072, &l, sizeof(l));
	memset(&r, 0, sizeof(r));
	strcpy(r.name, "do_fork");
	r.cpu = -1;
	r.buckets = (uintptr_t)bk;
	r.nbuckets = PCORE_MAXB;
	r.bucket_size = sizeof(struct pcore_ioc_bucket);
	memcpy(page + 1024, &r, sizeof(r));
	ASSERT_EQ(0, mprotect(page, 4096, PROT_READ));
	REFUSED(EFAULT, PCORE_IOC_VERSION, page + 2048);
	REFUSED(EFAULT, PCORE_IOC_LIST, page);
	REFUSED(EFAULT, PCORE_IOC_LIST, page + 3072);
	REFUSED(EFAULT, PCORE_IOC_READ, page + 1024);
	ASSERT_EQ(0, munmap(page, 4096));

	/* Entries or buckets in read-only memory. */
	page = mmap(NULL, 1 << 20, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, page);
	l = (struct pcore_ioc_list){ .entries = (uintptr_t)page, .n = PCORE_MAXE,
				     .entry_size = sizeof(struct pcore_ioc_entry) };
	REFUSED(EFAULT, PCORE_IOC_LIST, &l);
	r.buckets = (uintptr_t)page;
	REFUSED(EFAULT, PCORE_IOC_READ, &r);
	ASSERT_EQ(0, munmap(page, 1 << 20));
}

/* Every command that takes a name, with a struct where @name goes. */
static int name_call(int fd, unsigned long cmd, const char *name, size_t len)
{
	struct pcore_ioc_attach a;
	struct pcore_ioc_read r;
	struct pcore_ioc_name n;

	switch (cmd) {
	case PCORE_IOC_READ:
		memset(&r, 0, sizeof(r));
		memcpy(r.name, name, len);
		r.cpu = -1;
		r.buckets = (uintptr_t)bk;
		r.nbuckets = PCORE_MAXB;
		r.bucket_size = sizeof(bk[0]);
		return pcore_ioc(fd, cmd, &r);
	case PCORE_IOC_ATTACH:
		memset(&a, 0, sizeof(a));
		memcpy(a.name, name, len);
		a.kind = PCORE_ATTACH_KRETPROBE;
		return pcore_ioc(fd, cmd, &a);
	default:
		memset(&n, 0, sizeof(n));
		memcpy(n.name, name, len);
		return pcore_ioc(fd, cmd, &n);
	}
}

TEST_F_TIMEOUT(bad, names, PCORE_TIMEOUT_PATCHING)
{
	static const unsigned long cmds[] = {
		PCORE_IOC_READ, PCORE_IOC_RESET, PCORE_IOC_ATTACH,
		PCORE_IOC_DETACH, PCORE_IOC_ENABLE, PCORE_IOC_DISABLE,
	};
	/* Unknown to every command that looks a name up. */
	static const char * const unknown[] = {
		"nosuch", "cpuhists/nosuch", "nosuchmod/oncpu", "/do_fork",
		"do_fork/", "cpuhists/", "cpuhists/oncpu/x", "cpuhists//oncpu",
		"oncpu", "/", "//", "DO_FORK", "do_fork ", "probe_core/do_fork",
		"cpuhists/oncpu ", "cpuhists/oncpu\n",
	};
	/* Names an attach refuses as names. */
	static const char * const badnames[] = {
		"a/b", "a b", "../x", ".x", "x\n", "-x", "x-y", "x:y", "x\x01",
		"\xff", "caf\xe9", "\xe9t\xe9", "sched_switch/x",
	};
	/* Only probe_core's own probes detach, enable and disable. */
	static const char * const not_own[] = {
		"cpuhists/oncpu", "cpuhists/offcpu",
	};
	char name[PCORE_UAPI_NAME_MAX];
	unsigned int i, j;
	int ret;

	for (i = 0; i < ARRAY_SIZE(cmds); i++) {
		/* No NUL in the array: 128 letters. */
		memset(name, 'a', sizeof(name));
		EXPECT_EQ(EINVAL, name_call(self->fd, cmds[i], name, sizeof(name)));
		memcpy(name, "do_fork", 7);
		EXPECT_EQ(EINVAL, name_call(self->fd, cmds[i], name, sizeof(name)));
		/* Empty. */
		memset(name, 0, sizeof(name));
		EXPECT_EQ(EINVAL, name_call(self->fd, cmds[i], name, sizeof(name)));
		/* Empty, with junk after the NUL. */
		memset(name + 1, 'x', sizeof(name) - 1);
		EXPECT_EQ(EINVAL, name_call(self->fd, cmds[i], name, sizeof(name)));
		if (cmds[i] == PCORE_IOC_ATTACH)
			continue;
		for (j = 0; j < ARRAY_SIZE(unknown); j++) {
			EXPECT_EQ(ENOENT, name_call(self->fd, cmds[i], unknown[j],
						    strlen(unknown[j]) + 1)) {
				TH_LOG("command %#lx, name '%s'", cmds[i], unknown[j]);
			}
		}
	}
	for (j = 0; j < ARRAY_SIZE(badnames); j++) {
		ret = name_call(self->fd, PCORE_IOC_ATTACH, badnames[j],
				strlen(badnames[j]) + 1);
		EXPECT_EQ(EINVAL, ret) {
			TH_LOG("attach '%s': %s", badnames[j], strerror(ret));
		}
	}
	for (j = 0; j < ARRAY_SIZE(not_own); j++) {
		EXPECT_EQ(ENOENT, pcore_name_ioc(self->fd, PCORE_IOC_DETACH, not_own[j]));
		EXPECT_EQ(ENOENT, pcore_name_ioc(self->fd, PCORE_IOC_ENABLE, not_own[j]));
		EXPECT_EQ(ENOENT, pcore_name_ioc(self->fd, PCORE_IOC_DISABLE, not_own[j]));
	}
	/* The longest name that fits: unknown, and a valid one to attach. */
	memset(name, 'a', sizeof(name) - 1);
	name[sizeof(name) - 1] = '\0';
	EXPECT_EQ(ENOENT, name_call(self->fd, PCORE_IOC_READ, name, sizeof(name)));
	EXPECT_EQ(ENOENT, name_call(self->fd, PCORE_IOC_DETACH, name, sizeof(name)));
	EXPECT_EQ(ENOENT, name_call(self->fd, PCORE_IOC_ATTACH, name, sizeof(name)));
	/* Junk after the NUL does not matter. */
	memset(name, 'x', sizeof(name));
	strcpy(name, "do_fork");
	EXPECT_EQ(0, name_call(self->fd, PCORE_IOC_READ, name, sizeof(name)));
	EXPECT_EQ(0, pcore_fingerprint(self->fd, fp_after, PCORE_BUF));
	EXPECT_STREQ(fp_before, fp_after);
}

TEST_F_TIMEOUT(bad, reserved_fields, PCORE_TIMEOUT_PATCHING)
{
	struct pcore_ioc_version v;
	struct pcore_ioc_list l;
	struct pcore_ioc_name n;
	struct pcore_ioc_attach a;
	unsigned int i;

	/* VERSION only writes: whatever is in the struct does not matter. */
	memset(&v, 0xff, sizeof(v));
	EXPECT_EQ(0, pcore_ioc(self->fd, PCORE_IOC_VERSION, &v));

	for (i = 0; i < ARRAY_SIZE(l.reserved) * 8; i++) {
		l = (struct pcore_ioc_list){ .entries = (uintptr_t)ents,
			.n = PCORE_MAXE, .entry_size = sizeof(ents[0]) };
		((unsigned char *)l.reserved)[i] = 1;
		REFUSED(EINVAL, PCORE_IOC_LIST, &l);
	}
	for (i = 0; i < ARRAY_SIZE(n.reserved) * 8; i++) {
		unsigned int c;

		for (c = 0; c < 4; c++) {
			unsigned long cmds[] = { PCORE_IOC_RESET, PCORE_IOC_DETACH,
						 PCORE_IOC_ENABLE, PCORE_IOC_DISABLE };

			memset(&n, 0, sizeof(n));
			strcpy(n.name, "do_fork");
			((unsigned char *)n.reserved)[i] = 0x80;
			REFUSED(EINVAL, cmds[c], &n);
		}
	}
	for (i = 0; i < ARRAY_SIZE(a.reserved) * 8; i++) {
		pcore_att_init(&a, "sys_getppid", PCORE_ATTACH_KRETPROBE, 0);
		((unsigned char *)a.reserved)[i] = 1;
		REFUSED(EINVAL, PCORE_IOC_ATTACH, &a);
	}
	/* LIST's entry size must be the struct's. */
	{
		unsigned int sizes[] = { 0, 1, sizeof(ents[0]) - 8,
					 sizeof(ents[0]) - 1, sizeof(ents[0]) + 1,
					 sizeof(ents[0]) + 8, 2 * sizeof(ents[0]),
					 UINT_MAX };

		for (i = 0; i < ARRAY_SIZE(sizes); i++) {
			l = (struct pcore_ioc_list){ .entries = (uintptr_t)ents,
				.n = PCORE_MAXE, .entry_size = sizes[i] };
			REFUSED(EINVAL, PCORE_IOC_LIST, &l);
		}
	}
}

/* A READ of do_fork that would work. */
static void good_read(struct pcore_ioc_read *r, const char *name)
{
	memset(r, 0, sizeof(*r));
	strcpy(r->name, name);
	r->cpu = -1;
	r->buckets = (uintptr_t)bk;
	r->nbuckets = PCORE_MAXB;
	r->bucket_size = sizeof(bk[0]);
}

TEST_F_TIMEOUT(bad, read_fields, PCORE_TIMEOUT_PATCHING)
{
	/* Output fields, and pad and reserved: each byte must be zero in. */
	static const struct {
		const char *what;
		size_t off, len;
	} outs[] = {
#define F(f) { #f, offsetof(struct pcore_ioc_read, f), \
	       sizeof(((struct pcore_ioc_read *)0)->f) }
		F(key_used), F(key), F(pad), F(label), F(count), F(sum), F(min),
		F(max), F(p50), F(p90), F(p99), F(p999), F(error_ppm),
		F(error_abs), F(missed), F(dropped), F(created_ns),
		F(lost),
#undef F
	};
	unsigned int bsizes[] = { 0, 1, 16, 23, 25, 32, 48, UINT_MAX };
	int cpus[] = { -2, -100, INT_MIN, INT_MAX, 4096, 0x10000 };
	unsigned int flags[] = { 0x8, 0x100, 0x80000000, 0xffffffff,
				 PCORE_READ_KEY | 0x8,
				 /* the total is of all keys, and never reset */
				 PCORE_READ_TOTAL | PCORE_READ_KEY,
				 PCORE_READ_TOTAL | PCORE_READ_RESET,
				 PCORE_READ_TOTAL | PCORE_READ_KEY |
				 PCORE_READ_RESET };
	struct pcore_ioc_version v;
	struct pcore_ioc_read r;
	unsigned long long f0, c0;
	unsigned int i;
	size_t k;

	/*
	 * Refused reads, RESET ones included, leave the counts alone: 20
	 * forks of ours, and any the kernel made meanwhile (the debug kernel
	 * once started a kworker here: 21).
	 */
	f0 = pcore_nr_forks();
	c0 = pcore_rd_count(self->fd, "do_fork");
	ASSERT_NE(-1ULL, c0);
	ASSERT_EQ(0, pcore_forks(20));
	for (i = 0; i < ARRAY_SIZE(outs); i++)
		for (k = 0; k < outs[i].len; k++) {
			good_read(&r, "do_fork");
			((unsigned char *)&r)[outs[i].off + k] = 1;
			EXPECT_EQ(EINVAL, pcore_ioc(self->fd, PCORE_IOC_READ, &r)) {
				TH_LOG("%s byte %zu", outs[i].what, k);
			}
		}
	for (i = 0; i < ARRAY_SIZE(bsizes); i++) {
		good_read(&r, "do_fork");
		r.bucket_size = bsizes[i];
		REFUSED(EINVAL, PCORE_IOC_READ, &r);
	}
	ASSERT_EQ(0, pcore_ioc(self->fd, PCORE_IOC_VERSION, &v));
	for (i = 0; i < ARRAY_SIZE(cpus) + 2; i++) {
		good_read(&r, "do_fork");
		r.cpu = i < ARRAY_SIZE(cpus) ? cpus[i] :
			(int)v.nr_cpu_ids + (int)(i - ARRAY_SIZE(cpus));
		REFUSED(EINVAL, PCORE_IOC_READ, &r);
		r.flags = PCORE_READ_KEY;
		REFUSED(EINVAL, PCORE_IOC_READ, &r);
	}
	for (i = 0; i < ARRAY_SIZE(flags); i++) {
		good_read(&r, "do_fork");
		r.flags = flags[i];
		REFUSED(EINVAL, PCORE_IOC_READ, &r);
	}
	/* RESET and TOTAL are of the merged view only. */
	for (i = 0; i < v.nr_cpu_ids; i++) {
		good_read(&r, "do_fork");
		r.cpu = i;
		r.flags = PCORE_READ_RESET;
		REFUSED(EINVAL, PCORE_IOC_READ, &r);
		r.flags |= PCORE_READ_KEY;
		REFUSED(EINVAL, PCORE_IOC_READ, &r);
		r.flags = PCORE_READ_TOTAL;
		REFUSED(EINVAL, PCORE_IOC_READ, &r);
	}
	/* A slot without PCORE_READ_KEY, or beyond the keys. */
	good_read(&r, "cpuhists/oncpu");
	r.slot = 1;
	REFUSED(EINVAL, PCORE_IOC_READ, &r);
	r.flags = PCORE_READ_KEY;
	r.slot = v.nr_cpu_ids;
	REFUSED(EINVAL, PCORE_IOC_READ, &r);
	r.slot = UINT_MAX;
	REFUSED(EINVAL, PCORE_IOC_READ, &r);
	r.flags = PCORE_READ_KEY | PCORE_READ_RESET;
	REFUSED(EINVAL, PCORE_IOC_READ, &r);
	good_read(&r, "do_fork");
	r.flags = PCORE_READ_KEY;
	r.slot = 1;
	REFUSED(EINVAL, PCORE_IOC_READ, &r);
	/* The good ones still work. */
	good_read(&r, "do_fork");
	EXPECT_EQ(0, pcore_ioc(self->fd, PCORE_IOC_READ, &r));
	r.count = r.sum = r.min = r.max = 0;
	r.p50 = r.p90 = r.p99 = r.p999 = 0;
	r.error_ppm = 0;
	r.error_abs = r.missed = r.dropped = r.created_ns = 0;
	EXPECT_EQ(0, pcore_ioc(self->fd, PCORE_IOC_READ, &r));
	EXPECT_FORKS(20, r.count - c0, f0);
}

/* Attaches that must fail, and what each fails with. */
static const struct attach_case {
	const char *what;
	int err;
	struct pcore_ioc_attach a;
} attaches[] = {
#define KRET(n) .name = n, .kind = PCORE_ATTACH_KRETPROBE
#define TP(n) .name = n, .kind = PCORE_ATTACH_TRACEPOINT
	{ "kind 0", EINVAL, { .name = "sys_getppid", .kind = 0 } },
	{ "kind 3", EINVAL, { .name = "sys_getppid", .kind = 3 } },
	{ "kind ~0", EINVAL, { .name = "sys_getppid", .kind = ~0U } },
	{ "hist_kind 4", EINVAL, { KRET("sys_getppid"), .hist_kind = 4 } },
	{ "hist_kind ~0", EINVAL, { KRET("sys_getppid"), .hist_kind = ~0U } },
	{ "maxactive 4097", EINVAL, { KRET("sys_getppid"), .maxactive = 4097 } },
	{ "maxactive ~0", EINVAL, { KRET("sys_getppid"), .maxactive = ~0U } },
	{ "maxactive 2^31", EINVAL, { KRET("sys_getppid"), .maxactive = 1U << 31 } },
	{ "tracepoint maxactive 1", EINVAL, { TP("sched_wakeup"), .maxactive = 1 } },
	{ "linear step 0", EINVAL, { KRET("sys_getppid"),
	  .hist_kind = PCORE_UAPI_HIST_LINEAR, .min = 0, .max = 100, .step = 0 } },
	{ "linear max == min", EINVAL, { KRET("sys_getppid"),
	  .hist_kind = PCORE_UAPI_HIST_LINEAR, .min = 100, .max = 100, .step = 1 } },
	{ "linear max < min", EINVAL, { KRET("sys_getppid"),
	  .hist_kind = PCORE_UAPI_HIST_LINEAR, .min = 200, .max = 100, .step = 1 } },
	{ "linear not a multiple", EINVAL, { KRET("sys_getppid"),
	  .hist_kind = PCORE_UAPI_HIST_LINEAR, .min = 0, .max = 100, .step = 7 } },
	{ "linear 2047 buckets", EINVAL, { KRET("sys_getppid"),
	  .hist_kind = PCORE_UAPI_HIST_LINEAR, .min = 0, .max = 2047, .step = 1 } },
	{ "linear 2^64 buckets", EINVAL, { KRET("sys_getppid"),
	  .hist_kind = PCORE_UAPI_HIST_LINEAR, .min = 0, .max = ~0ULL, .step = 1 } },
	{ "all zero linear", EINVAL, { KRET("sys_getppid"),
	  .hist_kind = PCORE_UAPI_HIST_LINEAR } },
	{ "loglinear precision 8", EINVAL, { KRET("sys_getppid"),
	  .hist_kind = PCORE_UAPI_HIST_LOGLINEAR, .precision = 8 } },
	{ "loglinear precision ~0", EINVAL, { KRET("sys_getppid"),
	  .hist_kind = PCORE_UAPI_HIST_LOGLINEAR, .precision = ~0U } },
	{ "loglinear precision 7 up to an hour", EINVAL, { KRET("sys_getppid"),
	  .hist_kind = PCORE_UAPI_HIST_LOGLINEAR, .precision = 7 } },
	{ "exp schema 9", EINVAL, { KRET("sys_getppid"),
	  .hist_kind = PCORE_UAPI_HIST_EXP, .precision = 9 } },
	{ "exp schema ~0", EINVAL, { KRET("sys_getppid"),
	  .hist_kind = PCORE_UAPI_HIST_EXP, .precision = ~0U } },
	{ "exp schema 8 up to 2^64", EINVAL, { KRET("sys_getppid"),
	  .hist_kind = PCORE_UAPI_HIST_EXP, .precision = 8, .max = ~0ULL } },
	{ "hist_kind 6", EINVAL, { KRET("sys_getppid"), .hist_kind = 6 } },
	/* Fields the kind does not use must be zero: none is ignored. */
	{ "default with precision", EINVAL, { KRET("sys_getppid"), .precision = 4 } },
	{ "default with max", EINVAL, { KRET("sys_getppid"), .max = 1000 } },
	{ "log2 with precision", EINVAL, { KRET("sys_getppid"),
	  .hist_kind = PCORE_UAPI_HIST_LOG2, .precision = 1 } },
	{ "log2 with min", EINVAL, { KRET("sys_getppid"),
	  .hist_kind = PCORE_UAPI_HIST_LOG2, .min = 1 } },
	{ "log2 with max", EINVAL, { KRET("sys_getppid"),
	  .hist_kind = PCORE_UAPI_HIST_LOG2, .max = 1 } },
	{ "log2 with step", EINVAL, { KRET("sys_getppid"),
	  .hist_kind = PCORE_UAPI_HIST_LOG2, .step = 1 } },
	{ "linear with precision", EINVAL, { KRET("sys_getppid"),
	  .hist_kind = PCORE_UAPI_HIST_LINEAR, .precision = 4, .max = 100, .step = 1 } },
	{ "loglinear with min", EINVAL, { KRET("sys_getppid"),
	  .hist_kind = PCORE_UAPI_HIST_LOGLINEAR, .min = 1 } },
	{ "loglinear with step", EINVAL, { KRET("sys_getppid"),
	  .hist_kind = PCORE_UAPI_HIST_LOGLINEAR, .step = 1 } },
	{ "exp with min", EINVAL, { KRET("sys_getppid"),
	  .hist_kind = PCORE_UAPI_HIST_EXP, .precision = 4, .min = 1 } },
	{ "exp with step", EINVAL, { KRET("sys_getppid"),
	  .hist_kind = PCORE_UAPI_HIST_EXP, .step = 1 } },
	{ "tracepoint log2 with step", EINVAL, { TP("pcore_no_such_tp"),
	  .hist_kind = PCORE_UAPI_HIST_LOG2, .step = 1 } },
	{ "unknown function", ENOENT, { KRET("pcore_no_such_function") } },
	{ "unknown sys_", ENOENT, { KRET("sys_pcore_no_such_call") } },
	{ "unknown tracepoint", ENOENT, { TP("pcore_no_such_tracepoint") } },
	{ "tracepoint without handler", EINVAL, { TP("sched_wakeup") } },
	{ "tracepoint as kretprobe", ENOENT, { KRET("sched_wakeup") } },
	{ "function as tracepoint", ENOENT, { TP("sys_getppid") } },
	{ "blacklisted", EINVAL, { KRET("get_kprobe") } },
	{ "blacklisted, probe_core's own", EINVAL, { KRET("pcore_hist_add") } },
	{ "data symbol", EINVAL, { KRET("jiffies") } },
	{ "duplicate kretprobe", EINVAL, { KRET("do_fork") } },
	{ "duplicate tracepoint", EINVAL, { TP("sched_switch") } },
	{ "tracepoint's name as kretprobe", EINVAL, { KRET("sched_switch") } },
	{ "kretprobe's name as tracepoint", EINVAL, { TP("do_fork") } },
	{ "same function, another name", EINVAL, { KRET("kernel_clone") } },
	{ "handler module's name", EINVAL, { KRET("cpuhists/oncpu") } },
	/* target='s suffixes, through the device */
	{ "suffix unknown", EINVAL, { KRET("sys_getppid:arg9") } },
	{ "suffix empty", EINVAL, { KRET("sys_getppid:") } },
	{ "suffix count with a unit", EINVAL, { KRET("sys_getppid:count:x") } },
	{ "suffix unit too long", EINVAL, { KRET("sys_getppid:retval:abcdefghijklmnop") } },
	{ "suffix first", EINVAL, { KRET(":count") } },
	{ "suffix, unknown function", ENOENT, { KRET("pcore_no_such_function:count") } },
#undef KRET
#undef TP
};

TEST_F_TIMEOUT(bad, attach, PCORE_TIMEOUT_PATCHING)
{
	unsigned int i;
	int ret;

	for (i = 0; i < ARRAY_SIZE(attaches); i++) {
		struct pcore_ioc_attach a = attaches[i].a;

		ret = pcore_ioc(self->fd, PCORE_IOC_ATTACH, &a);
		EXPECT_EQ(attaches[i].err, ret) {
			TH_LOG("%s: %s", attaches[i].what, strerror(ret));
		}
		EXPECT_EQ(0, pcore_fingerprint(self->fd, fp_after, PCORE_BUF));
		EXPECT_STREQ(fp_before, fp_after) {
			TH_LOG("%s changed something", attaches[i].what);
		}
	}
	/* Refused attaches leave no debugfs directory behind. */
	EXPECT_NE(0, access(PCORE_DBG "/sys_getppid", F_OK));
	EXPECT_NE(0, access(PCORE_DBG "/pcore_no_such_function", F_OK));
	EXPECT_NE(0, access(PCORE_DBG "/get_kprobe", F_OK));
	/* The same name works once the arguments are right. */
	ASSERT_EQ(0, pcore_attach(self->fd, "sys_getppid", PCORE_ATTACH_KRETPROBE));
	EXPECT_EQ(EINVAL, pcore_attach(self->fd, "sys_getppid",
				       PCORE_ATTACH_KRETPROBE));
	ASSERT_EQ(0, pcore_name_ioc(self->fd, PCORE_IOC_DETACH, "sys_getppid"));
}

/*
 * Fuzz: ioctls with commands around the magic (valid numbers, other
 * numbers, sizes and directions), structs of random bytes or of valid
 * ones with random fields, pointers good and bad (pcore_ioctl_fuzz.h, the
 * soak's generator too).  Only documented errnos come back and the kernel
 * warns nothing.
 */
#define FUZZ_ROUNDS	4000

TEST_F_TIMEOUT(bad, fuzz, 600)
{
	static char log[65536];
	unsigned long long seed, counts[6] = { 0 };
	const char *env = getenv("PCORE_FUZZ_SEED");
	void *unmapped = pcore_unmapped_page();
	unsigned int i, j;

	self->changes = true;	/* fuzzed detaches and attaches may work */
	seed = env ? strtoull(env, NULL, 0) : (unsigned long long)time(NULL);
	pcore_rnd_seed(seed);
	TH_LOG("seed %llu (rerun with PCORE_FUZZ_SEED=%llu)", seed, seed);
	ASSERT_NE(NULL, unmapped);

	for (i = 0; i < FUZZ_ROUNDS; i++) {
		unsigned long cmd;
		int ret;

		/* a known command half the time, else anything nearby */
		ret = pcore_fuzz_ioctl(self->fd, unmapped, 2, &cmd);

		switch (ret) {
		case 0:
			counts[0]++;
			break;
		case ENOTTY:
			counts[1]++;
			break;
		case EFAULT:
			counts[2]++;
			break;
		case EINVAL:
			counts[3]++;
			break;
		case ENOENT:
		case ENOSPC:
		/* kind 3, a uprobe: fd 0 may be no file, or not ELF */
		case EBADF:
		case ENOEXEC:
			counts[4]++;
			break;
		default:
			counts[5]++;
			EXPECT_EQ(0, ret) {
				TH_LOG("round %u: command %#lx gave %s", i, cmd,
				       strerror(ret));
			}
		}
	}
	TH_LOG("ok %llu, ENOTTY %llu, EFAULT %llu, EINVAL %llu, ENOENT/ENOSPC/EBADF/ENOEXEC %llu",
	       counts[0], counts[1], counts[2], counts[3], counts[4]);
	/* Every kind of answer came up: the fuzz reached every check. */
	for (j = 0; j < 5; j++)
		EXPECT_LT(0, counts[j]);
	EXPECT_EQ(0, counts[5]);
	EXPECT_EQ(0, pcore_kmsg_bad(self->kmsg, log, sizeof(log))) {
		TH_LOG("kernel log:\n%s", log);
	}
	/* Whatever the fuzz attached detaches: probe_core unloads clean. */
}

TEST_HARNESS_MAIN
