/* SPDX-License-Identifier: GPL-2.0 */
/*
 * insn_direct.c's trampoline, written in assembly, and the C function it
 * calls.
 */
#ifndef INSN_DIRECT_H
#define INSN_DIRECT_H

void insn_direct_tramp(void);
void insn_direct_hit(void);

#endif /* INSN_DIRECT_H */
