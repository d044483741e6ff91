// SPDX-License-Identifier: GPL-2.0
/* Two static functions named helper (prog_b.c has the other): ambiguous. */
static int helper(int x)
{
	return x + 1;
}

int use_a(int x)
{
	return helper(x);
}
