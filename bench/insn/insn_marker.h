/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Marker instructions for insn_count, the QEMU plugin that prints a
 * vCPU's instruction count whenever the vCPU executes one of them.  A
 * marker is nopl 0x524f4350(%reg), a 7-byte NOP whose ModRM r/m field
 * is its id: 0 (%rax), 1 (%rcx), 2, 3, 5, 6 or 7.  These two are the
 * ends of a measured stretch; the other ids are free.
 */
#ifndef INSN_MARKER_H
#define INSN_MARKER_H

/* nopl 0x524f4350(%rax), id 0: a stretch starts. */
static inline void insn_mark_start(void)
{
	asm volatile(".byte 0x0f, 0x1f, 0x80, 0x50, 0x43, 0x4f, 0x52" ::: "memory");
}

/* nopl 0x524f4350(%rcx), id 1: it ends. */
static inline void insn_mark_end(void)
{
	asm volatile(".byte 0x0f, 0x1f, 0x81, 0x50, 0x43, 0x4f, 0x52" ::: "memory");
}

#endif
