// SPDX-License-Identifier: GPL-2.0
/*
 * insn_count: a QEMU TCG plugin that counts the guest instructions each
 * vCPU executes and, whenever a vCPU executes a marker instruction,
 * prints that vCPU's count.
 *
 * A marker is a 7-byte NOP that no compiler emits:
 *
 *	nopl 0x524f4350(%reg)		0f 1f 8r 50 43 4f 52	("PCOR")
 *
 * whose ModRM r/m field r is the marker's id: 0 (%rax), 1 (%rcx), 2, 3,
 * 5, 6 or 7 (r/m 4 would need a SIB byte).  insn_marker.h emits them.
 *
 * Output, one line per marker executed, to the file out=FILE names
 * (default: stderr), then one line per vCPU when QEMU exits:
 *
 *	insn_count vcpu=V id=I insns=N	N: instructions vCPU V executed
 *					before this marker
 *	insn_count exit vcpu=V insns=N	N: all of vCPU V's instructions
 *
 * So the instructions between two markers on one vCPU are the difference
 * of their counts: the first marker counts, the second does not.
 *
 * How it counts.  QEMU 7.2 (plugin API version 1) has inline counters,
 * but each is one memory word for all vCPUs; per-vCPU scoreboards came
 * later.  So a callback at the start of each translation block adds the
 * block's number of instructions to its vCPU's total, and only that
 * vCPU's thread ever writes its slot.  A marker's own callback knows how
 * many of its block's instructions, from the marker on, that block
 * start already added, and takes them off.  QEMU checks for interrupts
 * before a block's plugin callbacks, so a block that an interrupt
 * preempts is not counted; interrupts are taken only between blocks.
 * What would be miscounted is a block that an exception leaves in its
 * middle (a page fault, say): it counts whole.  Markers should therefore
 * bracket code that has been run once already, so that it does not
 * fault.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <qemu-plugin.h>

QEMU_PLUGIN_EXPORT int qemu_plugin_version = QEMU_PLUGIN_VERSION;

/* A marker's user data: its id, and its block's instructions from it on. */
#define MARK_ID_SHIFT	16
#define MARK_REST_MASK	0xffffu

static const unsigned char mark_tail[4] = { 0x50, 0x43, 0x4f, 0x52 };

/* Each vCPU's instructions; slot V is written by vCPU V's thread only. */
static uint64_t *counts;
static unsigned int n_counts;
static FILE *out;

static void tb_exec(unsigned int vcpu, void *udata)
{
	if (vcpu < n_counts)
		counts[vcpu] += (uintptr_t)udata;
}

static void mark_exec(unsigned int vcpu, void *udata)
{
	uintptr_t d = (uintptr_t)udata;

	if (vcpu >= n_counts)
		return;
	fprintf(out, "insn_count vcpu=%u id=%u insns=%" PRIu64 "\n", vcpu,
		(unsigned int)(d >> MARK_ID_SHIFT),
		counts[vcpu] - (d & MARK_REST_MASK));
	fflush(out);
}

/* The marker's id, or -1 when the instruction is no marker. */
static int mark_id(struct qemu_plugin_insn *insn)
{
	const unsigned char *b = qemu_plugin_insn_data(insn);

	if (qemu_plugin_insn_size(insn) != 7 || b[0] != 0x0f ||
	    b[1] != 0x1f || (b[2] & 0xf8) != 0x80 || (b[2] & 7) == 4 ||
	    memcmp(b + 3, mark_tail, sizeof(mark_tail)))
		return -1;
	return b[2] & 7;
}

static void tb_trans(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
	size_t i, n = qemu_plugin_tb_n_insns(tb);

	qemu_plugin_register_vcpu_tb_exec_cb(tb, tb_exec,
					     QEMU_PLUGIN_CB_NO_REGS,
					     (void *)(uintptr_t)n);
	for (i = 0; i < n; i++) {
		struct qemu_plugin_insn *insn = qemu_plugin_tb_get_insn(tb, i);
		int mark = mark_id(insn);
		uintptr_t d;

		if (mark < 0)
			continue;
		/* A block holds at most 512 instructions (TCG_MAX_INSNS). */
		d = (uintptr_t)mark << MARK_ID_SHIFT |
		    ((n - i) & MARK_REST_MASK);
		qemu_plugin_register_vcpu_insn_exec_cb(insn, mark_exec,
						       QEMU_PLUGIN_CB_NO_REGS,
						       (void *)d);
	}
}

static void at_exit(qemu_plugin_id_t id, void *udata)
{
	unsigned int v;

	for (v = 0; v < n_counts; v++)
		fprintf(out, "insn_count exit vcpu=%u insns=%" PRIu64 "\n",
			v, counts[v]);
	if (out != stderr)
		fclose(out);
	else
		fflush(out);
}

QEMU_PLUGIN_EXPORT int qemu_plugin_install(qemu_plugin_id_t id,
					   const qemu_info_t *info,
					   int argc, char **argv)
{
	const char *path = NULL;
	int i;

	if (!info->system_emulation || info->system.max_vcpus < 1) {
		fprintf(stderr, "insn_count: system emulation only\n");
		return -1;
	}
	for (i = 0; i < argc; i++) {
		if (!strncmp(argv[i], "out=", 4) && argv[i][4]) {
			path = argv[i] + 4;
		} else {
			fprintf(stderr, "insn_count: unknown argument '%s' (known: out=FILE)\n",
				argv[i]);
			return -1;
		}
	}
	n_counts = info->system.max_vcpus;
	counts = calloc(n_counts, sizeof(*counts));
	if (!counts) {
		fprintf(stderr, "insn_count: out of memory\n");
		return -1;
	}
	out = path ? fopen(path, "w") : stderr;
	if (!out) {
		fprintf(stderr, "insn_count: cannot write %s: %s\n", path,
			strerror(errno));
		free(counts);
		return -1;
	}
	qemu_plugin_register_vcpu_tb_trans_cb(id, tb_trans);
	qemu_plugin_register_atexit_cb(id, at_exit, NULL);
	return 0;
}
