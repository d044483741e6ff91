// SPDX-License-Identifier: GPL-2.0
/*
 * Flame graphs: folded stacks in, one self-contained SVG out.
 *
 * The stacks are sorted frame by frame, so that identical stacks are
 * neighbours and every stack shares its longest common prefix with the one
 * before it.  One pass then builds the prefix tree in pre-order: a stack
 * reuses the nodes of the prefix it shares with its predecessor and adds
 * new nodes for the rest, and its count is added to every node on its
 * path.  Identical stacks so merge (their counts add up in one leaf), and
 * the children of a node come out sorted by name.
 *
 * Layout: a synthetic root "all" spans the whole width; a node's width is
 * proportional to its count; children start at their parent's left edge,
 * side by side in name order; what the children leave of a parent's width
 * is the parent's own (self) count.  One row per depth, the root at the
 * bottom, as flame graphs are usually drawn.  Positions are computed in
 * samples (exact integers) and scaled to px only when printed.
 *
 * The SVG needs nothing outside itself: no fonts, styles or scripts from
 * elsewhere.  Each frame is a <g> holding a <title> with its name, weight
 * and share (the browser's hover text), a <rect> and a <text> label cut to
 * fit; the <g>'s data-n is the exact weight.  The weight reads in the
 * counts' unit ("15 calls", "3 samples"), a time (unit "ns") scaled for a
 * person as probectl's text shows values ("10.51 s", "900.0 us").  A
 * small inline script adds click-to-zoom, a search and a details
 * line; it is not needed to read the names.  Frame names are untrusted
 * text: XML's five special characters are escaped, and bytes that XML
 * cannot hold (control characters, invalid UTF-8) become U+FFFD.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "flame.h"
#include "format.h"
#include "pcore_engine.h"

#define PAD		10	/* px left and right of the frames */
#define TOP		40	/* px above the frames: title, search */
#define BOTTOM		24	/* px below the frames: the details line */
#define ROW		16	/* px per depth, a 15 px frame and a gap */
#define CHAR_PX		7.3	/* width of a 12 px monospace character */
#define MIN_PX		0.1	/* frames narrower than this are not drawn */

/**
 * struct node - a frame of the prefix tree
 * @name: its name (points into the caller's stacks), "all" for the root
 * @start: offset of its left edge, in samples from the root's left edge
 * @total: samples in it and under it
 * @depth: 0 for the root, 1 for the stacks' first frames
 * @user: a user frame (struct pc_flame_stack's @nuser)
 */
struct node {
	const char *name;
	unsigned long long start;
	unsigned long long total;
	unsigned int depth;
	bool user;
};

/* Frame by frame, a stack before the stacks it is a prefix of. */
static int stack_cmp(const void *a, const void *b)
{
	const struct pc_flame_stack *x = *(const struct pc_flame_stack **)a;
	const struct pc_flame_stack *y = *(const struct pc_flame_stack **)b;
	unsigned int i;
	int c;

	for (i = 0; i < x->nframes && i < y->nframes; i++) {
		c = strcmp(x->frames[i], y->frames[i]);
		if (c)
			return c;
	}
	return (x->nframes > y->nframes) - (x->nframes < y->nframes);
}

static int check_stacks(const struct pc_flame_stack *s, size_t n)
{
	size_t i;
	unsigned int j;

	if (n > PC_FOLDED_MAX_LINES)
		return -E2BIG;
	for (i = 0; i < n; i++) {
		if (!s[i].nframes || s[i].nframes > PC_FLAME_MAX_FRAMES ||
		    !s[i].frames)
			return -EINVAL;
		for (j = 0; j < s[i].nframes; j++)
			if (!s[i].frames[j] || !s[i].frames[j][0])
				return -EINVAL;
	}
	return 0;
}

/*
 * The prefix tree of @n stacks, in pre-order, into *@nodes (*@nn of them);
 * the root is (*@nodes)[0].  Return: 0, -ENOMEM, or -EOVERFLOW when the
 * counts add up to more than 2^64 - 1.
 */
static int build_tree(const struct pc_flame_stack *s, size_t n,
		      struct node **nodes, size_t *nn)
{
	size_t path[PC_FLAME_MAX_FRAMES + 1], next[PC_FLAME_MAX_FRAMES + 2];
	const struct pc_flame_stack **sorted, *prev = NULL, *cur;
	unsigned long long total = 0;
	size_t i, max = 1, used = 1;
	unsigned int j, k, d;
	struct node *t;

	for (i = 0; i < n; i++) {
		if (total + s[i].count < total)
			return -EOVERFLOW;
		total += s[i].count;
		max += s[i].nframes;
	}
	sorted = calloc(n ? n : 1, sizeof(*sorted));
	t = calloc(max, sizeof(*t));
	if (!sorted || !t) {
		free(sorted);
		free(t);
		return -ENOMEM;
	}
	for (i = 0; i < n; i++)
		sorted[i] = &s[i];
	qsort(sorted, n, sizeof(*sorted), stack_cmp);

	t[0].name = "all";
	t[0].total = total;
	path[0] = 0;
	for (i = 0; i < n; i++) {
		cur = sorted[i];
		k = 0;	/* frames shared with the previous stack */
		while (prev && k < prev->nframes && k < cur->nframes &&
		       !strcmp(prev->frames[k], cur->frames[k]))
			k++;
		for (j = k; j < cur->nframes; j++) {
			t[used].name = cur->frames[j];
			t[used].depth = j + 1;
			t[used].user = j >= 1 && j <= cur->nuser;
			path[j + 1] = used++;
		}
		for (j = 1; j <= cur->nframes; j++)
			t[path[j]].total += cur->count;	/* <= total */
		prev = cur;
	}
	free(sorted);

	/*
	 * Left edges, in pre-order: a node right after its parent is the
	 * parent's first child and starts where the parent starts; a later
	 * child starts where its previous sibling ended.
	 */
	next[0] = 0;
	for (i = 1; i < used; i++) {
		d = t[i].depth;
		if (t[i - 1].depth == d - 1)
			next[d] = t[i - 1].start;
		t[i].start = next[d];
		next[d] += t[i].total;
	}
	*nodes = t;
	*nn = used;
	return 0;
}

/*
 * The length of the UTF-8 sequence at @s, or 0 when it is not one that
 * XML may hold (a control character, a malformed, overlong or surrogate
 * sequence, or a code point above U+10FFFF).
 */
static size_t utf8_len(const unsigned char *s)
{
	unsigned int cp, n, i;

	if (s[0] < 0x80)
		return s[0] >= 0x20 && s[0] != 0x7f ? 1 : 0;
	if (s[0] >= 0xc2 && s[0] <= 0xdf) {
		n = 2;
		cp = s[0] & 0x1f;
	} else if (s[0] >= 0xe0 && s[0] <= 0xef) {
		n = 3;
		cp = s[0] & 0x0f;
	} else if (s[0] >= 0xf0 && s[0] <= 0xf4) {
		n = 4;
		cp = s[0] & 0x07;
	} else {
		return 0;
	}
	for (i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)	/* also stops at the NUL */
			return 0;
		cp = cp << 6 | (s[i] & 0x3f);
	}
	if ((n == 3 && cp < 0x800) || (n == 4 && cp < 0x10000) ||
	    (cp >= 0xd800 && cp <= 0xdfff) || cp > 0x10ffff ||
	    cp == 0xfffe || cp == 0xffff)
		return 0;
	return n;
}

/* Characters (code points) of @s as pc_xml_put() writes them. */
static size_t xml_chars(const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t n = 0, len;

	while (*p) {
		len = utf8_len(p);
		p += len ? len : 1;
		n++;
	}
	return n;
}

/**
 * pc_xml_put() - text as XML character data (or an attribute value)
 * @f: where to
 * @s: the text, untrusted
 * @max: at most this many characters (code points)
 *
 * & < > " ' escaped, what XML cannot hold (control characters, invalid
 * UTF-8) as U+FFFD.
 */
void pc_xml_put(FILE *f, const char *s, size_t max)
{
	/* The characters XML escapes, and their entities, in that order. */
	static const char special[] = "&<>\"'";
	static const char *const entity[] = {
		"&amp;", "&lt;", "&gt;", "&quot;", "&apos;",
	};
	const unsigned char *p = (const unsigned char *)s;
	const char *c;
	size_t len;

	for (; *p && max; max--) {
		len = utf8_len(p);
		c = strchr(special, *p);	/* *p is not the NUL here */
		if (!len) {
			fputs("\xef\xbf\xbd", f);
			len = 1;
		} else if (c) {
			fputs(entity[c - special], f);
		} else {
			fwrite(p, 1, len, f);
		}
		p += len;
	}
}

/* FNV-1a of the function's name: up to "+0x", the offset, or the end. */
static uint32_t name_hash(const char *s)
{
	uint32_t h = 2166136261u;

	for (; *s && *s != '+'; s++) {
		h ^= (unsigned char)*s;
		h *= 16777619u;
	}
	return h;
}

/*
 * A frame's colour, the same for the same function in every graph: warm
 * (red to yellow) for the kernel's own functions, blue-green for a
 * module's ("... [mod]"), violet for a process's user frames (known
 * from the device, not from a folded file), green-grey for frames that
 * are not functions ("[user] comm", "[idle]", "[unknown]") and grey for
 * the root.
 */
static void colour(char *buf, size_t len, const struct node *nd)
{
	const char *s = nd->name;
	size_t n = strlen(s);
	uint32_t h = name_hash(s);
	unsigned int a = h & 0xff, b = h >> 8 & 0xff, c = h >> 16 & 0xff;
	unsigned int r, g, bl;

	if (!nd->depth) {
		r = 200;
		g = 200;
		bl = 200;
	} else if (nd->user && s[0] != '[') {
		r = 160 + a * 60 / 255;
		g = 110 + b * 50 / 255;
		bl = 210 + c * 45 / 255;
	} else if (s[0] == '[') {
		r = 130 + a * 50 / 255;
		g = 180 + a * 50 / 255;
		bl = 130 + b * 40 / 255;
	} else if (n > 3 && s[n - 1] == ']' && strstr(s, " [")) {
		r = 60 + a * 60 / 255;
		g = 160 + b * 60 / 255;
		bl = 200 + c * 55 / 255;
	} else {
		r = 205 + a * 50 / 255;
		g = 80 + b * 150 / 255;
		bl = c * 55 / 255;
	}
	snprintf(buf, len, "rgb(%u,%u,%u)", r, g, bl);
}

/*
 * The inline script: hover shows a frame's title on the details line, a
 * click zooms to that frame (its ancestors stretch to the full width, its
 * descendants scale with it, the rest hide), "Reset zoom" undoes it, and
 * "Search" highlights frames whose name contains a text and shows the
 * share of samples under the outermost matches.  Its state lives in the
 * elements (g.pc); the drawn attributes are the truth it starts from.
 */
static const char script[] =
"var svg = document.getElementById('frames').ownerSVGElement;\n"
"var W = +svg.getAttribute('width'), PAD = 10, CW = 7.3, E = 0.02;\n"
"var frames = [], details, matched, unzoom;\n"
"function fit(g, w) {\n"
"	var cs = Array.from(g.pc.name), n = Math.floor((w - 6) / CW);\n"
"	g.pc.text.textContent = cs.length <= n ? g.pc.name :\n"
"		n < 3 ? '' : cs.slice(0, n - 2).join('') + '..';\n"
"}\n"
"function place(g, x, w) {\n"
"	g.style.display = '';\n"
"	g.pc.rect.setAttribute('x', x.toFixed(2));\n"
"	g.pc.rect.setAttribute('width', w.toFixed(2));\n"
"	g.pc.text.setAttribute('x', (x + 3).toFixed(2));\n"
"	fit(g, w);\n"
"}\n"
"function zoom(z) {\n"
"	var zx = z.pc.x, zw = z.pc.w, zy = z.pc.y, k = (W - 2 * PAD) / zw;\n"
"	frames.forEach(function (g) {\n"
"		var p = g.pc;\n"
"		if (p.y >= zy && p.x <= zx + E && p.x + p.w >= zx + zw - E)\n"
"			place(g, PAD, W - 2 * PAD);\n"
"		else if (p.y < zy && p.x >= zx - E && p.x + p.w <= zx + zw + E)\n"
"			place(g, PAD + (p.x - zx) * k, p.w * k);\n"
"		else\n"
"			g.style.display = 'none';\n"
"	});\n"
"	unzoom.style.display = '';\n"
"}\n"
"function reset() {\n"
"	frames.forEach(function (g) { place(g, g.pc.x, g.pc.w); });\n"
"	unzoom.style.display = 'none';\n"
"}\n"
"function search() {\n"
"	var s = window.prompt('Frames whose name contains (empty: clear)', '');\n"
"	var hits = [], sum = 0, end = -1;\n"
"	if (s === null)\n"
"		return;\n"
"	frames.forEach(function (g) {\n"
"		var hit = s !== '' && g.pc.name.indexOf(s) >= 0;\n"
"		g.pc.rect.setAttribute('fill', hit ? 'rgb(230,0,230)' : g.pc.fill);\n"
"		if (hit)\n"
"			hits.push(g.pc);\n"
"	});\n"
"	hits.sort(function (a, b) { return a.x - b.x || b.y - a.y; });\n"
"	hits.forEach(function (p) {\n"
"		if (p.x >= end - E) {\n"
"			sum += p.n;\n"
"			end = p.x + p.w;\n"
"		}\n"
"	});\n"
"	matched.textContent = s === '' ? ' ' : 'Matched: ' +\n"
"		(frames[0].pc.n ? 100 * sum / frames[0].pc.n : 0).toFixed(2) + '%';\n"
"}\n"
"function init() {\n"
"	details = document.getElementById('details');\n"
"	matched = document.getElementById('matched');\n"
"	unzoom = document.getElementById('unzoom');\n"
"	Array.prototype.forEach.call(document.getElementsByClassName('f'),\n"
"		function (g) {\n"
"		var r = g.getElementsByTagName('rect')[0];\n"
"		var t = g.getElementsByTagName('title')[0].textContent;\n"
"		var i = t.lastIndexOf(' (');\n"
"		g.pc = { rect: r, text: g.getElementsByTagName('text')[0],\n"
"			title: t, name: t.slice(0, i),\n"
"			n: +g.getAttribute('data-n'),\n"
"			x: +r.getAttribute('x'), w: +r.getAttribute('width'),\n"
"			y: +r.getAttribute('y'), fill: r.getAttribute('fill') };\n"
"		g.onmouseover = function () { details.textContent = t; };\n"
"		g.onmouseout = function () { details.textContent = ' '; };\n"
"		g.onclick = function () { zoom(g); };\n"
"		frames.push(g);\n"
"	});\n"
"	unzoom.onclick = reset;\n"
"	document.getElementById('search').onclick = search;\n"
"}\n"
"init();\n";

/*
 * A weight @n in @unit: a time (ns) as probectl's text shows a value
 * (pc_fmt_value(): "10.51 s", "900.0 us"); else the number and the unit,
 * the unit without its plural "s" for 1 ("1 call", but "1 ns").
 */
static void put_weight(FILE *f, unsigned long long n, const char *unit)
{
	char buf[PCORE_FMT_NS_LEN];
	size_t len = strlen(unit);
	char one[64];

	if (!strcmp(unit, "ns")) {
		pc_fmt_value(buf, sizeof(buf), n, unit);
		fputs(buf, f);
		return;
	}
	fprintf(f, "%llu ", n);
	if (n == 1 && len > 2 && len < sizeof(one) && unit[len - 1] == 's') {
		memcpy(one, unit, len - 1);
		one[len - 1] = '\0';
		unit = one;
	}
	pc_xml_put(f, unit, SIZE_MAX);
}

static void put_frame(FILE *f, const struct node *nd, unsigned long long all,
		      double scale, unsigned int height, const char *unit)
{
	double x = PAD + nd->start * scale, w = nd->total * scale;
	unsigned int y = height - BOTTOM - (nd->depth + 1) * ROW;
	size_t fit = w > 6 ? (size_t)((w - 6) / CHAR_PX) : 0;
	size_t chars = xml_chars(nd->name);
	char fill[32];

	colour(fill, sizeof(fill), nd);
	fprintf(f, "<g class=\"f\" data-n=\"%llu\"><title>", nd->total);
	pc_xml_put(f, nd->name, SIZE_MAX);
	fputs(" (", f);
	put_weight(f, nd->total, unit);
	fprintf(f, ", %.2f%%)</title>", 100.0 * nd->total / all);
	fprintf(f, "<rect x=\"%.2f\" y=\"%u\" width=\"%.2f\" height=\"%u\" fill=\"%s\"/>",
		x, y, w, ROW - 1, fill);
	fprintf(f, "<text x=\"%.2f\" y=\"%u\">", x + 3, y + 11);
	if (chars <= fit) {
		pc_xml_put(f, nd->name, SIZE_MAX);
	} else if (fit >= 3) {
		pc_xml_put(f, nd->name, fit - 2);
		fputs("..", f);
	}
	fputs("</text></g>\n", f);
}

/**
 * pc_flame_svg() - a flame graph of stacks, as one SVG document
 * @out: where to write it
 * @s: the stacks, root frame first; identical ones are merged
 * @n: how many; 0 (or counts all 0) gives a graph that says so
 * @o: title, width and unit, or NULL for the defaults
 *
 * Frames narrower than 0.1 px are not drawn (nor anything above them,
 * which is narrower still): their samples stay in their parent's width,
 * and the <title> counts of every frame drawn are exact.  The output
 * depends only on the stacks and @o: the same input gives the same bytes.
 *
 * Return: 0; -EINVAL for a stack without frames, with more than
 * PC_FLAME_MAX_FRAMES, with a NULL or empty frame name, or a width out of
 * range; -E2BIG for more than PC_FOLDED_MAX_LINES stacks; -EOVERFLOW when
 * the counts add up to more than 2^64 - 1; -ENOMEM; -EIO when writing
 * failed.
 */
int pc_flame_svg(FILE *out, const struct pc_flame_stack *s, size_t n,
		 const struct pc_flame_opts *o)
{
	const char *title = o && o->title ? o->title : "Flame Graph";
	const char *unit = o && o->unit ? o->unit : "samples";
	unsigned int width = o && o->width ? o->width : PC_FLAME_WIDTH;
	unsigned int height, depth = 0;
	size_t nn = 0, i, hidden = 0;
	struct node *t = NULL;
	unsigned long long all;
	double scale;
	int ret;

	if (width < PC_FLAME_MIN_WIDTH || width > PC_FLAME_MAX_WIDTH)
		return -EINVAL;
	ret = check_stacks(s, n);
	if (ret)
		return ret;
	ret = build_tree(s, n, &t, &nn);
	if (ret)
		return ret;
	all = t[0].total;
	scale = all ? (double)(width - 2 * PAD) / all : 0;
	for (i = 0; i < nn; i++) {
		if (t[i].total * scale < MIN_PX)
			hidden++;
		else if (t[i].depth > depth)
			depth = t[i].depth;
	}
	height = TOP + (depth + 1) * ROW + BOTTOM;

	fputs("<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"no\"?>\n", out);
	fprintf(out, "<svg version=\"1.1\" xmlns=\"http://www.w3.org/2000/svg\" width=\"%u\" height=\"%u\" viewBox=\"0 0 %u %u\">\n",
		width, height, width, height);
	fputs("<style>\n"
	      "text { font-family: monospace; font-size: 12px; fill: #000; }\n"
	      "#title { font-size: 17px; }\n"
	      "g.f:hover rect { stroke: #000; stroke-width: 0.5; }\n"
	      "g.f, #search, #unzoom { cursor: pointer; }\n"
	      "</style>\n", out);
	fprintf(out, "<rect x=\"0\" y=\"0\" width=\"%u\" height=\"%u\" fill=\"#f8f8f4\"/>\n",
		width, height);
	fprintf(out, "<text id=\"title\" x=\"%u\" y=\"24\" text-anchor=\"middle\">",
		width / 2);
	pc_xml_put(out, title, PC_FLAME_TITLE_MAX);
	fputs("</text>\n", out);
	fprintf(out, "<text id=\"unzoom\" x=\"%u\" y=\"24\" style=\"display:none\">Reset zoom</text>\n",
		PAD);
	fprintf(out, "<text id=\"search\" x=\"%u\" y=\"24\" text-anchor=\"end\">Search</text>\n",
		width - PAD);
	fprintf(out, "<text id=\"matched\" x=\"%u\" y=\"%u\" text-anchor=\"end\"> </text>\n",
		width - PAD, height - 8);
	fprintf(out, "<text id=\"details\" x=\"%u\" y=\"%u\"> </text>\n", PAD,
		height - 8);
	if (!all) {
		fprintf(out, "<text x=\"%u\" y=\"%u\" text-anchor=\"middle\">No samples</text>\n",
			width / 2, height - BOTTOM - 4);
	} else {
		if (hidden)
			fprintf(out, "<!-- %zu frames narrower than 0.1 px not drawn -->\n",
				hidden);
		fputs("<g id=\"frames\">\n", out);
		for (i = 0; i < nn; i++)
			if (t[i].total * scale >= MIN_PX)
				put_frame(out, &t[i], all, scale, height, unit);
		fputs("</g>\n", out);
		fprintf(out, "<script type=\"text/ecmascript\"><![CDATA[\n%s]]></script>\n",
			script);
	}
	fputs("</svg>\n", out);
	free(t);
	if (fflush(out) || ferror(out))
		return -EIO;
	return 0;
}

/* ---- the folded format ---- */

#define perr(err, len, ...)	(snprintf(err, len, __VA_ARGS__), -EINVAL)

/*
 * One line of @len bytes (no newline, no control character) into @st.
 * Return: 0, -EINVAL with the reason in @err, or -ENOMEM.
 */
static int parse_line(const char *line, size_t len, size_t lineno,
		      struct pc_flame_stack *st, char *err, size_t errlen)
{
	const char *sp = memrchr(line, ' ', len), *p;
	unsigned long long count = 0;
	size_t flen, cut, i;
	unsigned int nf = 1, d;
	const char **frames;
	char *text;

	if (!sp)
		return perr(err, errlen, "line %zu: no count (want 'frame;frame;... COUNT')",
			    lineno);
	if (sp + 1 == line + len)
		return perr(err, errlen, "line %zu: no count after the last blank",
			    lineno);
	cut = line + len - (sp + 1);
	for (p = sp + 1; p < line + len; p++)
		if (*p < '0' || *p > '9')
			return perr(err, errlen, "line %zu: count '%.*s%s' is not a decimal number",
				    lineno, (int)(cut > 40 ? 40 : cut), sp + 1,
				    cut > 40 ? "..." : "");
	for (p = sp + 1; p < line + len; p++) {
		d = *p - '0';
		if (count > (~0ULL - d) / 10)
			return perr(err, errlen, "line %zu: count above 18446744073709551615",
				    lineno);
		count = count * 10 + d;
	}
	flen = sp - line;
	if (!flen)
		return perr(err, errlen, "line %zu: no frames before the count",
			    lineno);
	for (i = 0; i < flen; i++) {
		if (line[i] != ';')
			continue;
		if (++nf > PC_FLAME_MAX_FRAMES)
			return perr(err, errlen, "line %zu: more than %d frames",
				    lineno, PC_FLAME_MAX_FRAMES);
	}
	/* the frame pointers, then the names, in one allocation */
	frames = malloc(nf * sizeof(*frames) + flen + 1);
	if (!frames)
		return -ENOMEM;
	text = (char *)(frames + nf);
	memcpy(text, line, flen);
	text[flen] = '\0';
	nf = 0;
	for (i = 0; i <= flen; i++) {
		if (i < flen && text[i] != ';')
			continue;
		if (i == 0 || text[i - 1] == '\0') {
			free(frames);
			return perr(err, errlen, "line %zu: frame %u is empty (';' at an end or two in a row)",
				    lineno, nf + 1);
		}
		text[i] = '\0';
		nf++;
	}
	p = text;
	for (i = 0; i < nf; i++) {
		frames[i] = p;
		p += strlen(p) + 1;
	}
	st->frames = frames;
	st->nframes = nf;
	st->count = count;
	st->nuser = 0;	/* a folded line does not say */
	return 0;
}

/**
 * pc_folded_parse() - read folded stacks
 * @in: the text, untrusted: one "frame;frame;... COUNT" a line, root
 *	first; empty lines are skipped, a last line may lack its newline,
 *	and a '\r' before a newline is dropped
 * @out: the stacks (free them with pc_folded_free()); NULL when none
 * @n: how many
 * @err: on -EINVAL or -EIO, why, naming the line: "line 3: no count ..."
 * @errlen: size of @err
 *
 * Bounded: lines of at most PC_FOLDED_MAX_LINE bytes, at most
 * PC_FOLDED_MAX_LINES stacks and PC_FOLDED_MAX_BYTES in all, at most
 * PC_FLAME_MAX_FRAMES frames a stack, counts that add up to at most
 * 2^64 - 1.  Control characters (tabs included) and NUL bytes are refused.
 * Identical stacks are kept apart here: pc_flame_svg() merges them.
 *
 * Return: 0, -EINVAL (malformed or over a bound), -EIO (reading failed)
 * or -ENOMEM.
 */
int pc_folded_parse(FILE *in, struct pc_flame_stack **out, size_t *n,
		    char *err, size_t errlen)
{
	struct pc_flame_stack *s = NULL, *grown;
	unsigned long long total = 0;
	size_t ns = 0, cap = 0, len, lineno = 0, bytes = 0, i;
	unsigned char b;
	char *line;
	int c = 0, ret = 0;

	*out = NULL;
	*n = 0;
	err[0] = '\0';
	line = malloc(PC_FOLDED_MAX_LINE + 1);
	if (!line)
		return -ENOMEM;
	while (!ret && c != EOF) {
		lineno++;
		len = 0;
		while ((c = getc(in)) != EOF) {
			if (++bytes > PC_FOLDED_MAX_BYTES) {
				ret = perr(err, errlen, "line %zu: more than %u bytes of input",
					   lineno, PC_FOLDED_MAX_BYTES);
				break;
			}
			if (c == '\n')
				break;
			if (len == PC_FOLDED_MAX_LINE) {
				ret = perr(err, errlen, "line %zu: longer than %d bytes",
					   lineno, PC_FOLDED_MAX_LINE);
				break;
			}
			line[len++] = c;
		}
		if (ret)
			break;
		if (ferror(in)) {
			ret = -EIO;
			snprintf(err, errlen, "line %zu: reading failed: %s",
				 lineno, strerror(errno));
			break;
		}
		if (len && line[len - 1] == '\r' && c == '\n')
			len--;
		if (!len)
			continue;
		for (i = 0; i < len; i++) {
			b = line[i];
			if (b < 0x20 || b == 0x7f) {
				ret = perr(err, errlen, "line %zu: control character 0x%02x at byte %zu",
					   lineno, b, i + 1);
				break;
			}
		}
		if (ret)
			break;
		if (ns == PC_FOLDED_MAX_LINES) {
			ret = perr(err, errlen, "line %zu: more than %u stacks",
				   lineno, PC_FOLDED_MAX_LINES);
			break;
		}
		if (ns == cap) {
			cap = cap ? cap * 2 : 64;
			grown = realloc(s, cap * sizeof(*s));
			if (!grown) {
				ret = -ENOMEM;
				break;
			}
			s = grown;
		}
		ret = parse_line(line, len, lineno, &s[ns], err, errlen);
		if (ret)
			break;
		if (total + s[ns].count < total) {
			free(s[ns].frames);
			ret = perr(err, errlen, "line %zu: the counts add up to more than 18446744073709551615",
				   lineno);
			break;
		}
		total += s[ns++].count;
	}
	free(line);
	if (ret) {
		if (ret == -ENOMEM && !err[0])
			snprintf(err, errlen, "line %zu: out of memory", lineno);
		pc_folded_free(s, ns);
		return ret;
	}
	*out = s;
	*n = ns;
	return 0;
}

/**
 * pc_folded_free() - free what pc_folded_parse() returned
 * @s: the stacks, or NULL
 * @n: how many
 */
void pc_folded_free(struct pc_flame_stack *s, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		free(s[i].frames);
	free(s);
}
