// SPDX-License-Identifier: GPL-2.0
/*
 * A shared library with every kind of symbol probectl's resolver tells
 * apart (libver.map gives the versions):
 *   foo          foo@VER_1 (hidden) and foo@@VER_2 (the default): two
 *                functions
 *   bar          bar@VER_0 and bar@VER_1, both hidden, two functions:
 *                ambiguous
 *   baz          baz@VER_0 and baz@VER_1, both hidden, aliases of one
 *                function: not ambiguous
 *   plain        unversioned in .symtab, @@VER_2 in .dynsym
 *   plain_alias  an alias of plain
 *   data_obj     a data object
 *   ifn          an IFUNC
 * mkelf.sh compiles it with -O0: every function stays a function.
 */
int foo_v1(int x)
{
	return x + 1;
}

int foo_v2(int x)
{
	return x + 2;
}

__asm__(".symver foo_v1, foo@VER_1");
__asm__(".symver foo_v2, foo@@VER_2");

int bar_v0(int x)
{
	return x * 3;
}

int bar_v1(int x)
{
	return x * 5;
}

__asm__(".symver bar_v0, bar@VER_0");
__asm__(".symver bar_v1, bar@VER_1");

int baz_impl(int x)
{
	return x * 7;
}

/* aliases: more names at the address of a function */
#define ALIAS(name, of) \
	__asm__(".globl " #name "\n.type " #name ", @function\n" \
		".set " #name ", " #of)

ALIAS(baz_a, baz_impl);
ALIAS(baz_b, baz_impl);
__asm__(".symver baz_a, baz@VER_0");
__asm__(".symver baz_b, baz@VER_1");

int plain(int x)
{
	return x - 1;
}

ALIAS(plain_alias, plain);

int data_obj = 42;

static int ifn_impl(int x)
{
	return x;
}

static int (*ifn_resolve(void))(int)
{
	return ifn_impl;
}

int ifn(int x) __attribute__((ifunc("ifn_resolve")));
