// SPDX-License-Identifier: GPL-2.0
static int helper(int x)
{
	return x * 2;
}

int use_a(int x);

int use_b(int x)
{
	return helper(x);
}

int main(void)
{
	return use_a(1) + use_b(2) - 6;
}
