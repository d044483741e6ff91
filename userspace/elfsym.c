// SPDX-License-Identifier: GPL-2.0
/*
 * ELF symbols into file offsets, for uprobes (elfsym.h).
 *
 * A name is looked up in .symtab and .dynsym, whichever are there.  A
 * .dynsym symbol's version is its .gnu.version entry (bit 15 set: hidden,
 * "NAME@V"; clear: the default, "NAME@@V") naming a .gnu.version_d
 * definition; a .symtab name may carry its version literally
 * ("memcpy@@GLIBC_2.14").  What a SYMBOL matches:
 *
 *   NAME@@V   the default version V
 *   NAME@V    version V, hidden or default
 *   NAME      an unversioned symbol or the default version; when there is
 *             neither, the hidden versions, if they are one function
 *
 * Symbols at one address (aliases, a name in both tables) are one
 * function; different addresses are ambiguous, and the error lists them.
 * Only defined STT_FUNC symbols are functions: an IFUNC's address is its
 * resolver's, which runs once, when the program is linked.  The address
 * becomes a file offset through the executable PT_LOAD segment that
 * holds it: offset = address - p_vaddr + p_offset.
 *
 * Everything read from the file is untrusted: libelf bounds the tables
 * and strings, version definitions are walked within their section, and
 * names from the file are printed with '?' for bytes that are not
 * printable ASCII.
 */
#include <errno.h>
#include <gelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "elfsym.h"

/* The machine probectl runs on, whose programs it can probe. */
#if defined(__x86_64__)
#define PC_EM		EM_X86_64
#elif defined(__aarch64__)
#define PC_EM		EM_AARCH64
#elif defined(__riscv) && __riscv_xlen == 64
#define PC_EM		EM_RISCV
#else
#define PC_EM		EM_NONE		/* refused at run time */
#endif

#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define PC_ELFDATA	ELFDATA2LSB
#else
#define PC_ELFDATA	ELFDATA2MSB
#endif

#define VERSYM_HIDDEN	0x8000
#define VERSYM_INDEX	0x7fff
#define MAX_LISTED	8	/* functions named in one error */

/* An executable PT_LOAD segment: its addresses and where it is in the file. */
struct pc_elf_seg {
	uint64_t vaddr;
	uint64_t off;
	uint64_t filesz;
};

/* A version definition of .gnu.version_d. */
struct vdef {
	unsigned int ndx;
	const char *name;
};

/*
 * A symbol whose name (without a version) is the one asked for.  Strings
 * point into libelf's copy of the file: valid until elf_end().
 */
struct cand {
	const char *ver;	/* NULL: unversioned */
	bool def;		/* the default version ("@@") */
	bool taken;		/* the query matches it */
	uint64_t value;
	unsigned char type;
	unsigned int shndx;
};

struct ctx {
	int fd;
	const char *path;
	const char *sym;
	char *err;
	size_t errlen;
	Elf *elf;
	uint64_t size;
	struct pc_elf_seg *segs;
	size_t nsegs;
	struct vdef *vdefs;
	size_t nvdefs;
	struct cand *cands;
	size_t ncands;
	bool undef;		/* the name is there, undefined: imported */
};

/* The message of an error into c->err; evaluates to @ret. */
#define fail(c, ret, fmt, ...)						\
	(snprintf((c)->err, (c)->errlen, fmt, ##__VA_ARGS__), (ret))

/* A string from the file, printable: '?' for other bytes, cut at 64. */
static const char *safe(char *buf, size_t len, const char *s)
{
	size_t i;

	for (i = 0; s[i] && i + 1 < len && i < 64; i++)
		buf[i] = (unsigned char)s[i] > ' ' &&
			 (unsigned char)s[i] < 0x7f ? s[i] : '?';
	buf[i] = '\0';
	return buf;
}

static int hexval(char ch)
{
	if (ch >= '0' && ch <= '9')
		return ch - '0';
	if (ch >= 'a' && ch <= 'f')
		return ch - 'a' + 10;
	if (ch >= 'A' && ch <= 'F')
		return ch - 'A' + 10;
	return -1;
}

/* "0xHEX" or decimal digits, below 2^64. */
static int parse_offset(const char *s, struct pc_elf_sym *q, const char **why)
{
	unsigned int base = 10;
	uint64_t v = 0;
	int d;

	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		base = 16;
		s += 2;
	}
	if (!*s) {
		*why = "an offset is 0xHEX or decimal digits";
		return -EINVAL;
	}
	for (; *s; s++) {
		d = hexval(*s);
		if (d < 0 || (unsigned int)d >= base) {
			*why = "a name does not start with a digit, and an offset is 0xHEX or decimal digits";
			return -EINVAL;
		}
		if (v > (UINT64_MAX - d) / base) {
			*why = "offset above 2^64";
			return -EINVAL;
		}
		v = v * base + d;
	}
	q->is_offset = true;
	q->offset = v;
	return 0;
}

/**
 * pc_elf_parse_sym() - SYMBOL's syntax, without the file
 * @s: NAME, NAME@VERSION, NAME@@VERSION, 0xHEX or decimal: 1 to
 *	PC_ELF_SYM_MAX - 1 printable, non-blank ASCII characters; a name
 *	does not start with a digit
 * @q: filled in; its strings point into @s
 * @why: set to the reason when refused
 *
 * Return: 0 or -EINVAL.
 */
int pc_elf_parse_sym(const char *s, struct pc_elf_sym *q, const char **why)
{
	size_t n = strnlen(s, PC_ELF_SYM_MAX), i;
	const char *at;

	memset(q, 0, sizeof(*q));
	if (!n) {
		*why = "empty symbol";
		return -EINVAL;
	}
	if (n == PC_ELF_SYM_MAX) {
		*why = "symbol longer than 1023 characters";
		return -EINVAL;
	}
	for (i = 0; i < n; i++) {
		if ((unsigned char)s[i] <= ' ' || (unsigned char)s[i] >= 0x7f) {
			*why = "blank, control or non-ASCII character in the symbol";
			return -EINVAL;
		}
	}
	if (s[0] >= '0' && s[0] <= '9')
		return parse_offset(s, q, why);
	at = strchr(s, '@');
	q->name_len = at ? (size_t)(at - s) : n;
	if (!q->name_len) {
		*why = "no function name before '@'";
		return -EINVAL;
	}
	if (!at)
		return 0;
	q->is_default = at[1] == '@';
	q->version = at + 1 + q->is_default;
	if (!*q->version || strchr(q->version, '@')) {
		*why = "a version is NAME@VERSION or NAME@@VERSION";
		return -EINVAL;
	}
	return 0;
}

static const char *machine_name(unsigned int m, char *buf, size_t len)
{
	switch (m) {
	case EM_386:
		return "i386";
	case EM_X86_64:
		return "x86-64";
	case EM_ARM:
		return "arm";
	case EM_AARCH64:
		return "aarch64";
	case EM_RISCV:
		return "riscv";
	case EM_PPC:
		return "powerpc";
	case EM_PPC64:
		return "ppc64";
	case EM_S390:
		return "s390";
	case EM_MIPS:
		return "mips";
	case EM_SPARCV9:
		return "sparc64";
	}
	snprintf(buf, len, "e_machine %u", m);
	return buf;
}

/* The ELF header and the executable segments, after every check. */
static int open_elf(struct ctx *c)
{
	char m1[32], m2[32];
	struct stat st;
	GElf_Ehdr eh;
	GElf_Phdr ph;
	size_t n, i;
	char *ident;

	if (fstat(c->fd, &st))
		return fail(c, -errno, "cannot stat %s: %s", c->path,
			    strerror(errno));
	if (!S_ISREG(st.st_mode))
		return fail(c, -EINVAL, "%s is not a regular file", c->path);
	c->size = st.st_size;
	if (elf_version(EV_CURRENT) == EV_NONE)
		return fail(c, -ENOEXEC, "libelf does not know ELF version %d",
			    EV_CURRENT);
	c->elf = elf_begin(c->fd, ELF_C_READ, NULL);
	if (c->elf && elf_kind(c->elf) == ELF_K_AR)
		return fail(c, -ENOEXEC, "%s is an ar archive (a static library), not an ELF file: probe the program or shared library it is linked into",
			    c->path);
	ident = c->elf ? elf_getident(c->elf, NULL) : NULL;
	if (!ident || elf_kind(c->elf) != ELF_K_ELF)
		return fail(c, -ENOEXEC, "%s is not an ELF file", c->path);
	if (ident[EI_CLASS] == ELFCLASS32)
		return fail(c, -ENOEXEC, "%s is a 32-bit ELF file: probectl probes 64-bit programs only",
			    c->path);
	if (ident[EI_CLASS] != ELFCLASS64 || ident[EI_DATA] != PC_ELFDATA)
		return fail(c, -ENOEXEC, "%s is an ELF file of another class or byte order than this machine's",
			    c->path);
	if (!gelf_getehdr(c->elf, &eh))
		return fail(c, -ENOEXEC, "%s: cannot read its ELF header: %s",
			    c->path, elf_errmsg(-1));
	if (PC_EM == EM_NONE)
		return fail(c, -ENOEXEC, "probectl resolves symbols on x86-64, aarch64 and riscv64 only, not on this machine");
	if (eh.e_machine != PC_EM)
		return fail(c, -ENOEXEC, "%s is an ELF file for %s, not for this machine (%s)",
			    c->path, machine_name(eh.e_machine, m1, sizeof(m1)),
			    machine_name(PC_EM, m2, sizeof(m2)));
	if (eh.e_type == ET_REL)
		return fail(c, -ENOEXEC, "%s is a relocatable object file (.o), not linked: probe the program or shared library it is linked into",
			    c->path);
	if (eh.e_type == ET_CORE)
		return fail(c, -ENOEXEC, "%s is a core dump, not a program",
			    c->path);
	if (eh.e_type != ET_EXEC && eh.e_type != ET_DYN)
		return fail(c, -ENOEXEC, "%s is neither an executable nor a shared library (ELF type %u)",
			    c->path, eh.e_type);
	if (elf_getphdrnum(c->elf, &n))
		return fail(c, -ENOEXEC, "%s: cannot read its program headers: %s",
			    c->path, elf_errmsg(-1));
	c->segs = calloc(n ? n : 1, sizeof(*c->segs));
	if (!c->segs)
		return fail(c, -ENOMEM, "out of memory");
	for (i = 0; i < n; i++) {
		if (!gelf_getphdr(c->elf, i, &ph))
			return fail(c, -ENOEXEC, "%s: cannot read its program header %zu: %s",
				    c->path, i, elf_errmsg(-1));
		if (ph.p_type != PT_LOAD || !(ph.p_flags & PF_X) ||
		    !ph.p_filesz || ph.p_offset > UINT64_MAX - ph.p_filesz ||
		    ph.p_vaddr > UINT64_MAX - ph.p_filesz)
			continue;
		c->segs[c->nsegs++] = (struct pc_elf_seg){ .vaddr = ph.p_vaddr,
			.off = ph.p_offset, .filesz = ph.p_filesz };
	}
	if (!c->nsegs)
		return fail(c, -ENOEXEC, "%s has no executable segment: nothing in it can be probed",
			    c->path);
	return 0;
}

/* A file offset (not an address) must hold code, and be in the file. */
static int check_offset(struct ctx *c, uint64_t off)
{
	size_t i;

	for (i = 0; i < c->nsegs; i++)
		if (off >= c->segs[i].off && off - c->segs[i].off <
		    c->segs[i].filesz)
			break;
	if (i == c->nsegs)
		return fail(c, -ERANGE, "offset 0x%llx is not in an executable segment of %s",
			    (unsigned long long)off, c->path);
	if (off >= c->size)
		return fail(c, -ERANGE, "offset 0x%llx is past the end of %s (%llu bytes): a truncated file?",
			    (unsigned long long)off, c->path,
			    (unsigned long long)c->size);
	return 0;
}

/* An address of the file into its offset; false when no segment has it. */
static bool addr_to_off(const struct ctx *c, uint64_t addr, uint64_t *off)
{
	size_t i;

	for (i = 0; i < c->nsegs; i++) {
		if (addr >= c->segs[i].vaddr &&
		    addr - c->segs[i].vaddr < c->segs[i].filesz) {
			*off = addr - c->segs[i].vaddr + c->segs[i].off;
			return true;
		}
	}
	return false;
}

/* .gnu.version_d: each definition's index and name (not the file's own). */
static int read_verdefs(struct ctx *c, Elf_Scn *scn)
{
	GElf_Verdaux aux;
	GElf_Verdef vd;
	GElf_Shdr sh;
	Elf_Data *d;
	size_t off = 0, max;
	const char *name;

	d = gelf_getshdr(scn, &sh) ? elf_getdata(scn, NULL) : NULL;
	if (!d)
		return fail(c, -ENOEXEC, "%s: cannot read .gnu.version_d: %s",
			    c->path, elf_errmsg(-1));
	max = d->d_size / sizeof(Elf64_Verdef) + 1;
	c->vdefs = calloc(max, sizeof(*c->vdefs));
	if (!c->vdefs)
		return fail(c, -ENOMEM, "out of memory");
	while (c->nvdefs < max && gelf_getverdef(d, off, &vd)) {
		if (!(vd.vd_flags & VER_FLG_BASE) && vd.vd_cnt &&
		    gelf_getverdaux(d, off + vd.vd_aux, &aux)) {
			name = elf_strptr(c->elf, sh.sh_link, aux.vda_name);
			if (name)
				c->vdefs[c->nvdefs++] = (struct vdef){
					.ndx = vd.vd_ndx, .name = name };
		}
		if (!vd.vd_next || vd.vd_next > d->d_size - off)
			break;
		off += vd.vd_next;
	}
	return 0;
}

static const char *vdef_name(const struct ctx *c, unsigned int ndx)
{
	size_t i;

	for (i = 0; i < c->nvdefs; i++)
		if (c->vdefs[i].ndx == ndx)
			return c->vdefs[i].name;
	return NULL;
}

/* The symbols of table @scn: its header in @sh, its data in @d, @n of them. */
static int sym_table(struct ctx *c, Elf_Scn *scn, GElf_Shdr *sh,
		     Elf_Data **d, size_t *n)
{
	size_t esz;

	*d = gelf_getshdr(scn, sh) ? elf_getdata(scn, NULL) : NULL;
	if (!*d)
		return fail(c, -ENOEXEC, "%s: cannot read a symbol table: %s",
			    c->path, elf_errmsg(-1));
	esz = gelf_fsize(c->elf, ELF_T_SYM, 1, EV_CURRENT);
	*n = esz ? (*d)->d_size / esz : 0;
	return 0;
}

/*
 * Every defined symbol of one table whose name is the first @len
 * characters of c->sym, alone or followed by its version.
 */
static int scan(struct ctx *c, Elf_Scn *scn, Elf_Data *versym, size_t len)
{
	size_t n, i, nversym = 0;
	const char *name, *ver;
	struct cand *bigger;
	GElf_Versym vs;
	GElf_Shdr sh;
	GElf_Sym s;
	Elf_Data *d;
	bool def;
	int ret;

	ret = sym_table(c, scn, &sh, &d, &n);
	if (ret)
		return ret;
	if (versym)
		nversym = versym->d_size / sizeof(GElf_Versym);
	for (i = 1; i < n; i++) {
		if (!gelf_getsym(d, i, &s) || !s.st_name)
			continue;
		name = elf_strptr(c->elf, sh.sh_link, s.st_name);
		if (!name || strncmp(name, c->sym, len) ||
		    (name[len] && name[len] != '@'))
			continue;
		if (s.st_shndx == SHN_UNDEF) {
			c->undef = true;
			continue;
		}
		ver = NULL;
		def = false;
		if (name[len] == '@') {		/* "NAME@V" or "NAME@@V" */
			def = name[len + 1] == '@';
			ver = name + len + 1 + def;
		} else if (i < nversym && gelf_getversym(versym, i, &vs) &&
			   (vs & VERSYM_INDEX) > 1) {
			ver = vdef_name(c, vs & VERSYM_INDEX);
			def = !(vs & VERSYM_HIDDEN);
		}
		bigger = realloc(c->cands, (c->ncands + 1) * sizeof(*bigger));
		if (!bigger)
			return fail(c, -ENOMEM, "out of memory");
		c->cands = bigger;
		c->cands[c->ncands++] = (struct cand){ .ver = ver, .def = def,
			.value = s.st_value, .type = GELF_ST_TYPE(s.st_info),
			.shndx = s.st_shndx };
	}
	return 0;
}

/* "NAME@V", "NAME@@V" or "NAME", into buf. */
static const char *label(char *buf, size_t len, const struct ctx *c,
			 size_t namelen, const struct cand *k)
{
	char v[72];

	if (!k->ver)
		snprintf(buf, len, "%.*s", (int)namelen, c->sym);
	else
		snprintf(buf, len, "%.*s%s%s", (int)namelen, c->sym,
			 k->def ? "@@" : "@", safe(v, sizeof(v), k->ver));
	return buf;
}

/* Appends ", s" (no comma first) to buf of len, keeping it terminated. */
static void append(char *buf, size_t len, const char *s)
{
	size_t used = strlen(buf);

	snprintf(buf + used, len - used, "%s%s", used ? ", " : "", s);
}

/* No symbol taken: say what the file has. */
static int fail_not_found(struct ctx *c, size_t namelen, bool symtab,
			  bool dynsym)
{
	char list[512] = "", one[160];
	size_t i, j, listed = 0;

	for (i = 0; i < c->ncands && listed < MAX_LISTED; i++) {
		label(one, sizeof(one), c, namelen, &c->cands[i]);
		for (j = 0; j < i; j++) {
			char prev[160];

			if (!strcmp(label(prev, sizeof(prev), c, namelen,
					  &c->cands[j]), one))
				break;
		}
		if (j == i) {
			append(list, sizeof(list), one);
			listed++;
		}
	}
	if (listed)
		return fail(c, -ENOENT, "no function %s in %s: it has %s",
			    c->sym, c->path, list);
	if (c->undef)
		return fail(c, -ENOENT, "no function %s in %s: it uses %.*s from a shared library (ldd %s lists them): probe it there",
			    c->sym, c->path, (int)namelen, c->sym, c->path);
	if (symtab && dynsym)
		return fail(c, -ENOENT, "no function %s in %s (neither .symtab nor .dynsym has it)",
			    c->sym, c->path);
	if (dynsym)
		return fail(c, -ENOENT, "no function %s in %s (.dynsym does not have it, and there is no .symtab: the file is stripped)",
			    c->sym, c->path);
	return fail(c, -ENOENT, "no function %s in %s (.symtab does not have it, and there is no .dynsym)",
		    c->sym, c->path);
}

/* The symbols taken are not a function: say what they are. */
static int fail_not_function(struct ctx *c)
{
	const struct cand *k = NULL;
	const char *what;
	size_t i;

	for (i = 0; i < c->ncands; i++) {
		if (!c->cands[i].taken)
			continue;
		if (c->cands[i].type == STT_GNU_IFUNC)
			return fail(c, -EINVAL, "%s in %s is an IFUNC resolver (STT_GNU_IFUNC), which runs once, when the program is linked, to choose the implementation that the calls go to: probe that implementation instead (which one it chooses is not known here)",
				    c->sym, c->path);
		k = k ? k : &c->cands[i];
	}
	if (k->shndx == SHN_ABS)
		what = "an absolute value";
	else if (k->type == STT_OBJECT || k->type == STT_COMMON)
		what = "a data object";
	else if (k->type == STT_TLS)
		what = "a thread-local variable";
	else if (k->type == STT_NOTYPE)
		what = "a symbol without a type (an assembler label?)";
	else
		what = "a symbol of another type";
	return fail(c, -EINVAL, "%s in %s is %s, not a function", c->sym,
		    c->path, what);
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* Functions taken at different addresses: name them. */
static int fail_ambiguous(struct ctx *c, size_t namelen, uint64_t *addrs,
			  size_t naddrs)
{
	char list[512] = "", one[200], lbl[160];
	bool versioned = true;
	const struct cand *k;
	size_t i, j;
	uint64_t off;

	qsort(addrs, naddrs, sizeof(*addrs), cmp_u64);
	for (i = 0; i < naddrs && i < MAX_LISTED; i++) {
		k = NULL;
		for (j = 0; j < c->ncands; j++) {
			if (!c->cands[j].taken || c->cands[j].type != STT_FUNC ||
			    c->cands[j].value != addrs[i])
				continue;
			if (!k || (!k->ver && c->cands[j].ver))
				k = &c->cands[j];
		}
		label(lbl, sizeof(lbl), c, namelen, k);
		if (k->ver)
			snprintf(one, sizeof(one), "%s", lbl);
		else if (addr_to_off(c, addrs[i], &off))
			snprintf(one, sizeof(one), "%s at offset 0x%llx", lbl,
				 (unsigned long long)off);
		else
			snprintf(one, sizeof(one), "%s at address 0x%llx",
				 lbl, (unsigned long long)addrs[i]);
		versioned &= !!k->ver;
		append(list, sizeof(list), one);
	}
	if (naddrs > MAX_LISTED)
		append(list, sizeof(list), "...");
	if (versioned)
		return fail(c, -ENOTUNIQ, "ambiguous: %s are different functions in %s: name one with its version",
			    list, c->path);
	return fail(c, -ENOTUNIQ, "ambiguous: %s are different functions in %s: give the offset of one instead (PATH:0xOFFSET)",
		    list, c->path);
}

/* The sections of symbols and versions of a file: the first of each type. */
struct scns {
	Elf_Scn *symtab, *dynsym, *versym, *verdef;
};

static void find_scns(struct ctx *c, struct scns *s)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;

	memset(s, 0, sizeof(*s));
	while ((scn = elf_nextscn(c->elf, scn))) {
		if (!gelf_getshdr(scn, &sh))
			continue;
		if (sh.sh_type == SHT_SYMTAB && !s->symtab)
			s->symtab = scn;
		else if (sh.sh_type == SHT_DYNSYM && !s->dynsym)
			s->dynsym = scn;
		else if (sh.sh_type == SHT_GNU_versym && !s->versym)
			s->versym = scn;
		else if (sh.sh_type == SHT_GNU_verdef && !s->verdef)
			s->verdef = scn;
	}
}

static int find_function(struct ctx *c, const struct pc_elf_sym *q,
			 uint64_t *offset)
{
	Elf_Data *versym = NULL;
	uint64_t *addrs, addr;
	size_t i, j, naddrs = 0, ntaken = 0;
	struct scns s;
	int ret;

	find_scns(c, &s);
	if (!s.symtab && !s.dynsym)
		return fail(c, -ENOENT, "%s has no symbols (no .symtab: stripped; no .dynsym: not dynamically linked): give the function's file offset instead of its name (PATH:0xOFFSET)",
			    c->path);
	if (s.verdef) {
		ret = read_verdefs(c, s.verdef);
		if (ret)
			return ret;
	}
	if (s.versym)
		versym = elf_getdata(s.versym, NULL);
	ret = s.symtab ? scan(c, s.symtab, NULL, q->name_len) : 0;
	if (!ret && s.dynsym)
		ret = scan(c, s.dynsym, versym, q->name_len);
	if (ret)
		return ret;

	/* the query's matches; a bare name falls back to hidden versions */
	for (i = 0; i < c->ncands; i++) {
		struct cand *k = &c->cands[i];

		if (q->version)
			k->taken = k->ver && !strcmp(k->ver, q->version) &&
				   (k->def || !q->is_default);
		else
			k->taken = !k->ver || k->def;
		ntaken += k->taken;
	}
	if (!ntaken && !q->version) {
		for (i = 0; i < c->ncands; i++)
			c->cands[i].taken = true;
		ntaken = c->ncands;
	}
	if (!ntaken)
		return fail_not_found(c, q->name_len, s.symtab, s.dynsym);

	addrs = calloc(c->ncands, sizeof(*addrs));
	if (!addrs)
		return fail(c, -ENOMEM, "out of memory");
	for (i = 0; i < c->ncands; i++) {
		if (!c->cands[i].taken || c->cands[i].type != STT_FUNC)
			continue;
		for (j = 0; j < naddrs && addrs[j] != c->cands[i].value; j++)
			;
		if (j == naddrs)
			addrs[naddrs++] = c->cands[i].value;
	}
	addr = addrs[0];
	if (naddrs > 1)
		ret = fail_ambiguous(c, q->name_len, addrs, naddrs);
	else if (!naddrs)
		ret = fail_not_function(c);
	free(addrs);
	if (ret)
		return ret;
	if (!addr_to_off(c, addr, offset))
		return fail(c, -ENOEXEC, "%s in %s is at address 0x%llx, in no executable segment",
			    c->sym, c->path, (unsigned long long)addr);
	return check_offset(c, *offset);
}

/**
 * pc_elf_resolve() - a function's offset in an ELF file
 * @fd: the file, open for reading; its position is not used
 * @path: its name, for the messages
 * @sym: NAME, NAME@VERSION, NAME@@VERSION, or an offset (0xHEX or
 *	decimal) to check
 * @offset: set to the offset in the file of the function's first
 *	instruction
 * @err: set to one sentence saying why, on error
 * @errlen: size of @err
 *
 * The file must be a 64-bit ELF executable or shared library of this
 * machine.  A name must be a defined STT_FUNC symbol of .symtab or
 * .dynsym, matched as the top of this file says; an offset must be in
 * an executable PT_LOAD segment.
 *
 * Return: 0, or -errno: -EINVAL for a bad @sym or a symbol that is not a
 * function, -ENOEXEC for a file that is not one probectl can probe,
 * -ENOENT for no such function, -ENOTUNIQ for an ambiguous name, -ERANGE
 * for an offset outside the code.
 */
int pc_elf_resolve(int fd, const char *path, const char *sym,
		   uint64_t *offset, char *err, size_t errlen)
{
	struct ctx c = { .fd = fd, .path = path, .sym = sym, .err = err,
			 .errlen = errlen };
	struct pc_elf_sym q;
	const char *why;
	int ret;

	if (errlen)
		err[0] = '\0';
	if (pc_elf_parse_sym(sym, &q, &why))
		return fail(&c, -EINVAL, "symbol '%.80s': %s", sym, why);
	ret = open_elf(&c);
	if (!ret && q.is_offset) {
		ret = check_offset(&c, q.offset);
		if (!ret)
			*offset = q.offset;
	} else if (!ret) {
		ret = find_function(&c, &q, offset);
	}
	if (c.elf)
		elf_end(c.elf);
	free(c.segs);
	free(c.vdefs);
	free(c.cands);
	return ret;
}

/*
 * ---- The other way: file offsets into functions, for user stacks ----
 *
 * probectl symbolizes the user frames of a stack (usym.c) with the same
 * checks of the file as above (open_elf()): the functions of .symtab, or
 * of .dynsym when there is no .symtab (a stripped file: fewer names), and
 * the file's GNU build-id.
 */

/*
 * A name from the file as probectl prints it: printable ASCII, '?' for
 * blanks, control and other bytes and for ';' (the folded format's
 * separator), cut at PC_ELF_NAME_MAX - 1 bytes.  Return: bytes used.
 */
static size_t copy_name(char *dst, const char *s)
{
	unsigned char ch;
	size_t i;

	for (i = 0; s[i] && i < PC_ELF_NAME_MAX - 1; i++) {
		ch = s[i];
		dst[i] = ch > ' ' && ch < 0x7f && ch != ';' ? ch : '?';
	}
	dst[i] = '\0';
	return i + 1;
}

/* The first NT_GNU_BUILD_ID note of a SHT_NOTE section, in hex. */
static void read_build_id(struct ctx *c, struct pc_elf_funcs *fs)
{
	const unsigned char *desc;
	size_t off, next, noff, doff, i;
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	GElf_Nhdr nh;
	Elf_Data *d;

	fs->build_id[0] = '\0';
	while ((scn = elf_nextscn(c->elf, scn))) {
		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_NOTE)
			continue;
		d = elf_getdata(scn, NULL);
		if (!d || !d->d_buf)
			continue;
		/* gelf_getnote() checks that the note lies within d */
		for (off = 0; off < d->d_size; off = next) {
			next = gelf_getnote(d, off, &nh, &noff, &doff);
			if (next <= off)
				break;
			if (nh.n_type != NT_GNU_BUILD_ID || nh.n_namesz != 4 ||
			    memcmp((const char *)d->d_buf + noff, "GNU", 4) ||
			    !nh.n_descsz || nh.n_descsz > PC_ELF_BUILD_ID_MAX)
				continue;
			desc = (const unsigned char *)d->d_buf + doff;
			for (i = 0; i < nh.n_descsz; i++)
				snprintf(fs->build_id + 2 * i, 3, "%02x",
					 desc[i]);
			return;
		}
	}
}

static int by_func_addr(const void *a, const void *b)
{
	const struct pc_elf_func *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	return strcmp(x->name, y->name);
}

/* Is symbol @s a defined function with a name? */
static const char *func_name(struct ctx *c, const GElf_Shdr *sh,
			     const GElf_Sym *s)
{
	const char *name;

	if (GELF_ST_TYPE(s->st_info) != STT_FUNC || !s->st_name ||
	    s->st_shndx == SHN_UNDEF || s->st_shndx == SHN_ABS || !s->st_value)
		return NULL;
	name = elf_strptr(c->elf, sh->sh_link, s->st_name);
	return name && *name ? name : NULL;
}

/* The functions of one symbol table, sorted, one per address. */
static int load_funcs(struct ctx *c, Elf_Scn *scn, struct pc_elf_funcs *fs)
{
	size_t n, i, k = 0, room = 1, used = 0;
	const char *name;
	GElf_Shdr sh;
	GElf_Sym s;
	Elf_Data *d;
	int ret;

	ret = sym_table(c, scn, &sh, &d, &n);
	if (ret)
		return ret;
	for (i = 1; i < n; i++) {
		if (!gelf_getsym(d, i, &s))
			continue;
		name = func_name(c, &sh, &s);
		if (!name)
			continue;
		k++;
		room += strnlen(name, PC_ELF_NAME_MAX - 1) + 1;
	}
	fs->funcs = calloc(k ? k : 1, sizeof(*fs->funcs));
	fs->names = malloc(room);
	if (!fs->funcs || !fs->names)
		return fail(c, -ENOMEM, "out of memory");
	for (i = 1, k = 0; i < n; i++) {
		if (!gelf_getsym(d, i, &s))
			continue;
		name = func_name(c, &sh, &s);
		if (!name || used + strnlen(name, PC_ELF_NAME_MAX - 1) + 1 >
		    room)
			continue;
		fs->funcs[k++] = (struct pc_elf_func){ .addr = s.st_value,
			.size = s.st_size, .name = fs->names + used };
		used += copy_name(fs->names + used, name);
	}
	qsort(fs->funcs, k, sizeof(*fs->funcs), by_func_addr);
	for (i = 0, fs->nfuncs = 0; i < k; i++) {
		if (fs->nfuncs &&
		    fs->funcs[fs->nfuncs - 1].addr == fs->funcs[i].addr) {
			/* aliases: the first name, the largest size */
			if (fs->funcs[i].size > fs->funcs[fs->nfuncs - 1].size)
				fs->funcs[fs->nfuncs - 1].size =
					fs->funcs[i].size;
			continue;
		}
		fs->funcs[fs->nfuncs++] = fs->funcs[i];
	}
	/* a size of 0 (an assembly label): up to the next function */
	for (i = 0; i + 1 < fs->nfuncs; i++)
		if (!fs->funcs[i].size)
			fs->funcs[i].size = fs->funcs[i + 1].addr -
					    fs->funcs[i].addr;
	return 0;
}

/**
 * pc_elf_funcs_load() - the functions of an ELF file, to symbolize with
 * @fd: the file, open for reading (its position is not used); it may be
 *	closed once this returns
 * @path: its name, for the messages
 * @out: filled in; free it with pc_elf_funcs_free(), also on error
 * @err: set to one sentence saying why, on error
 * @errlen: size of @err
 *
 * The file is checked as pc_elf_resolve() checks it.  Its functions are
 * the defined STT_FUNC symbols of .symtab, or of .dynsym when there is no
 * .symtab; none at all is not an error (@out->table is NULL).  Names are
 * printable ASCII: '?' for blanks, ';', control and other bytes, cut at
 * PC_ELF_NAME_MAX - 1 bytes.
 *
 * Return: 0, or -errno as pc_elf_resolve() (-ENOEXEC, -ENOMEM, -EINVAL).
 */
int pc_elf_funcs_load(int fd, const char *path, struct pc_elf_funcs *out,
		      char *err, size_t errlen)
{
	struct ctx c = { .fd = fd, .path = path, .err = err,
			 .errlen = errlen };
	struct scns s;
	int ret;

	memset(out, 0, sizeof(*out));
	if (errlen)
		err[0] = '\0';
	ret = open_elf(&c);
	if (!ret) {
		find_scns(&c, &s);
		read_build_id(&c, out);
		out->table = s.symtab ? ".symtab" : s.dynsym ? ".dynsym" : NULL;
		if (s.symtab || s.dynsym)
			ret = load_funcs(&c, s.symtab ?: s.dynsym, out);
	}
	out->segs = c.segs;
	out->nsegs = c.nsegs;
	if (c.elf)
		elf_end(c.elf);
	return ret;
}

/**
 * pc_elf_funcs_find() - the function at a file offset
 * @fs: the file's functions, from pc_elf_funcs_load()
 * @off: an offset in the file (an address of the mapping, minus the
 *	mapping's start, plus its offset in the file)
 * @func_off: set to @off's distance from the function's start
 *
 * Return: the function, or NULL: @off is in no executable segment, or in
 * no function that the symbol table knows.
 */
const struct pc_elf_func *pc_elf_funcs_find(const struct pc_elf_funcs *fs,
					    uint64_t off, uint64_t *func_off)
{
	size_t i, lo = 0, hi = fs->nfuncs;
	uint64_t addr = 0;
	bool in = false;

	for (i = 0; i < fs->nsegs && !in; i++) {
		if (off >= fs->segs[i].off &&
		    off - fs->segs[i].off < fs->segs[i].filesz) {
			addr = off - fs->segs[i].off + fs->segs[i].vaddr;
			in = true;
		}
	}
	if (!in)
		return NULL;
	/* the last function at or below addr */
	while (lo < hi) {
		i = lo + (hi - lo) / 2;
		if (fs->funcs[i].addr <= addr)
			lo = i + 1;
		else
			hi = i;
	}
	if (!lo)
		return NULL;
	i = lo - 1;
	if (addr - fs->funcs[i].addr >= fs->funcs[i].size &&
	    addr != fs->funcs[i].addr)
		return NULL;
	*func_off = addr - fs->funcs[i].addr;
	return &fs->funcs[i];
}

/**
 * pc_elf_funcs_free() - what pc_elf_funcs_load() allocated
 * @fs: the functions (its fields are cleared)
 */
void pc_elf_funcs_free(struct pc_elf_funcs *fs)
{
	free(fs->funcs);
	free(fs->segs);
	free(fs->names);
	memset(fs, 0, sizeof(*fs));
}
