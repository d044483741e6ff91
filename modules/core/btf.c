// SPDX-License-Identifier: GPL-2.0
/*
 * Is a kernel function's prototype all in registers?  See btf.h.
 *
 * The blob: a struct btf_header, then (at offsets the header gives, from
 * the header's end) a section of types and a section of NUL-terminated
 * strings.  Each type is a struct btf_type and what its kind puts after
 * it; type ids count them from 1 in order (0 is void).  pcore_btf_open()
 * checks the header and walks the types once to check that each fits
 * before the section's end (after that no read goes past it), then
 * indexes them by id: one u32 per type (95,246 types in Debian's 6.1
 * cloud kernel, 107,331 in its 6.12).
 * pcore_btf_regs() then scans the types for the FUNCs of a name and
 * classifies each of their prototype's arguments as the x86-64 System V
 * ABI does for integer values:
 *
 *  - a value of up to 8 bytes (int, pointer, enum, small struct or union)
 *    takes one register;
 *  - 9 to 16 bytes (struct, union, __int128) two, or, when fewer than two
 *    remain, goes on the stack (and later arguments may still take the
 *    register left);
 *  - more than 16 bytes goes on the stack;
 *  - a struct or union of more than 16 bytes returned is written through
 *    a pointer the caller passes as a hidden first argument (rdi).
 *
 * The same rule as the kernel's BPF trampolines (at most six registers'
 * worth, no argument over 16 bytes).  Refused: an argument on the stack
 * (-E2BIG), a variadic function (-EINVAL: its arguments past the named
 * ones are not described), a floating-point argument or return value,
 * also inside a struct of up to 16 bytes (-EINVAL: it would be in an SSE
 * register; the kernel has none, but the check is cheap), and anything
 * malformed (-EINVAL).  Like BPF's rule, the packed structs that the ABI
 * passes in memory although small are not told apart.
 *
 * The prototype is the function's in the source: GCC's clones that
 * change a calling convention have names of their own (foo.isra.0,
 * foo.constprop.0), which are not FUNCs of BTF.  Nor are aliases: a
 * SYSCALL_DEFINE0's __x64_sys_getppid is an alias of __do_sys_getppid,
 * which BTF has; ask about the name of the function at that address.
 */
#include "btf.h"
#ifdef __KERNEL__
#include <linux/err.h>
#include <linux/errno.h>
#include <linux/file.h>
#include <linux/fs.h>
#include <linux/kernel.h>
#include <linux/mm.h>
#include <linux/sizes.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/vmalloc.h>
#include <uapi/linux/btf.h>
#include "probe_core/compat.h"
#else /* host build: tests/host */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/btf.h>

typedef __u8 u8;
typedef __u16 u16;
typedef __u32 u32;
#define GFP_KERNEL			0
#define kvmalloc_array(n, size, gfp)	calloc((n), (size))
#define kvfree(p)			free(p)
#define __printf(a, b)			/* the kernel build checks formats */
#endif

/* What btf_value_regs() says of a value passed on the stack instead. */
#define BTF_STACK	3
/* Members of small structs that a float search visits, at most. */
#define BTF_FLOAT_BUDGET	1024

static __printf(3, 4) void btf_why(char *why, size_t whylen,
				   const char *fmt, ...)
{
	va_list ap;

	if (!why || !whylen)
		return;
	va_start(ap, fmt);
	vsnprintf(why, whylen, fmt, ap);
	va_end(ap);
}

/*
 * The bytes that follow a struct btf_type of @info's kind, or -1 for a
 * kind this parser does not know.
 */
static long btf_extra_len(u32 info)
{
	u32 vlen = BTF_INFO_VLEN(info);

	switch (BTF_INFO_KIND(info)) {
	case BTF_KIND_INT:
		return sizeof(u32);
	case BTF_KIND_PTR:
	case BTF_KIND_FWD:
	case BTF_KIND_TYPEDEF:
	case BTF_KIND_VOLATILE:
	case BTF_KIND_CONST:
	case BTF_KIND_RESTRICT:
	case BTF_KIND_FUNC:
	case BTF_KIND_FLOAT:
	case BTF_KIND_TYPE_TAG:
		return 0;
	case BTF_KIND_ARRAY:
		return sizeof(struct btf_array);
	case BTF_KIND_STRUCT:
	case BTF_KIND_UNION:
		return (long)vlen * sizeof(struct btf_member);
	case BTF_KIND_ENUM:
		return (long)vlen * sizeof(struct btf_enum);
	case BTF_KIND_FUNC_PROTO:
		return (long)vlen * sizeof(struct btf_param);
	case BTF_KIND_VAR:
		return sizeof(struct btf_var);
	case BTF_KIND_DATASEC:
		return (long)vlen * sizeof(struct btf_var_secinfo);
	case BTF_KIND_DECL_TAG:
		return sizeof(struct btf_decl_tag);
	case BTF_KIND_ENUM64:
		return (long)vlen * sizeof(struct btf_enum64);
	}
	return -1;
}

/*
 * Walks the type section: counts its types when @off is NULL, else
 * stores each one's offset.  Fails on a type that does not fit, or whose
 * name is not in the @str_len bytes of strings.
 */
static int btf_walk(const u8 *types, u32 type_len, u32 str_len, u32 *off,
		    u32 *nr, char *why, size_t whylen)
{
	u32 pos = 0, n = 0;
	struct btf_type t;
	long extra;

	while (pos < type_len) {
		if (type_len - pos < sizeof(t)) {
			btf_why(why, whylen,
				"malformed BTF: type %u at %u cut short", n + 1,
				pos);
			return -EINVAL;
		}
		memcpy(&t, types + pos, sizeof(t));
		extra = btf_extra_len(t.info);
		if (extra < 0) {
			btf_why(why, whylen,
				"malformed BTF: type %u has unknown kind %u",
				n + 1, BTF_INFO_KIND(t.info));
			return -EINVAL;
		}
		if (t.name_off >= str_len) {
			btf_why(why, whylen,
				"malformed BTF: type %u has its name at %u, past the strings",
				n + 1, t.name_off);
			return -EINVAL;
		}
		if ((unsigned long)extra > type_len - pos - sizeof(t)) {
			btf_why(why, whylen,
				"malformed BTF: type %u at %u goes past the types",
				n + 1, pos);
			return -EINVAL;
		}
		if (off)
			off[n] = pos;
		n++;
		pos += sizeof(t) + extra;
	}
	*nr = n;
	return 0;
}

/**
 * pcore_btf_open() - check a BTF blob and index its types
 * @btf: filled in; pcore_btf_close() frees it
 * @blob: the BTF, as /sys/kernel/btf/vmlinux holds it; untrusted: nothing
 *	of it is read before it is checked.  It must stay while @btf is used.
 * @len: its length in bytes
 * @why: a short reason when it is refused (may be NULL)
 * @whylen: the room at @why
 *
 * Checks the header (magic, version, sections inside the blob, the
 * strings NUL-terminated) and that every type fits in the type section
 * and has its name in the strings, then allocates an index of one offset
 * per type.
 *
 * Context: may sleep (the index is kvmalloc()ed) in the kernel.
 * Return: 0, -EINVAL (malformed: @why says where) or -ENOMEM.
 */
int pcore_btf_open(struct pcore_btf *btf, const void *blob, size_t len,
		   char *why, size_t whylen)
{
	const u8 *b = blob;
	struct btf_header h;
	size_t body;
	u32 nr, check;
	int ret;

	memset(btf, 0, sizeof(*btf));
	if (len < sizeof(h)) {
		btf_why(why, whylen, "malformed BTF: %zu bytes, no header",
			len);
		return -EINVAL;
	}
	memcpy(&h, b, sizeof(h));
	if (h.magic != BTF_MAGIC || h.version != BTF_VERSION) {
		btf_why(why, whylen,
			"malformed BTF: magic 0x%x version %u, not 0x%x %u",
			h.magic, h.version, BTF_MAGIC, BTF_VERSION);
		return -EINVAL;
	}
	if (h.hdr_len < sizeof(h) || h.hdr_len > len) {
		btf_why(why, whylen,
			"malformed BTF: header of %u bytes in %zu", h.hdr_len,
			len);
		return -EINVAL;
	}
	body = len - h.hdr_len;
	if (h.type_off > body || h.type_len > body - h.type_off) {
		btf_why(why, whylen,
			"malformed BTF: types at %u+%u past the end (%zu)",
			h.type_off, h.type_len, body);
		return -EINVAL;
	}
	if (h.str_off > body || h.str_len > body - h.str_off) {
		btf_why(why, whylen,
			"malformed BTF: strings at %u+%u past the end (%zu)",
			h.str_off, h.str_len, body);
		return -EINVAL;
	}
	btf->types = b + h.hdr_len + h.type_off;
	btf->strs = (const char *)b + h.hdr_len + h.str_off;
	btf->str_len = h.str_len;
	if (!h.str_len || btf->strs[h.str_len - 1]) {
		btf_why(why, whylen,
			"malformed BTF: strings not NUL-terminated");
		return -EINVAL;
	}
	ret = btf_walk(btf->types, h.type_len, h.str_len, NULL, &nr, why,
		       whylen);
	if (ret)
		return ret;
	if (!nr)
		return 0;
	btf->off = kvmalloc_array(nr, sizeof(*btf->off), GFP_KERNEL);
	if (!btf->off) {
		btf_why(why, whylen, "no memory for %u BTF types", nr);
		return -ENOMEM;
	}
	btf_walk(btf->types, h.type_len, h.str_len, btf->off, &check, NULL, 0);
	btf->nr = nr;
	return 0;
}

/**
 * pcore_btf_close() - free what pcore_btf_open() allocated
 * @btf: opened, or zeroed by a failed pcore_btf_open()
 */
void pcore_btf_close(struct pcore_btf *btf)
{
	kvfree(btf->off);
	btf->off = NULL;
	btf->nr = 0;
}

/* Type @id (1 to nr) and the address of what follows its struct btf_type. */
static const u8 *btf_type(const struct pcore_btf *btf, u32 id,
			  struct btf_type *t)
{
	const u8 *p = btf->types + btf->off[id - 1];

	memcpy(t, p, sizeof(*t));
	return p + sizeof(*t);
}

/* The string at @off, or NULL when it is not in the string section. */
static const char *btf_str(const struct pcore_btf *btf, u32 off)
{
	return off < btf->str_len ? btf->strs + off : NULL;
}

/*
 * Follows typedefs, qualifiers and type tags from type @id to the type a
 * value has, at most PCORE_BTF_DEPTH of them.  *@id becomes its id (0:
 * void), *@t it, the return value what follows it; NULL when malformed.
 */
static const u8 *btf_resolve(const struct pcore_btf *btf, u32 *id,
			     struct btf_type *t, char *why, size_t whylen)
{
	u32 from = *id;
	const u8 *extra;
	int i;

	for (i = 0; i <= PCORE_BTF_DEPTH; i++) {
		if (!*id) {
			memset(t, 0, sizeof(*t));
			return btf->types;	/* void: nothing follows */
		}
		if (*id > btf->nr) {
			btf_why(why, whylen,
				"malformed BTF: type id %u, only %u types",
				*id, btf->nr);
			return NULL;
		}
		extra = btf_type(btf, *id, t);
		switch (BTF_INFO_KIND(t->info)) {
		case BTF_KIND_TYPEDEF:
		case BTF_KIND_VOLATILE:
		case BTF_KIND_CONST:
		case BTF_KIND_RESTRICT:
		case BTF_KIND_TYPE_TAG:
			*id = t->type;
			break;
		default:
			return extra;
		}
	}
	btf_why(why, whylen,
		"malformed BTF: more than %d typedefs and qualifiers from type %u",
		PCORE_BTF_DEPTH, from);
	return NULL;
}

/*
 * Whether a value of type @id holds a floating-point value anywhere in
 * it: 1 yes, 0 no, -EINVAL when malformed, nested deeper than
 * PCORE_BTF_DEPTH, or with more members than *@budget allows.
 */
static int btf_has_float(const struct pcore_btf *btf, u32 id, int depth,
			 int *budget, char *why, size_t whylen)
{
	struct btf_member m;
	struct btf_array a;
	struct btf_type t;
	const u8 *extra;
	u32 i, vlen;
	int ret;

	if (depth > PCORE_BTF_DEPTH || --*budget < 0) {
		btf_why(why, whylen,
			"malformed BTF: struct type %u nested too deep or too large",
			id);
		return -EINVAL;
	}
	extra = btf_resolve(btf, &id, &t, why, whylen);
	if (!extra)
		return -EINVAL;
	switch (BTF_INFO_KIND(t.info)) {
	case BTF_KIND_FLOAT:
		return 1;
	case BTF_KIND_ARRAY:
		memcpy(&a, extra, sizeof(a));
		return btf_has_float(btf, a.type, depth + 1, budget, why,
				     whylen);
	case BTF_KIND_STRUCT:
	case BTF_KIND_UNION:
		vlen = BTF_INFO_VLEN(t.info);
		for (i = 0; i < vlen; i++) {
			memcpy(&m, extra + i * sizeof(m), sizeof(m));
			ret = btf_has_float(btf, m.type, depth + 1, budget,
					    why, whylen);
			if (ret)
				return ret;
		}
		return 0;
	}
	return 0;
}

/*
 * The integer registers a value of type @id takes (0 to 2), BTF_STACK
 * when it is passed in memory, or -EINVAL (void, not a value, a float,
 * malformed).  *@size becomes its size.  @what names it for @why.
 */
static int btf_value_regs(const struct pcore_btf *btf, u32 id, u32 *size,
			  const char *what, char *why, size_t whylen)
{
	int budget = BTF_FLOAT_BUDGET;
	struct btf_type t;
	const u8 *extra;
	int ret;

	extra = btf_resolve(btf, &id, &t, why, whylen);
	if (!extra)
		return -EINVAL;
	switch (BTF_INFO_KIND(t.info)) {	/* void: 0, BTF_KIND_UNKN */
	case BTF_KIND_PTR:
		*size = 8;
		return 1;
	case BTF_KIND_INT:	/* up to __int128 */
	case BTF_KIND_ENUM:
	case BTF_KIND_ENUM64:
		if (!t.size ||
		    t.size > (BTF_INFO_KIND(t.info) == BTF_KIND_INT ? 16 : 8)) {
			btf_why(why, whylen,
				"malformed BTF: %s: an integer of %u bytes",
				what, t.size);
			return -EINVAL;
		}
		break;
	case BTF_KIND_STRUCT:
	case BTF_KIND_UNION:
		if (t.size > 16)
			break;
		ret = btf_has_float(btf, id, 0, &budget, why, whylen);
		if (ret < 0)
			return ret;
		if (ret) {
			btf_why(why, whylen,
				"%s: a struct with a floating-point member",
				what);
			return -EINVAL;
		}
		break;
	case BTF_KIND_FLOAT:
		btf_why(why, whylen, "%s: a floating-point value", what);
		return -EINVAL;
	default:
		btf_why(why, whylen,
			"malformed BTF: %s: type %u is not a value", what, id);
		return -EINVAL;
	}
	*size = t.size;
	if (t.size > 16)
		return BTF_STACK;
	/* An empty struct (a GNU extension) takes no register. */
	return t.size > 8 ? 2 : !!t.size;
}

/*
 * The registers a call through the FUNC_PROTO @proto uses, or -E2BIG or
 * -EINVAL with @why saying why.
 */
static int btf_proto_regs(const struct pcore_btf *btf, u32 proto,
			  struct pcore_btf_regs *regs, char *why,
			  size_t whylen)
{
	unsigned int need = 0;
	struct btf_param p;
	struct btf_type t;
	const u8 *extra;
	char what[24];
	u32 i, vlen, size;
	int n;

	if (!proto || proto > btf->nr) {
		btf_why(why, whylen,
			"malformed BTF: prototype id %u, only %u types", proto,
			btf->nr);
		return -EINVAL;
	}
	extra = btf_type(btf, proto, &t);
	if (BTF_INFO_KIND(t.info) != BTF_KIND_FUNC_PROTO) {
		btf_why(why, whylen,
			"malformed BTF: prototype %u of kind %u", proto,
			BTF_INFO_KIND(t.info));
		return -EINVAL;
	}
	regs->ret = 0;
	if (t.type) {
		n = btf_value_regs(btf, t.type, &size, "return value", why,
				   whylen);
		if (n < 0)
			return n;
		if (n == BTF_STACK) {
			need = 1;	/* the hidden pointer, in rdi */
			regs->ret = 1;	/* and back in rax */
		} else {
			regs->ret = n;
		}
	}
	vlen = BTF_INFO_VLEN(t.info);
	for (i = 0; i < vlen; i++) {
		memcpy(&p, extra + i * sizeof(p), sizeof(p));
		if (!p.type && i + 1 == vlen) {
			btf_why(why, whylen,
				"variadic: its arguments past the first %u are not known",
				i);
			return -EINVAL;
		}
		if (!p.type) {
			btf_why(why, whylen,
				"malformed BTF: argument %u is void", i + 1);
			return -EINVAL;
		}
		snprintf(what, sizeof(what), "argument %u", i + 1);
		n = btf_value_regs(btf, p.type, &size, what, why, whylen);
		if (n < 0)
			return n;
		if (n == BTF_STACK) {
			btf_why(why, whylen,
				"argument %u (%u bytes) is passed on the stack",
				i + 1, size);
			return -E2BIG;
		}
		need += n;
	}
	regs->args = need;
	if (need > PCORE_BTF_ARG_REGS) {
		btf_why(why, whylen,
			"%u argument registers needed, %d exist", need,
			PCORE_BTF_ARG_REGS);
		return -E2BIG;
	}
	return 0;
}

/**
 * pcore_btf_regs() - are a function's arguments all in registers?
 * @btf: from pcore_btf_open()
 * @func: the function's name, as BTF and kallsyms spell it
 * @regs: set to the most registers any FUNC of that name uses; meaningful
 *	when 0 is returned (may be NULL)
 * @why: a short reason when it is refused (may be NULL)
 * @whylen: the room at @why (%PCORE_BTF_WHY_MAX is enough)
 *
 * Every FUNC of BTF named @func (static functions of several files may
 * share a name, and kallsyms cannot tell which one a trampoline gets) must
 * take its arguments in at most %PCORE_BTF_ARG_REGS integer registers:
 * none on the stack, not variadic, no floating-point value.  A linear
 * scan of the types, no allocation.
 *
 * Return: 0 when every one does; -ENOENT when BTF has no FUNC of that
 * name; -E2BIG when one has arguments on the stack; -EINVAL when one is
 * variadic, has a floating-point argument or return value, or its types
 * are malformed.
 */
int pcore_btf_regs(const struct pcore_btf *btf, const char *func,
		   struct pcore_btf_regs *regs, char *why, size_t whylen)
{
	struct pcore_btf_regs r, most = { 0 };
	char one[PCORE_BTF_WHY_MAX];
	int ret = 0, found = 0;
	struct btf_type t;
	const char *name;
	u32 id;

	one[0] = '\0';
	for (id = 1; id <= btf->nr; id++) {
		btf_type(btf, id, &t);
		if (BTF_INFO_KIND(t.info) != BTF_KIND_FUNC)
			continue;
		name = btf_str(btf, t.name_off);
		if (!name || strcmp(name, func))
			continue;
		found++;
		if (ret)
			continue;	/* counted for @why */
		r = (struct pcore_btf_regs){ 0 };
		ret = btf_proto_regs(btf, t.type, &r, one, sizeof(one));
		if (r.args > most.args)
			most.args = r.args;
		if (r.ret > most.ret)
			most.ret = r.ret;
	}
	if (!found) {
		btf_why(why, whylen, "not in BTF");
		return -ENOENT;
	}
	if (ret && found > 1)
		btf_why(why, whylen, "one of %d functions %s: %s", found,
			func, one);
	else if (ret)
		btf_why(why, whylen, "%s", one);
	if (!ret && regs)
		*regs = most;
	return ret;
}

/**
 * pcore_btf_func_regs() - are a function's arguments all in registers?
 * @blob: BTF, e.g. from pcore_btf_vmlinux(); untrusted
 * @len: its length in bytes
 * @func: the function's name
 * @regs: as pcore_btf_regs() sets it (may be NULL)
 * @why: a short reason when it is refused (may be NULL)
 * @whylen: the room at @why (%PCORE_BTF_WHY_MAX is enough)
 *
 * pcore_btf_open(), pcore_btf_regs() and pcore_btf_close() in one, for
 * one function; open the blob once to ask about many.
 *
 * Context: may sleep in the kernel.
 * Return: as pcore_btf_regs(), or as pcore_btf_open() when the blob is
 * refused.
 */
int pcore_btf_func_regs(const void *blob, size_t len, const char *func,
			struct pcore_btf_regs *regs, char *why, size_t whylen)
{
	struct pcore_btf btf;
	int ret;

	ret = pcore_btf_open(&btf, blob, len, why, whylen);
	if (!ret)
		ret = pcore_btf_regs(&btf, func, regs, why, whylen);
	pcore_btf_close(&btf);
	return ret;
}

#ifdef __KERNEL__
/* More than any kernel's BTF (Debian's 6.1: 4 MiB, 6.12: 4.5 MiB). */
#define PCORE_BTF_MAX_SIZE	SZ_64M

/**
 * pcore_btf_vmlinux() - the running kernel's BTF
 * @len: set to its length in bytes
 *
 * Reads /sys/kernel/btf/vmlinux, as the calling task's mounts see it,
 * with kernel_read().  Not with kernel_read_file_from_path(): it asks the
 * LSMs about a read of a kind they know, and for READING_UNKNOWN 6.12's
 * IPE (on in Debian's 6.12) WARNs (security/ipe/hooks.c).
 *
 * Context: process context; sleeps.
 * Return: a vmalloc()ed copy the caller vfree()s; ERR_PTR(-ENOENT) when
 * the kernel has no BTF (built without CONFIG_DEBUG_INFO_BTF, or no
 * sysfs mounted), or another ERR_PTR() when it could not be read.
 */
void *pcore_btf_vmlinux(size_t *len)
{
	struct file *f;
	loff_t size, pos = 0;
	ssize_t n;
	void *buf;

	if (!IS_ENABLED(CONFIG_DEBUG_INFO_BTF))
		return ERR_PTR(-ENOENT);
	f = filp_open("/sys/kernel/btf/vmlinux", O_RDONLY, 0);
	if (IS_ERR(f))
		return ERR_CAST(f);
	size = i_size_read(file_inode(f));
	if (size <= 0 || size > PCORE_BTF_MAX_SIZE) {
		buf = ERR_PTR(-EFBIG);
		goto out;
	}
	buf = vmalloc(size);
	if (!buf) {
		buf = ERR_PTR(-ENOMEM);
		goto out;
	}
	/* sysfs gives at most a page a read */
	while (pos < size) {
		n = kernel_read(f, buf + pos, size - pos, &pos);
		if (n <= 0) {
			vfree(buf);
			buf = ERR_PTR(n ? n : -EIO);
			goto out;
		}
	}
	*len = size;
out:
	fput(f);
	return buf;
}
#endif
