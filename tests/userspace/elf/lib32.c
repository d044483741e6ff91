// SPDX-License-Identifier: GPL-2.0
/* A 32-bit shared library, linked without a C library (gcc -m32). */
int f32(int x)
{
	return x + 1;
}
