// SPDX-License-Identifier: GPL-2.0
/*
 * A process for the user stack tests, built with frame pointers (-O0: no
 * function is inlined): main calls outer, which calls spin_here, two
 * calls deep.  spin_here prints an address of its own, its return
 * address (in outer) and outer's (in main), walking the frame pointer
 * chain as the kernel does, and the three functions' addresses, then
 * waits to be killed: a test writes the first three as the kernel's "[u]"
 * lines.
 */
#include <stdio.h>
#include <unistd.h>

static void *outer_addr, *main_addr;

void spin_here(void)
{
	void *ip;

here:
	ip = &&here;
	printf("%p %p %p %p %p %p\n", ip, __builtin_return_address(0),
	       __builtin_return_address(1), (void *)spin_here, outer_addr,
	       main_addr);
	fflush(stdout);
	for (;;)
		pause();
}

void outer(void)
{
	spin_here();
}

int main(void)
{
	outer_addr = (void *)outer;
	main_addr = (void *)main;
	outer();
	return 0;
}
