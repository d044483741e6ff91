// SPDX-License-Identifier: GPL-2.0
/* Linked without a C library, statically, then stripped: no symbols. */
static int helper(int x)
{
	return x + 1;
}

void _start(void)
{
	helper(1);
	for (;;)
		;
}
