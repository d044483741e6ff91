/* SPDX-License-Identifier: GPL-2.0 */
#ifndef PCORE_GLOBT_H
#define PCORE_GLOBT_H

int globt_dup2(int v);

#endif
