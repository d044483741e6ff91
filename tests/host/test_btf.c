// SPDX-License-Identifier: GPL-2.0
/*
 * Host tests of modules/core/btf.c, compiled unchanged, under
 * AddressSanitizer and UndefinedBehaviorSanitizer: is a function's
 * prototype all in registers?
 *
 * The blobs are made here, type by type (struct bb), so each case says
 * exactly what BTF it reads, whatever kernel the host runs: prototypes
 * that fit and do not, typedef chains, duplicate names, and malformed
 * blobs, then random corruptions of a valid one (fixed seed).  One last
 * test reads the host's /sys/kernel/btf/vmlinux when there is one.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/btf.h>

#include "kselftest_harness.h"
#include "btf.h"

#define SEED		0x5eed0f9c0ffee123ULL

/* ---- a BTF blob, made a type at a time ---- */

struct bb {
	unsigned char types[64 * 1024];
	__u32 tlen;
	char strs[16 * 1024];
	__u32 slen;
	__u32 nr;	/* the last type id */
	unsigned char blob[sizeof(struct btf_header) + 80 * 1024];
	size_t len;
};

static struct bb *bb_new(void)
{
	struct bb *b = calloc(1, sizeof(*b));

	if (!b)
		abort();
	b->slen = 1;	/* "" at 0 */
	return b;
}

static __u32 bb_str(struct bb *b, const char *s)
{
	__u32 off = b->slen;
	size_t n = strlen(s) + 1;

	if (!*s)
		return 0;
	if (off + n > sizeof(b->strs))
		abort();
	memcpy(b->strs + off, s, n);
	b->slen += n;
	return off;
}

static void bb_put(struct bb *b, const void *p, size_t n)
{
	if (b->tlen + n > sizeof(b->types))
		abort();
	memcpy(b->types + b->tlen, p, n);
	b->tlen += n;
}

static void bb_u32(struct bb *b, __u32 v)
{
	bb_put(b, &v, sizeof(v));
}

/* A struct btf_type; what its kind puts after it comes next. */
static __u32 bb_type(struct bb *b, const char *name, __u32 kind,
		     __u32 vlen, __u32 size_or_type)
{
	struct btf_type t = {
		.name_off = bb_str(b, name),
		.info = kind << 24 | vlen,
		.size = size_or_type,
	};

	bb_put(b, &t, sizeof(t));
	return ++b->nr;
}

static __u32 bb_int(struct bb *b, const char *name, __u32 size)
{
	__u32 id = bb_type(b, name, BTF_KIND_INT, 0, size);

	bb_u32(b, BTF_INT_SIGNED << 24 | size * 8);
	return id;
}

/* PTR, TYPEDEF, CONST, VOLATILE, RESTRICT, TYPE_TAG: a name and a type */
static __u32 bb_ref(struct bb *b, __u32 kind, const char *name, __u32 to)
{
	return bb_type(b, name, kind, 0, to);
}

static __u32 bb_float(struct bb *b, __u32 size)
{
	return bb_type(b, size == 4 ? "float" : "double", BTF_KIND_FLOAT, 0,
		       size);
}

/* A struct (or union) of @n members of @types, packed one after the other. */
static __u32 bb_struct(struct bb *b, __u32 kind, const char *name,
		       __u32 size, int n, const __u32 *types,
		       const __u32 *sizes)
{
	__u32 id = bb_type(b, name, kind, n, size), bits = 0;
	int i;

	for (i = 0; i < n; i++) {
		struct btf_member m = {
			.name_off = 0,
			.type = types[i],
			.offset = kind == BTF_KIND_UNION ? 0 : bits,
		};

		bb_put(b, &m, sizeof(m));
		bits += sizes ? sizes[i] * 8 : 0;
	}
	return id;
}

/* A FUNC_PROTO returning @ret with @n parameters of @params (0: ...). */
static __u32 bb_proto(struct bb *b, __u32 ret, int n, const __u32 *params)
{
	__u32 id = bb_type(b, "", BTF_KIND_FUNC_PROTO, n, ret);
	int i;

	for (i = 0; i < n; i++) {
		struct btf_param p = {
			.name_off = params[i] ? bb_str(b, "a") : 0,
			.type = params[i],
		};

		bb_put(b, &p, sizeof(p));
	}
	return id;
}

static __u32 bb_func(struct bb *b, const char *name, __u32 proto)
{
	return bb_type(b, name, BTF_KIND_FUNC, BTF_FUNC_GLOBAL, proto);
}

/* A function @name(@n parameters of type @param) returning @ret. */
static __u32 bb_func_n(struct bb *b, const char *name, __u32 ret, int n,
		       __u32 param)
{
	__u32 params[32];
	int i;

	for (i = 0; i < n; i++)
		params[i] = param;
	return bb_func(b, name, bb_proto(b, ret, n, params));
}

/* The blob: header, types, strings; b->blob and b->len. */
static void bb_blob(struct bb *b)
{
	struct btf_header h = {
		.magic = BTF_MAGIC,
		.version = BTF_VERSION,
		.hdr_len = sizeof(h),
		.type_off = 0,
		.type_len = b->tlen,
		.str_off = b->tlen,
		.str_len = b->slen,
	};

	memcpy(b->blob, &h, sizeof(h));
	memcpy(b->blob + sizeof(h), b->types, b->tlen);
	memcpy(b->blob + sizeof(h) + b->tlen, b->strs, b->slen);
	b->len = sizeof(h) + b->tlen + b->slen;
}

static struct btf_header *bb_hdr(struct bb *b)
{
	return (struct btf_header *)b->blob;
}

/* The types every test has: long, int, void *, __int128, two structs. */
struct common {
	__u32 lng, i32, ptr, i128, s16, s24, s8;
};

static struct common bb_common(struct bb *b)
{
	struct common c;
	__u32 two[3];

	c.lng = bb_int(b, "long", 8);
	c.i32 = bb_int(b, "int", 4);
	c.ptr = bb_ref(b, BTF_KIND_PTR, "", 0);
	c.i128 = bb_int(b, "__int128", 16);
	two[0] = c.lng;
	two[1] = c.lng;
	two[2] = c.lng;
	c.s16 = bb_struct(b, BTF_KIND_STRUCT, "s16", 16, 2, two,
			  (__u32[]){ 8, 8 });
	c.s24 = bb_struct(b, BTF_KIND_STRUCT, "s24", 24, 3, two,
			  (__u32[]){ 8, 8, 8 });
	c.s8 = bb_struct(b, BTF_KIND_STRUCT, "s8", 8, 1, two,
			 (__u32[]){ 8 });
	return c;
}

/* pcore_btf_func_regs() on @b's blob, @why always set */
struct res {
	int ret;
	struct pcore_btf_regs regs;
	char why[PCORE_BTF_WHY_MAX];
};

static struct res ask(struct bb *b, const char *func)
{
	struct res r;

	memset(&r, 0, sizeof(r));
	strcpy(r.why, "(unset)");
	r.ret = pcore_btf_func_regs(b->blob, b->len, func, &r.regs, r.why,
				    sizeof(r.why));
	return r;
}

#define EXPECT_WHY(r, text)						\
	do {								\
		if (!strstr((r).why, (text)))				\
			TH_LOG("why: \"%s\", wanted \"%s\"", (r).why,	\
			       (text));					\
		EXPECT_NE(NULL, strstr((r).why, (text)));		\
	} while (0)

/* ask(), EXPECTing @want and, unless @text is NULL, a why holding @text */
static struct res expect_ask(struct __test_metadata *_metadata,
			     struct bb *b, const char *func, int want,
			     const char *text)
{
	struct res r = ask(b, func);

	EXPECT_EQ(want, r.ret) TH_LOG("%s: %s", func, r.why);
	if (text)
		EXPECT_WHY(r, text);
	return r;
}

#define ASK(b, func, want, text) expect_ask(_metadata, b, func, want, text)

/* ---- prototypes that fit and that do not ---- */

TEST(register_counts)
{
	struct bb *b = bb_new();
	struct common c = bb_common(b);
	struct res r;

	bb_func(b, "two", bb_proto(b, c.lng, 2, (__u32[]){ c.i32, c.ptr }));
	bb_func_n(b, "none", 0, 0, 0);
	bb_func_n(b, "six", c.i32, 6, c.lng);
	bb_func_n(b, "seven", c.i32, 7, c.lng);
	bb_blob(b);

	r = ASK(b, "two", 0, NULL);
	EXPECT_EQ(2u, r.regs.args);
	EXPECT_EQ(1u, r.regs.ret);
	r = ASK(b, "none", 0, NULL);
	EXPECT_EQ(0u, r.regs.args);
	EXPECT_EQ(0u, r.regs.ret);
	r = ASK(b, "six", 0, NULL);
	EXPECT_EQ(6u, r.regs.args);
	r = ASK(b, "seven", -E2BIG, "7 argument registers needed, 6 exist");
	r = ASK(b, "eight", -ENOENT, "not in BTF");
	/* a type that is not a FUNC is not a function */
	r = ASK(b, "s24", -ENOENT, NULL);
	free(b);
}

TEST(by_value_aggregates)
{
	struct bb *b = bb_new();
	struct common c = bb_common(b);
	__u32 l = c.lng, u16, empty;
	struct res r;

	u16 = bb_struct(b, BTF_KIND_UNION, "u16", 16, 2,
			(__u32[]){ c.s16, c.lng }, NULL);
	empty = bb_struct(b, BTF_KIND_STRUCT, "empty", 0, 0, NULL, NULL);
	bb_func(b, "s24_arg", bb_proto(b, 0, 1, (__u32[]){ c.s24 }));
	bb_func(b, "s16_fits",
		bb_proto(b, 0, 5, (__u32[]){ l, l, l, l, c.s16 }));
	bb_func(b, "s16_spills",
		bb_proto(b, 0, 6, (__u32[]){ l, l, l, l, l, c.s16 }));
	bb_func(b, "u16_fits",
		bb_proto(b, 0, 3, (__u32[]){ u16, l, l }));
	bb_func(b, "i128_spills",
		bb_proto(b, 0, 4, (__u32[]){ c.i128, c.i128, l, c.i128 }));
	bb_func(b, "s8_one", bb_proto(b, c.s8, 6, (__u32[]){ c.s8, l, l, l, l, l }));
	bb_func(b, "ret_s16", bb_proto(b, c.s16, 6, (__u32[]){ l, l, l, l, l, l }));
	bb_func(b, "ret_s24_fits", bb_proto(b, c.s24, 5, (__u32[]){ l, l, l, l, l }));
	bb_func(b, "ret_s24_spills",
		bb_proto(b, c.s24, 6, (__u32[]){ l, l, l, l, l, l }));
	bb_func(b, "empty_arg",
		bb_proto(b, 0, 7, (__u32[]){ empty, l, l, l, l, l, l }));
	bb_blob(b);

	r = ASK(b, "s24_arg", -E2BIG, "argument 1 (24 bytes) is passed on the stack");
	r = ASK(b, "s16_fits", 0, NULL);
	EXPECT_EQ(6u, r.regs.args);
	r = ASK(b, "s16_spills", -E2BIG, "7 argument registers needed, 6 exist");
	r = ASK(b, "u16_fits", 0, NULL);
	EXPECT_EQ(4u, r.regs.args);
	r = ASK(b, "i128_spills", -E2BIG, "7 argument registers needed");
	r = ASK(b, "s8_one", 0, NULL);
	EXPECT_EQ(6u, r.regs.args);
	EXPECT_EQ(1u, r.regs.ret);
	/* up to 16 bytes come back in rax:rdx, no hidden pointer */
	r = ASK(b, "ret_s16", 0, NULL);
	EXPECT_EQ(6u, r.regs.args);
	EXPECT_EQ(2u, r.regs.ret);
	/* more: the caller's buffer is a hidden first argument (rdi) */
	r = ASK(b, "ret_s24_fits", 0, NULL);
	EXPECT_EQ(6u, r.regs.args);
	EXPECT_EQ(1u, r.regs.ret);
	r = ASK(b, "ret_s24_spills", -E2BIG, "7 argument registers needed");
	/* an empty struct takes no register */
	r = ASK(b, "empty_arg", 0, NULL);
	EXPECT_EQ(6u, r.regs.args);
	free(b);
}

TEST(variadic_and_float)
{
	struct bb *b = bb_new();
	struct common c = bb_common(b);
	__u32 f32, f64, sf, sf24;

	f32 = bb_float(b, 4);
	f64 = bb_float(b, 8);
	sf = bb_struct(b, BTF_KIND_STRUCT, "sf", 16, 2,
		       (__u32[]){ c.lng, f64 }, (__u32[]){ 8, 8 });
	sf24 = bb_struct(b, BTF_KIND_STRUCT, "sf24", 24, 2,
			 (__u32[]){ c.s16, f64 }, (__u32[]){ 16, 8 });
	/* int printf_like(const char *, ...) */
	bb_func(b, "printf_like",
		bb_proto(b, c.i32, 2,
			 (__u32[]){ bb_ref(b, BTF_KIND_PTR, "", 0), 0 }));
	bb_func(b, "middle_void",
		bb_proto(b, c.i32, 3, (__u32[]){ c.lng, 0, c.lng }));
	bb_func(b, "takes_float", bb_proto(b, 0, 1, (__u32[]){ f32 }));
	bb_func(b, "returns_double", bb_proto(b, f64, 0, NULL));
	bb_func(b, "float_in_struct",
		bb_proto(b, 0, 1, (__u32[]){
			bb_ref(b, BTF_KIND_CONST, "",
			       bb_struct(b, BTF_KIND_STRUCT, "outer", 16, 1,
					 (__u32[]){ sf }, NULL)) }));
	bb_func(b, "float_in_big_struct", bb_proto(b, 0, 1, (__u32[]){ sf24 }));
	bb_blob(b);

	ASK(b, "printf_like", -EINVAL, "variadic");
	ASK(b, "middle_void", -EINVAL, "malformed BTF: argument 2 is void");
	ASK(b, "takes_float", -EINVAL, "argument 1: a floating-point value");
	ASK(b, "returns_double", -EINVAL, "return value: a floating-point value");
	ASK(b, "float_in_struct", -EINVAL, "floating-point member");
	/* over 16 bytes it is in memory whatever it holds */
	ASK(b, "float_in_big_struct", -E2BIG, "(24 bytes) is passed on the stack");
	free(b);
}

TEST(duplicate_names)
{
	struct bb *b = bb_new();
	struct common c = bb_common(b);
	struct res r;

	bb_func_n(b, "dup", c.i32, 2, c.lng);
	bb_func_n(b, "dup", c.i32, 7, c.lng);
	bb_func_n(b, "dup", c.i32, 1, c.lng);
	bb_func_n(b, "twin", c.i32, 2, c.lng);
	bb_func_n(b, "twin", c.i32, 5, c.lng);
	bb_blob(b);

	r = ASK(b, "dup", -E2BIG, "one of 3 functions dup: 7 argument registers needed");
	/* all fit: the most any of them takes */
	r = ASK(b, "twin", 0, NULL);
	EXPECT_EQ(5u, r.regs.args);
	free(b);
}

TEST(typedef_chains)
{
	struct bb *b = bb_new();
	struct common c = bb_common(b);
	__u32 t, s24, i, loop_a;
	struct res r;

	/* typedef const volatile struct s24 *restrict: a pointer, 1 reg */
	t = bb_ref(b, BTF_KIND_TYPEDEF, "s24_t", c.s24);
	t = bb_ref(b, BTF_KIND_CONST, "", t);
	t = bb_ref(b, BTF_KIND_VOLATILE, "", t);
	t = bb_ref(b, BTF_KIND_PTR, "", t);
	t = bb_ref(b, BTF_KIND_RESTRICT, "", t);
	bb_func_n(b, "ptr_chain", 0, 6, t);
	/* typedef const typedef volatile type_tag struct s24: by value */
	s24 = bb_ref(b, BTF_KIND_TYPE_TAG, "user", c.s24);
	s24 = bb_ref(b, BTF_KIND_VOLATILE, "", s24);
	s24 = bb_ref(b, BTF_KIND_TYPEDEF, "a_t", s24);
	s24 = bb_ref(b, BTF_KIND_CONST, "", s24);
	s24 = bb_ref(b, BTF_KIND_TYPEDEF, "b_t", s24);
	bb_func(b, "value_chain", bb_proto(b, 0, 2, (__u32[]){ c.lng, s24 }));
	/* PCORE_BTF_DEPTH typedefs resolve, one more does not */
	t = c.i32;
	for (i = 0; i < PCORE_BTF_DEPTH; i++)
		t = bb_ref(b, BTF_KIND_TYPEDEF, "deep_t", t);
	bb_func_n(b, "deep_ok", t, 1, t);
	t = bb_ref(b, BTF_KIND_TYPEDEF, "deeper_t", t);
	bb_func_n(b, "too_deep", 0, 1, t);
	/* a loop: typedef a_t b_t; typedef b_t a_t; */
	loop_a = b->nr + 1;
	bb_ref(b, BTF_KIND_TYPEDEF, "loop_a", loop_a + 1);
	bb_ref(b, BTF_KIND_TYPEDEF, "loop_b", loop_a);
	bb_func_n(b, "loop", 0, 1, loop_a);
	/* a typedef of void is no argument */
	bb_func_n(b, "void_t", 0, 1, bb_ref(b, BTF_KIND_TYPEDEF, "v_t", 0));
	bb_blob(b);

	r = ASK(b, "ptr_chain", 0, NULL);
	EXPECT_EQ(6u, r.regs.args);
	r = ASK(b, "value_chain", -E2BIG, "argument 2 (24 bytes) is passed on the stack");
	r = ASK(b, "deep_ok", 0, NULL);
	EXPECT_EQ(1u, r.regs.args);
	EXPECT_EQ(1u, r.regs.ret);
	r = ASK(b, "too_deep", -EINVAL, "more than 32 typedefs");
	r = ASK(b, "loop", -EINVAL, "more than 32 typedefs");
	r = ASK(b, "void_t", -EINVAL, "is not a value");
	free(b);
}

/* Members that lead back to their struct: the float search stops. */
TEST(struct_loops)
{
	struct bb *b = bb_new();
	struct common c = bb_common(b);
	__u32 self, wide, members[200], k;

	self = b->nr + 1;
	bb_struct(b, BTF_KIND_STRUCT, "self", 8, 1, (__u32[]){ self }, NULL);
	bb_func_n(b, "self_arg", 0, 1, self);
	/* 200 members of a struct of 200 members: over the budget */
	for (k = 0; k < 200; k++)
		members[k] = c.i32;
	wide = bb_struct(b, BTF_KIND_STRUCT, "wide", 0, 200, members, NULL);
	for (k = 0; k < 200; k++)
		members[k] = wide;
	bb_func_n(b, "wide_arg", 0, 1,
		  bb_struct(b, BTF_KIND_STRUCT, "wider", 16, 200, members,
			    NULL));
	bb_blob(b);

	ASK(b, "self_arg", -EINVAL, "nested too deep or too large");
	ASK(b, "wide_arg", -EINVAL, "nested too deep or too large");
	free(b);
}

/* ---- malformed blobs ---- */

/* A valid blob of one FUNC f(long, long), its FUNC last. */
static struct bb *good_blob(void)
{
	struct bb *b = bb_new();
	struct common c = bb_common(b);

	bb_func_n(b, "f", c.i32, 2, c.lng);
	bb_blob(b);
	return b;
}

TEST(malformed_headers)
{
	struct bb *b = good_blob();
	struct btf_header *h = bb_hdr(b);
	struct btf_header saved = *h;
	struct res r;
	size_t len;

	r = ask(b, "f");
	ASSERT_EQ(0, r.ret);

	/* cut anywhere inside the header, or at nothing */
	for (len = 0; len < sizeof(*h); len++) {
		r.ret = pcore_btf_func_regs(b->blob, len, "f", NULL, r.why,
					    sizeof(r.why));
		EXPECT_EQ(-EINVAL, r.ret);
		EXPECT_WHY(r, "no header");
	}
	/* a NULL blob of length 0, no why */
	EXPECT_EQ(-EINVAL, pcore_btf_func_regs(NULL, 0, "f", NULL, NULL, 0));

	h->magic = 0x9feb;	/* the other byte order */
	r = ASK(b, "f", -EINVAL, "magic 0x9feb");
	*h = saved;
	h->version = 2;
	r = ASK(b, "f", -EINVAL, NULL);
	*h = saved;
	h->hdr_len = 8;
	r = ASK(b, "f", -EINVAL, "header of 8 bytes");
	h->hdr_len = b->len + 1;
	r = ASK(b, "f", -EINVAL, NULL);
	*h = saved;

	/* type_len past the end, by one and by wrapping */
	h->type_len = h->type_len + h->str_len + 1;
	r = ASK(b, "f", -EINVAL, "types at 0+");
	h->type_off = 4;
	h->type_len = 0xfffffffe;
	r = ASK(b, "f", -EINVAL, NULL);
	*h = saved;
	h->type_off = 0xffffffff;
	r = ASK(b, "f", -EINVAL, NULL);
	*h = saved;

	/* strings past the end, empty, or not NUL-terminated */
	h->str_off = saved.str_off + 1;
	r = ASK(b, "f", -EINVAL, "strings at");
	h->str_off = 0xfffffff0;
	h->str_len = 0x20;
	r = ASK(b, "f", -EINVAL, NULL);
	*h = saved;
	h->str_len = 0;
	r = ASK(b, "f", -EINVAL, "not NUL-terminated");
	h->str_len = saved.str_len - 1;
	r = ASK(b, "f", -EINVAL, "not NUL-terminated");
	*h = saved;

	/* the blob one byte short */
	r.ret = pcore_btf_func_regs(b->blob, b->len - 1, "f", NULL, r.why,
				    sizeof(r.why));
	EXPECT_EQ(-EINVAL, r.ret);
	EXPECT_WHY(r, "strings at");

	/* a longer header (a later BTF version's) is skipped */
	memmove(b->blob + sizeof(*h) + 8, b->blob + sizeof(*h),
		b->len - sizeof(*h));
	memset(b->blob + sizeof(*h), 0, 8);
	h->hdr_len += 8;
	b->len += 8;
	r = ASK(b, "f", 0, NULL);
	EXPECT_EQ(2u, r.regs.args);
	free(b);
}

TEST(malformed_types)
{
	struct bb *b = good_blob();
	struct btf_header *h = bb_hdr(b);
	struct btf_type *func;
	__u32 tlen = h->type_len, func_off, arr;

	func_off = sizeof(*h) + tlen - sizeof(*func);
	func = (struct btf_type *)(b->blob + func_off);

	/* the type section cut inside a type's struct btf_type */
	h->type_len = tlen - 4;
	ASK(b, "f", -EINVAL, "cut short");
	h->type_len = tlen;

	/* a FUNC_PROTO whose parameters go past the types */
	h->type_len = tlen - sizeof(*func) - 4;
	ASK(b, "f", -EINVAL, "goes past the types");
	h->type_len = tlen;

	/* the FUNC's name past the strings */
	func->name_off = h->str_len;
	ASK(b, "f", -EINVAL, "past the strings");
	func->name_off = 0;	/* "" */
	ASK(b, "f", -ENOENT, NULL);
	free(b);

	b = good_blob();
	h = bb_hdr(b);
	func = (struct btf_type *)(b->blob + func_off);
	/* an unknown kind */
	func->info = 25u << 24;
	ASK(b, "f", -EINVAL, "unknown kind 25");
	/* a FUNC whose prototype is out of range, void, or no prototype */
	func->info = BTF_KIND_FUNC << 24;
	func->type = b->nr + 1;
	ASK(b, "f", -EINVAL, "prototype id");
	func->type = 0;
	ASK(b, "f", -EINVAL, NULL);
	func->type = 1;		/* long */
	ASK(b, "f", -EINVAL, "prototype 1 of kind 1");
	free(b);

	/* parameter type ids out of range; an integer of 17 bytes; an array */
	b = bb_new();
	bb_common(b);
	bb_func_n(b, "far", 0, 1, 999);
	bb_func_n(b, "fat", 0, 1, bb_int(b, "fat", 17));
	arr = bb_type(b, "", BTF_KIND_ARRAY, 0, 0);
	bb_put(b, &(struct btf_array){ .type = 1, .index_type = 1,
				       .nelems = 2 }, sizeof(struct btf_array));
	bb_func_n(b, "arr", 0, 1, arr);
	bb_func_n(b, "fwd", 0, 1, bb_type(b, "fwd", BTF_KIND_FWD, 0, 0));
	bb_blob(b);
	ASK(b, "far", -EINVAL, "type id 999");
	ASK(b, "fat", -EINVAL, "an integer of 17 bytes");
	ASK(b, "arr", -EINVAL, "is not a value");
	ASK(b, "fwd", -EINVAL, "is not a value");
	free(b);
}

/* Every kind the parser steps over, before the FUNC asked for. */
TEST(all_kinds)
{
	struct bb *b = bb_new();
	struct common c = bb_common(b);
	struct res r;
	__u32 var;

	bb_type(b, "e", BTF_KIND_ENUM, 2, 4);
	bb_put(b, (__u32[]){ bb_str(b, "A"), 0, bb_str(b, "B"), 1 }, 16);
	bb_type(b, "e64", BTF_KIND_ENUM64, 1, 8);
	bb_put(b, (__u32[]){ bb_str(b, "C"), 1, 2 }, 12);
	var = bb_type(b, "v", BTF_KIND_VAR, 0, c.lng);
	bb_u32(b, BTF_VAR_GLOBAL_ALLOCATED);
	bb_type(b, ".data", BTF_KIND_DATASEC, 1, 8);
	bb_put(b, (__u32[]){ var, 0, 8 }, 12);
	bb_type(b, "tag", BTF_KIND_DECL_TAG, 0, var);
	bb_u32(b, (__u32)-1);
	bb_func(b, "enums", bb_proto(b, b->nr - 4, 2,
				     (__u32[]){ b->nr - 4, b->nr - 3 }));
	bb_blob(b);

	r = ASK(b, "enums", 0, NULL);
	EXPECT_EQ(2u, r.regs.args);
	EXPECT_EQ(1u, r.regs.ret);
	free(b);
}

TEST(open_once_ask_many)
{
	struct bb *b = bb_new();
	struct common c = bb_common(b);
	struct pcore_btf_regs regs;
	struct pcore_btf btf;
	char why[8];	/* too short for any reason: cut, NUL-terminated */

	bb_func_n(b, "a", 0, 3, c.lng);
	bb_func_n(b, "b", 0, 9, c.lng);
	bb_blob(b);
	ASSERT_EQ(0, pcore_btf_open(&btf, b->blob, b->len, why, sizeof(why)));
	EXPECT_EQ(0, pcore_btf_regs(&btf, "a", &regs, why, sizeof(why)));
	EXPECT_EQ(3u, regs.args);
	memset(why, 'x', sizeof(why));
	EXPECT_EQ(-E2BIG, pcore_btf_regs(&btf, "b", &regs, why, sizeof(why)));
	EXPECT_EQ(3u, regs.args);	/* untouched on failure */
	EXPECT_EQ(7u, strlen(why));
	EXPECT_EQ(-E2BIG, pcore_btf_regs(&btf, "b", NULL, NULL, 0));
	pcore_btf_close(&btf);
	pcore_btf_close(&btf);		/* twice is harmless */

	/* no types at all: nothing is found */
	b->nr = 0;
	b->tlen = 0;
	bb_blob(b);
	ASSERT_EQ(0, pcore_btf_open(&btf, b->blob, b->len, why, sizeof(why)));
	EXPECT_EQ(-ENOENT, pcore_btf_regs(&btf, "a", NULL, NULL, 0));
	pcore_btf_close(&btf);
	free(b);
}

/* xorshift64*, fixed seed */
static __u64 rnd(__u64 *s)
{
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * 0x2545f4914f6cdd1dULL;
}

/*
 * Random corruption of a blob with every feature: each answer is one of
 * the documented ones, and AddressSanitizer sees no read outside the
 * blob (which is copied into a buffer of exactly its size).
 */
TEST(corrupted_blobs)
{
	struct bb *b = bb_new();
	struct common c = bb_common(b);
	static const char *const names[] = { "f", "g", "h", "v", "nope" };
	__u64 s = SEED;
	unsigned char *copy;
	int i, j, k, ret, counts[4] = { 0 };
	size_t len;

	bb_func_n(b, "f", c.s16, 3, bb_ref(b, BTF_KIND_TYPEDEF, "t",
					   bb_ref(b, BTF_KIND_CONST, "", c.s16)));
	bb_func_n(b, "g", c.s24, 7, c.ptr);
	bb_func(b, "h", bb_proto(b, 0, 2, (__u32[]){ c.i128, 0 }));
	bb_func_n(b, "v", 0, 6, c.s8);
	bb_blob(b);
	for (i = 0; i < 20000; i++) {
		len = b->len;
		if (!(i % 16))
			len = rnd(&s) % (b->len + 1);
		copy = malloc(len ? len : 1);
		ASSERT_NE(NULL, copy);
		memcpy(copy, b->blob, len);
		for (j = rnd(&s) % 4; j >= 0 && len; j--) {
			k = rnd(&s) % len;
			if (i & 1)
				copy[k] = rnd(&s);
			else
				copy[k] ^= 1u << (rnd(&s) % 8);
		}
		ret = pcore_btf_func_regs(copy, len, names[i % 5], NULL, NULL,
					  0);
		if (ret != 0 && ret != -E2BIG && ret != -EINVAL &&
		    ret != -ENOENT)
			TH_LOG("case %d: %d", i, ret);
		ASSERT_TRUE(ret == 0 || ret == -E2BIG || ret == -EINVAL ||
			    ret == -ENOENT);
		counts[ret == 0 ? 0 : ret == -E2BIG ? 1 : ret == -EINVAL ? 2 : 3]++;
		free(copy);
	}
	/* the corruption hits every outcome */
	for (k = 0; k < 4; k++)
		EXPECT_LT(0, counts[k]);
	free(b);
}

/* ---- the host kernel's BTF, when it has one ---- */

TEST(host_vmlinux)
{
	struct pcore_btf_regs regs;
	char why[PCORE_BTF_WHY_MAX];
	struct pcore_btf btf;
	size_t len = 0, cap = 1 << 20;
	char *blob = malloc(cap);
	ssize_t n;
	int fd;

	ASSERT_NE(NULL, blob);
	fd = open("/sys/kernel/btf/vmlinux", O_RDONLY);
	if (fd < 0) {
		free(blob);
		SKIP(return, "no /sys/kernel/btf/vmlinux on this host");
	}
	while ((n = read(fd, blob + len, cap - len)) > 0) {
		len += n;
		if (len == cap) {
			cap *= 2;
			blob = realloc(blob, cap);
			ASSERT_NE(NULL, blob);
		}
	}
	close(fd);
	ASSERT_EQ(0, n);
	ASSERT_EQ(0, pcore_btf_open(&btf, blob, len, why, sizeof(why)))
		TH_LOG("%s", why);
	TH_LOG("%zu bytes, %u types", len, btf.nr);
	/* ssize_t vfs_read(struct file *, char __user *, size_t, loff_t *) */
	EXPECT_EQ(0, pcore_btf_regs(&btf, "vfs_read", &regs, why, sizeof(why)))
		TH_LOG("vfs_read: %s", why);
	EXPECT_EQ(4u, regs.args);
	EXPECT_EQ(1u, regs.ret);
	EXPECT_EQ(-EINVAL, pcore_btf_regs(&btf, "snprintf", NULL, why,
					  sizeof(why)));
	EXPECT_NE(NULL, strstr(why, "variadic"));
	EXPECT_EQ(-ENOENT, pcore_btf_regs(&btf, "pcore_no_such_function",
					  NULL, why, sizeof(why)));
	pcore_btf_close(&btf);
	free(blob);
}

TEST_HARNESS_MAIN
