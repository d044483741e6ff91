// SPDX-License-Identifier: GPL-2.0
/*
 * User stack frames into names (usym.h).
 *
 * An address of process TGID is looked up in /proc/TGID/maps, read once
 * per process and run: the mapping that holds it gives its file and its
 * offset in the file (address - start + the mapping's offset); the file's
 * executable segments turn that offset into an address of the file's own
 * layout, and its .symtab (else .dynsym) into a function (elfsym.c).  No
 * load address is needed, and a PIE, a shared library and a non-PIE
 * executable are all the same case.
 *
 * Which file: the mapping's own, through /proc/TGID/map_files/START-END
 * (needs CAP_SYS_ADMIN or CAP_CHECKPOINT_RESTORE): it is the file mapped,
 * even deleted or replaced since.  Without it, the maps line's path,
 * used only when its inode number is the mapping's: a file replaced since
 * (a package upgrade renames a new file over it) or deleted ("PATH
 * (deleted)") gives no names, rather than wrong ones.  (A file rewritten
 * in place keeps its inode: that is not detected.)  Files are read once per run, keyed by device
 * and inode.  The build-id of each file is reported (JSON), so that a
 * user can tell which build the names came from.
 *
 * The vDSO is no file: the kernel maps one image into every 64-bit
 * process, so probectl reads its own (AT_SYSINFO_EHDR, through a memfd
 * so that elfsym.c reads it as a file) and uses it for a process's
 * "[vdso]" mapping of the same size (a 32-bit process's differs: VDSO,
 * no name).
 *
 * What has no name: a process gone before probectl read its maps, or
 * exited and not yet reaped (its maps file is empty) (NOPROC: the kernel
 * keeps addresses, not mappings); an address in no
 * mapping (UNMAPPED); anonymous memory, where JIT compilers put their
 * code (ANON); a vDSO that is not probectl's (VDSO, with its offset);
 * a file without a symbol there (a stripped file has only its .dynsym,
 * exported functions; FILE).  A tgid that names another process since
 * (pid reuse) is not detected: show the stacks while the process lives.
 *
 * Everything read is untrusted: a maps line is parsed field by field
 * (pc_usym_parse_maps_line()), over-long lines and bad lines are skipped,
 * at most PC_USYM_MAPS_MAX mappings a process; ELF files are checked by
 * elfsym.c.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include "elfsym.h"
#include "usym.h"

#define PC_USYM_MAPS_MAX	(1U << 18)	/* vm.max_map_count is 65530 */
#define PC_USYM_LINE_MAX	8192		/* PATH_MAX and the fields */

/* A file, as a maps line names it: device and inode. */
struct ufile {
	unsigned int maj, min;
	uint64_t ino;
	bool tried;
	const char *why;	/* NULL once read */
	struct pc_elf_funcs fs;
};

struct umap {
	uint64_t start, end, off, ino;
	unsigned int maj, min;
	char perms[5];
	char *path;		/* "" for plain anonymous memory */
	struct ufile *file;	/* looked up at first use */
};

struct uproc {
	uint32_t tgid;
	const char *why;	/* NULL: maps read */
	struct umap *maps;
	size_t nmaps;
};

struct pc_usym {
	char *proc;
	struct ufile vdso;	/* probectl's own, read at first use */
	uint64_t vdso_size;
	struct uproc *procs;
	size_t nprocs;
	struct ufile **files;
	size_t nfiles;
};

/**
 * pc_usym_new() - a symbolizer, with empty caches
 * @proc: where procfs is, NULL for "/proc" (tests give a directory of
 *	their own, with TGID/maps files)
 *
 * Return: it, or NULL when out of memory.
 */
struct pc_usym *pc_usym_new(const char *proc)
{
	struct pc_usym *u = calloc(1, sizeof(*u));

	if (!u)
		return NULL;
	u->proc = strdup(proc ?: "/proc");
	if (!u->proc) {
		free(u);
		return NULL;
	}
	return u;
}

/**
 * pc_usym_free() - a symbolizer and everything it read
 * @u: it, or NULL
 */
void pc_usym_free(struct pc_usym *u)
{
	size_t i, j;

	if (!u)
		return;
	for (i = 0; i < u->nprocs; i++) {
		for (j = 0; j < u->procs[i].nmaps; j++)
			free(u->procs[i].maps[j].path);
		free(u->procs[i].maps);
	}
	for (i = 0; i < u->nfiles; i++) {
		pc_elf_funcs_free(&u->files[i]->fs);
		free(u->files[i]);
	}
	pc_elf_funcs_free(&u->vdso.fs);
	free(u->procs);
	free(u->files);
	free(u->proc);
	free(u);
}

static int hexdigit(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* 1 to @max hex digits at *@p, then @stop; *@p moves past @stop. */
static bool hexfield(const char **p, unsigned int max, char stop, uint64_t *v)
{
	const char *s = *p;
	unsigned int n = 0;
	int d;

	*v = 0;
	while ((d = hexdigit(*s)) >= 0 && n < max) {
		*v = *v << 4 | (uint64_t)d;
		s++;
		n++;
	}
	if (!n || *s != stop)
		return false;
	*p = s + 1;
	return true;
}

/**
 * pc_usym_parse_maps_line() - one line of /proc/PID/maps, checked
 * @line: "START-END PERMS OFFSET MAJ:MIN INODE [PATH]", without its
 *	newline: START, END, OFFSET 1 to 16 hex digits, START below END;
 *	PERMS four of [r-][w-][x-][ps]; MAJ, MIN 1 to 8 hex digits; INODE
 *	1 to 20 decimal digits below 2^64; PATH, after blanks, to the end
 * @start: set to START
 * @end: set to END
 * @perms: set to PERMS
 * @off: set to OFFSET
 * @maj: set to MAJ
 * @min: set to MIN
 * @ino: set to INODE
 * @path: set to PATH in @line ("" when none)
 *
 * Return: 0, or -EINVAL for a line that is not one.
 */
int pc_usym_parse_maps_line(const char *line, uint64_t *start, uint64_t *end,
			    char perms[5], uint64_t *off, unsigned int *maj,
			    unsigned int *min, uint64_t *ino,
			    const char **path)
{
	static const char ok[4][3] = { "r-", "w-", "x-", "ps" };
	const char *p = line;
	uint64_t v;
	unsigned int i;

	if (!hexfield(&p, 16, '-', start) || !hexfield(&p, 16, ' ', end) ||
	    *start >= *end)
		return -EINVAL;
	for (i = 0; i < 4; i++) {
		if (!p[i] || !strchr(ok[i], p[i]))
			return -EINVAL;
		perms[i] = p[i];
	}
	perms[4] = '\0';
	p += 4;
	if (*p++ != ' ' || !hexfield(&p, 16, ' ', off) ||
	    !hexfield(&p, 8, ':', &v))
		return -EINVAL;
	*maj = v;
	if (!hexfield(&p, 8, ' ', &v))
		return -EINVAL;
	*min = v;
	*ino = 0;
	for (i = 0; *p >= '0' && *p <= '9'; i++, p++) {
		if (i == 20 || *ino > (UINT64_MAX - (*p - '0')) / 10)
			return -EINVAL;
		*ino = *ino * 10 + (*p - '0');
	}
	if (!i || (*p && *p != ' '))
		return -EINVAL;
	while (*p == ' ')
		p++;
	*path = p;
	return 0;
}

/* /proc/TGID/maps into @pr (bad and over-long lines skipped). */
static void read_maps(struct pc_usym *u, struct uproc *pr)
{
	char name[64 + 4096], *line, *nl;
	struct umap m = { 0 }, *bigger;
	const char *path;
	size_t room = 0;
	bool longline = false;
	FILE *f;

	line = malloc(PC_USYM_LINE_MAX);
	snprintf(name, sizeof(name), "%s/%u/maps", u->proc, pr->tgid);
	f = line ? fopen(name, "re") : NULL;
	if (!f) {
		pr->why = !line ? "out of memory" : errno == ENOENT ?
			  "the process is gone" : "its maps cannot be read";
		free(line);
		return;
	}
	while (fgets(line, PC_USYM_LINE_MAX, f)) {
		nl = strchr(line, '\n');
		if (!nl && !feof(f)) {	/* over-long: skip to its end */
			longline = true;
			continue;
		}
		if (nl)
			*nl = '\0';
		if (longline) {
			longline = false;
			continue;
		}
		if (pr->nmaps == PC_USYM_MAPS_MAX)
			break;
		if (pc_usym_parse_maps_line(line, &m.start, &m.end, m.perms,
					    &m.off, &m.maj, &m.min, &m.ino,
					    &path))
			continue;
		if (pr->nmaps == room) {
			room = room ? 2 * room : 64;
			bigger = realloc(pr->maps, room * sizeof(*bigger));
			if (!bigger)
				break;
			pr->maps = bigger;
		}
		m.path = strdup(path);
		if (!m.path)
			break;
		m.file = NULL;
		pr->maps[pr->nmaps++] = m;
	}
	fclose(f);
	free(line);
	/* an exited task not yet reaped (a zombie) has no mm: no lines */
	if (!pr->nmaps)
		pr->why = "the process has exited (no mappings)";
}

static struct uproc *get_proc(struct pc_usym *u, uint32_t tgid)
{
	struct uproc *bigger;
	size_t i;

	for (i = 0; i < u->nprocs; i++)
		if (u->procs[i].tgid == tgid)
			return &u->procs[i];
	bigger = realloc(u->procs, (u->nprocs + 1) * sizeof(*bigger));
	if (!bigger)
		return NULL;
	u->procs = bigger;
	u->procs[u->nprocs] = (struct uproc){ .tgid = tgid };
	read_maps(u, &u->procs[u->nprocs]);
	return &u->procs[u->nprocs++];
}

/*
 * probectl's own vDSO, once: its size from /proc/self/maps, its image
 * copied to a memfd, read as a file.
 */
static struct ufile *get_vdso(struct pc_usym *u)
{
	uint64_t start, end, off, ino, base = getauxval(AT_SYSINFO_EHDR);
	char line[512], perms[5], err[256];
	unsigned int maj, min;
	const char *path;
	size_t done = 0;
	ssize_t n;
	FILE *f;
	int fd;

	if (u->vdso.tried)
		return u->vdso.why ? NULL : &u->vdso;
	u->vdso.tried = true;
	u->vdso.why = "probectl has no vDSO";
	f = base ? fopen("/proc/self/maps", "re") : NULL;
	while (f && fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = '\0';
		if (!pc_usym_parse_maps_line(line, &start, &end, perms, &off,
					     &maj, &min, &ino, &path) &&
		    start == base && !strcmp(path, "[vdso]")) {
			u->vdso_size = end - start;
			break;
		}
	}
	if (f)
		fclose(f);
	fd = u->vdso_size ? memfd_create("probectl-vdso", MFD_CLOEXEC) : -1;
	if (fd < 0)
		return NULL;
	while (done < u->vdso_size) {
		n = write(fd, (const char *)base + done, u->vdso_size - done);
		if (n <= 0)
			break;
		done += n;
	}
	if (done == u->vdso_size &&
	    !pc_elf_funcs_load(fd, "[vdso]", &u->vdso.fs, err, sizeof(err)) &&
	    u->vdso.fs.table)
		u->vdso.why = NULL;
	close(fd);
	return u->vdso.why ? NULL : &u->vdso;
}

static bool ends_with(const char *s, const char *tail)
{
	size_t n = strlen(s), t = strlen(tail);

	return n >= t && !strcmp(s + n - t, tail);
}

/*
 * Is @fd's file the one @m maps?  A regular file, of the mapping's inode
 * number (unless @any: the mapping's own file).  Devices are not
 * compared: btrfs (a subvolume's device) and overlayfs show stat()
 * another device than the maps line's.
 */
static bool same_file(int fd, const struct umap *m, bool any)
{
	struct stat st;

	return !fstat(fd, &st) && S_ISREG(st.st_mode) &&
	       (any || st.st_ino == m->ino);
}

/* The file of mapping @m of @pr, read once per run. */
static struct ufile *get_file(struct pc_usym *u, const struct uproc *pr,
			      struct umap *m)
{
	struct ufile *fl, **bigger;
	char name[128], err[256];
	size_t i;
	int fd;

	for (i = 0; i < u->nfiles; i++) {
		fl = u->files[i];
		if (fl->maj == m->maj && fl->min == m->min && fl->ino == m->ino)
			return fl;
	}
	fl = calloc(1, sizeof(*fl));
	bigger = fl ? realloc(u->files, (u->nfiles + 1) * sizeof(*bigger)) :
		 NULL;
	if (!bigger) {
		free(fl);
		return NULL;
	}
	u->files = bigger;
	u->files[u->nfiles++] = fl;
	*fl = (struct ufile){ .maj = m->maj, .min = m->min, .ino = m->ino };

	/* the mapping's own file, else its path if it is still that file */
	snprintf(name, sizeof(name), "%s/%u/map_files/%llx-%llx", u->proc,
		 pr->tgid, (unsigned long long)m->start,
		 (unsigned long long)m->end);
	fd = open(name, O_RDONLY | O_CLOEXEC);
	if (fd >= 0 && !same_file(fd, m, true)) {
		close(fd);
		fd = -1;
	}
	if (fd < 0 && ends_with(m->path, " (deleted)")) {
		fl->why = "deleted";
		return fl;
	}
	if (fd < 0) {
		fd = open(m->path, O_RDONLY | O_CLOEXEC);
		if (fd < 0) {
			fl->why = "cannot be opened";
			return fl;
		}
		if (!same_file(fd, m, false)) {
			close(fd);
			fl->why = "replaced since it was mapped";
			return fl;
		}
	}
	if (pc_elf_funcs_load(fd, m->path, &fl->fs, err, sizeof(err)))
		fl->why = "not an ELF file probectl reads";
	else if (!fl->fs.table)
		fl->why = "no symbols";
	close(fd);
	return fl;
}

/* An address of a process's vDSO: a name when it is probectl's vDSO. */
static int vdso_lookup(struct pc_usym *u, const struct umap *m,
		       struct pc_usym_res *res, uint64_t back)
{
	const struct pc_elf_func *fn = NULL;
	struct ufile *v = get_vdso(u);

	res->kind = PC_USYM_VDSO;
	if (v && m->end - m->start == u->vdso_size) {
		res->build_id = v->fs.build_id;
		fn = pc_elf_funcs_find(&v->fs, res->file_off, &res->func_off);
	}
	res->file_off += back;
	if (fn) {
		res->kind = PC_USYM_FUNC;
		res->func = fn->name;
		res->func_off += back;
	}
	return 0;
}

/**
 * pc_usym_lookup() - an address of a process, symbolized
 * @u: the symbolizer (its caches grow)
 * @tgid: the process
 * @addr: the address
 * @retaddr: @addr is a return address (a caller's frame): the call is
 *	the instruction before it, so @addr - 1 is looked up (a call may be
 *	a function's last instruction); the offsets given are @addr's
 * @res: the answer (see struct pc_usym_res)
 *
 * Return: 0, or -ENOMEM (@res says NOPROC).
 */
int pc_usym_lookup(struct pc_usym *u, uint32_t tgid, uint64_t addr,
		   bool retaddr, struct pc_usym_res *res)
{
	uint64_t a = retaddr && addr ? addr - 1 : addr, back = addr - a;
	const struct pc_elf_func *fn;
	struct uproc *pr;
	struct umap *m = NULL;
	size_t lo, hi, i;

	memset(res, 0, sizeof(*res));
	res->kind = PC_USYM_NOPROC;
	res->build_id = "";
	pr = get_proc(u, tgid);
	if (!pr)
		return -ENOMEM;
	if (pr->why) {
		res->why = pr->why;
		return 0;
	}
	/* maps are in address order: the last one starting at or below a */
	for (lo = 0, hi = pr->nmaps; lo < hi;) {
		i = lo + (hi - lo) / 2;
		if (pr->maps[i].start <= a)
			lo = i + 1;
		else
			hi = i;
	}
	if (lo && a < pr->maps[lo - 1].end)
		m = &pr->maps[lo - 1];
	res->kind = PC_USYM_UNMAPPED;
	if (!m)
		return 0;
	res->file = m->path;
	if (m->path[0] != '/') {
		res->file_off = a - m->start;
		res->kind = PC_USYM_ANON;
		if (!strcmp(m->path, "[vdso]"))
			return vdso_lookup(u, m, res, back);
		res->file_off += back;
		return 0;
	}
	res->kind = PC_USYM_FILE;
	if (m->off > UINT64_MAX - (a - m->start))
		return 0;
	res->file_off = a - m->start + m->off;
	if (!m->file)
		m->file = get_file(u, pr, m);
	if (!m->file)
		return -ENOMEM;
	res->build_id = m->file->fs.build_id;
	res->why = m->file->why;
	fn = m->file->why ? NULL :
	     pc_elf_funcs_find(&m->file->fs, res->file_off, &res->func_off);
	res->file_off += back;
	if (!fn) {
		res->why = res->why ?: "in no function of its symbol table";
		return 0;
	}
	res->kind = PC_USYM_FUNC;
	res->func = fn->name;
	res->func_off += back;
	return 0;
}
