// SPDX-License-Identifier: GPL-2.0
/*
 * Heatmaps: see heatmap.h.
 *
 * The picture is a grid built from the intervals kept: its rows are the
 * buckets from the lowest non-empty one of any interval shown to the
 * highest, merged into at most PCORE_HIST_ROWS rows by the engine's
 * pcore_rows_plan() (the rule of the hist file, so the rows have exact
 * bounds and hold exactly their buckets' values), the highest values at
 * the top; its columns are the intervals, the oldest on the left, the
 * newest on the right.  A cell is the number of values of its row's
 * buckets in its interval; the cells of a column add up to the interval's
 * count.
 *
 * Text shades a cell with one of PC_HEAT_LEVELS characters (or 256-colour
 * backgrounds) by its count over the largest cell of the picture, rounded
 * up, so that any non-empty cell shows.  The SVG colours it on a
 * continuous yellow to red scale, and each cell's <title> (its hover
 * text) gives its bounds, its interval and its count.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "flame.h"
#include "format.h"
#include "heatmap.h"
#include "pcore_engine.h"

/* One printable word: control, non-ASCII and blank bytes as '?' or '_'. */
static void word(char *dst, size_t len, const char *src, size_t srclen)
{
	size_t i;

	for (i = 0; i < srclen && i + 1 < len && src[i]; i++) {
		unsigned char c = src[i];

		dst[i] = c == ' ' ? '_' : c < ' ' || c >= 0x7f ? '?' : c;
	}
	dst[i] = '\0';
}

/**
 * pc_heat_init() - an empty heatmap of a histogram
 * @h: to fill; free with pc_heat_free()
 * @e: the histogram's entry
 * @s: a snapshot of it, for its buckets' bounds
 * @interval_ns: the interval asked for
 * @full: every bucket a row
 *
 * Return: 0, -EPROTO when @s has no buckets, or -ENOMEM.
 */
int pc_heat_init(struct pc_heat *h, const struct pcore_ioc_entry *e,
		 const struct pc_snap *s, unsigned long long interval_ns,
		 bool full)
{
	unsigned int i;

	memset(h, 0, sizeof(*h));
	if (!s->r.nbuckets)
		return -EPROTO;
	word(h->name, sizeof(h->name), e->name, sizeof(e->name));
	word(h->unit, sizeof(h->unit), e->unit, sizeof(e->unit));
	h->kind = pc_hist_kind(e);
	h->nbuckets = s->r.nbuckets;
	h->interval_ns = interval_ns;
	h->full = full;
	h->lo = calloc(h->nbuckets, sizeof(*h->lo));
	h->hi = calloc(h->nbuckets, sizeof(*h->hi));
	h->cols = calloc(PC_HEAT_MAX_COLS, sizeof(*h->cols));
	if (!h->lo || !h->hi || !h->cols) {
		pc_heat_free(h);
		return -ENOMEM;
	}
	for (i = 0; i < h->nbuckets; i++) {
		h->lo[i] = s->b[i].lo;
		h->hi[i] = s->b[i].hi;
	}
	return 0;
}

/**
 * pc_heat_add() - add an interval, the newest
 * @h: heatmap
 * @s: what its snapshot-and-reset moved out
 * @end: wall-clock time of that snapshot-and-reset
 * @ns: the interval's length
 *
 * When PC_HEAT_MAX_COLS intervals are kept, the oldest goes.
 *
 * Return: 0; -EPROTO when @s does not have the heatmap's buckets (another
 * histogram of the same name); -ENOMEM.
 */
int pc_heat_add(struct pc_heat *h, const struct pc_snap *s,
		const struct timespec *end, unsigned long long ns)
{
	unsigned int i, first = s->r.nbuckets, last = 0;
	struct pc_heat_col c = { .end = *end, .ns = ns };
	struct pc_heat_col *slot;

	if (s->r.nbuckets != h->nbuckets)
		return -EPROTO;
	for (i = 0; i < h->nbuckets; i++) {
		if (s->b[i].lo != h->lo[i] || s->b[i].hi != h->hi[i])
			return -EPROTO;
		if (!s->b[i].count)
			continue;
		if (first == s->r.nbuckets)
			first = i;
		last = i;
		c.count += s->b[i].count;
	}
	if (first < h->nbuckets) {
		c.first = first;
		c.n = last - first + 1;
		c.b = malloc(c.n * sizeof(*c.b));
		if (!c.b)
			return -ENOMEM;
		for (i = 0; i < c.n; i++)
			c.b[i] = s->b[first + i].count;
	}
	if (h->ncols == PC_HEAT_MAX_COLS) {
		slot = &h->cols[h->head];
		free(slot->b);
		h->head = (h->head + 1) % PC_HEAT_MAX_COLS;
	} else {
		slot = &h->cols[(h->head + h->ncols++) % PC_HEAT_MAX_COLS];
	}
	*slot = c;
	h->seen++;
	return 0;
}

/**
 * pc_heat_free() - free what the heatmap holds
 * @h: heatmap, from pc_heat_init() (or zeroed)
 */
void pc_heat_free(struct pc_heat *h)
{
	unsigned int i;

	for (i = 0; h->cols && i < h->ncols; i++)
		free(h->cols[(h->head + i) % PC_HEAT_MAX_COLS].b);
	free(h->cols);
	free(h->lo);
	free(h->hi);
	memset(h, 0, sizeof(*h));
}

/* The @j-th interval kept, 0 the oldest. */
static const struct pc_heat_col *col(const struct pc_heat *h, unsigned int j)
{
	return &h->cols[(h->head + j) % PC_HEAT_MAX_COLS];
}

/**
 * struct grid - the picture
 * @c0: the first interval shown (0: the oldest kept)
 * @ncols: intervals shown
 * @nrows: rows; row 0 holds the lowest values
 * @rs: each row's first bucket
 * @re: each row's last bucket
 * @cell: @nrows * @ncols counts, cell[row * ncols + col]
 * @tot: each column's count
 * @max: the largest cell
 * @maxtot: the largest column
 * @total: every value shown
 */
struct grid {
	unsigned int c0;
	unsigned int ncols;
	unsigned int nrows;
	unsigned int *rs;
	unsigned int *re;
	unsigned long long *cell;
	unsigned long long *tot;
	unsigned long long max;
	unsigned long long maxtot;
	unsigned long long total;
};

static void grid_free(struct grid *g)
{
	free(g->rs);
	free(g->re);
	free(g->cell);
	free(g->tot);
}

/* The newest @max_cols intervals (0: all kept) as a grid. */
static int grid_build(const struct pc_heat *h, unsigned int max_cols,
		      struct grid *g)
{
	unsigned int j, k, r, first = h->nbuckets, last = 0, i, start, end;
	const struct pc_heat_col *c;
	unsigned int *row_of = NULL;
	struct pcore_rows plan;

	memset(g, 0, sizeof(*g));
	g->ncols = h->ncols;
	if (max_cols && g->ncols > max_cols)
		g->ncols = max_cols;
	g->c0 = h->ncols - g->ncols;
	g->tot = calloc(g->ncols ? g->ncols : 1, sizeof(*g->tot));
	if (!g->tot)
		return -ENOMEM;
	for (j = 0; j < g->ncols; j++) {
		c = col(h, g->c0 + j);
		g->tot[j] = c->count;
		g->total += c->count;
		g->maxtot = c->count > g->maxtot ? c->count : g->maxtot;
		if (!c->n)
			continue;
		first = c->first < first ? c->first : first;
		last = c->first + c->n - 1 > last ? c->first + c->n - 1 : last;
	}
	if (first > last)
		return 0;	/* no values: no rows */
	g->nrows = pcore_rows_plan(&plan, h->kind, h->nbuckets, first, last,
				   h->full ? 0 : PCORE_HIST_ROWS);
	g->rs = calloc(g->nrows, sizeof(*g->rs));
	g->re = calloc(g->nrows, sizeof(*g->re));
	g->cell = calloc((size_t)g->nrows * g->ncols, sizeof(*g->cell));
	row_of = calloc(last - first + 1, sizeof(*row_of));
	if (!g->rs || !g->re || !g->cell || !row_of) {
		free(row_of);
		grid_free(g);
		memset(g, 0, sizeof(*g));
		return -ENOMEM;
	}
	for (r = 0, i = first; i <= last; i = end + 1, r++) {
		pcore_row_of(&plan, i, &start, &end);
		g->rs[r] = start;
		g->re[r] = end;
		for (k = i; k <= end && k <= last; k++)
			row_of[k - first] = r;
	}
	for (j = 0; j < g->ncols; j++) {
		c = col(h, g->c0 + j);
		for (k = 0; k < c->n; k++) {
			unsigned long long *cell;

			cell = &g->cell[(size_t)row_of[c->first + k - first] *
					g->ncols + j];
			*cell += c->b[k];
			g->max = *cell > g->max ? *cell : g->max;
		}
	}
	free(row_of);
	return 0;
}

/*
 * The unit the heading and the SVG's value axis name: none for times (unit
 * ns), whose bounds carry their own (ns, us, ms or s, pc_fmt_bound()), so
 * that "(ns)" does not stand over rows in us; else the histogram's, which
 * every bound ends in too ("[4096bytes, 8192bytes)").
 */
static const char *axis_unit(const struct pc_heat *h)
{
	return strcmp(h->unit, "ns") ? h->unit : "";
}

/* "[lo, hi)" of row @r. */
static void row_label(char *buf, size_t len, const struct pc_heat *h,
		      const struct grid *g, unsigned int r)
{
	char lo[48], hi[48];

	pc_fmt_bound(lo, sizeof(lo), h->lo, h->hi, h->nbuckets, g->rs[r],
		     false, h->unit);
	pc_fmt_bound(hi, sizeof(hi), h->lo, h->hi, h->nbuckets, g->re[r],
		     true, h->unit);
	snprintf(buf, len, "[%s, %s)", lo, hi);
}

/* 1 to PC_HEAT_LEVELS for a non-empty cell, by its share of @max. */
static unsigned int level(unsigned long long n, unsigned long long max)
{
	if (!n || !max)
		return 0;
	return ((__uint128_t)n * PC_HEAT_LEVELS + max - 1) / max;
}

/* "HH:MM:SS" or, for intervals under a second, "HH:MM:SS.mmm" (UTC). */
static void hms(char *buf, size_t len, const struct timespec *t, bool ms)
{
	struct tm tm;

	if (!gmtime_r(&t->tv_sec, &tm)) {
		snprintf(buf, len, "?");
		return;
	}
	if (ms)
		snprintf(buf, len, "%02d:%02d:%02d.%03ld", tm.tm_hour,
			 tm.tm_min, tm.tm_sec, t->tv_nsec / 1000000);
	else
		snprintf(buf, len, "%02d:%02d:%02d", tm.tm_hour, tm.tm_min,
			 tm.tm_sec);
}

/* The start of an interval: its end minus its length. */
static struct timespec col_start(const struct pc_heat_col *c)
{
	unsigned long long end = (unsigned long long)c->end.tv_sec *
				 1000000000ULL + c->end.tv_nsec;
	unsigned long long ns = c->ns < end ? end - c->ns : 0;

	return (struct timespec){ .tv_sec = ns / 1000000000ULL,
				  .tv_nsec = ns % 1000000000ULL };
}

static const char shades[PC_HEAT_LEVELS + 2] = " .:-=+*#%@";
/* xterm's 256 colours, light yellow to dark red */
static const unsigned char colors[PC_HEAT_LEVELS + 1] = {
	0, 230, 229, 228, 221, 214, 208, 202, 160, 88
};

static void put_cell(FILE *f, unsigned int lv, bool color)
{
	if (!color)
		fputc(shades[lv], f);
	else if (!lv)
		fputc(' ', f);
	else
		fprintf(f, "\033[48;5;%um \033[0m", colors[lv]);
}

/* The widest row label of @g. */
static unsigned int label_width(const struct pc_heat *h, const struct grid *g)
{
	unsigned int r, w = 0;
	char label[120];

	for (r = 0; r < g->nrows; r++) {
		row_label(label, sizeof(label), h, g, r);
		w = strlen(label) > w ? strlen(label) : w;
	}
	return w;
}

/**
 * pc_heat_text() - the heatmap as text, for a terminal
 * @f: where to
 * @h: heatmap
 * @max_cols: show the newest this many intervals, 0 for all kept
 * @width: and no more than fit in lines of this many characters with
 *	their labels (a terminal's width), 0 for no limit
 * @color: 256-colour backgrounds (ANSI) instead of characters
 *
 * A heading (name, unit but for times, intervals, "newest right"), then a row per
 * (merged) bucket, the highest values at the top, labelled "[lo, hi)" on
 * the left, one character per interval shaded by its count (see
 * "scale:"), a line under them, the times of the first and last interval
 * shown, the scale and the number of values.
 *
 * Return: 0, or -ENOMEM.
 */
int pc_heat_text(FILE *f, const struct pc_heat *h, unsigned int max_cols,
		 unsigned int width, bool color)
{
	char label[120], t0[32], t1[32], sec[32];
	unsigned int r, j, lv, w, fit;
	unsigned long long lo, hi;
	bool ms = h->interval_ns % 1000000000ULL != 0;
	struct grid g;
	int ret;

	ret = grid_build(h, max_cols, &g);
	if (ret)
		return ret;
	/* "LABEL |cells|": fewer intervals, fewer rows, labels no wider */
	w = label_width(h, &g);
	fit = width > w + 3 + 10 ? width - w - 3 : 10;
	if (width && g.ncols > fit) {
		grid_free(&g);
		ret = grid_build(h, fit, &g);
		if (ret)
			return ret;
		w = label_width(h, &g);
	}
	pc_fmt_ns_seconds(sec, sizeof(sec), h->interval_ns);
	fprintf(f, "%s%s%s%s: ", h->name, *axis_unit(h) ? " (" : "",
		axis_unit(h), *axis_unit(h) ? ")" : "");
	if (g.ncols < h->seen)
		fprintf(f, "the last %u of %llu intervals", g.ncols, h->seen);
	else
		fprintf(f, "%u interval%s", g.ncols, g.ncols == 1 ? "" : "s");
	fprintf(f, " of %s s, newest right\n", sec);
	if (!g.nrows) {
		fprintf(f, g.ncols ? "(no values)\n" : "(no interval yet)\n");
		grid_free(&g);
		return 0;
	}
	for (r = g.nrows; r-- > 0; ) {
		row_label(label, sizeof(label), h, &g, r);
		fprintf(f, "%*s |", (int)w, label);
		for (j = 0; j < g.ncols; j++)
			put_cell(f, level(g.cell[(size_t)r * g.ncols + j], g.max),
				 color);
		fputs("|\n", f);
	}
	fprintf(f, "%*s +", (int)w, "");
	for (j = 0; j < g.ncols; j++)
		fputc('-', f);
	fputs("+\n", f);
	hms(t0, sizeof(t0), &col(h, g.c0)->end, ms);
	hms(t1, sizeof(t1), &col(h, g.c0 + g.ncols - 1)->end, ms);
	fprintf(f, "time: %s (left) to %s (right) UTC, each interval's end\n",
		t0, t1);
	fputs("scale:", f);
	for (lv = 1; lv <= PC_HEAT_LEVELS; lv++) {
		/* counts n with level(n) == lv: ((lv - 1) max / L, lv max / L] */
		lo = (__uint128_t)(lv - 1) * g.max / PC_HEAT_LEVELS + 1;
		hi = (__uint128_t)lv * g.max / PC_HEAT_LEVELS;
		if (lo > hi)
			continue;
		fputs(" ", f);
		if (color)
			put_cell(f, lv, true);
		else
			fprintf(f, "'%c'", shades[lv]);
		if (lo == hi)
			fprintf(f, " %llu", lo);
		else
			fprintf(f, " %llu-%llu", lo, hi);
	}
	fputs(" values in a cell\n", f);
	fprintf(f, "values: %llu in %u interval%s\n", g.total, g.ncols,
		g.ncols == 1 ? "" : "s");
	grid_free(&g);
	return 0;
}

/* ---- SVG ---- */

#define SVG_GRID_W	960.0	/* px for the columns, at most */
#define SVG_COL_MAX	40.0	/* px of one column, at most */
#define SVG_GRID_H	560.0	/* px for the rows, at most */
#define SVG_ROW_MIN	3.0
#define SVG_ROW_MAX	18.0
#define SVG_CHAR	7.2	/* px of a 12 px monospace character */
#define SVG_TOP		56	/* title, subtitle */
#define SVG_TOTALS	40	/* the bars of the columns' counts */
#define SVG_BOTTOM	104	/* time labels, axis title, scale, details */
#define SVG_RIGHT	20

/* Yellow to red (ColorBrewer's YlOrRd), 0 <= t <= 1. */
static void fill(char *buf, size_t len, double t)
{
	static const unsigned char stops[5][3] = {
		{ 255, 255, 178 }, { 254, 204, 92 }, { 253, 141, 60 },
		{ 240, 59, 32 }, { 189, 0, 38 },
	};
	double x = t * 4;
	int i = x >= 4 ? 3 : (int)x;
	double u = x - i;

	snprintf(buf, len, "rgb(%d,%d,%d)",
		 (int)(stops[i][0] + (stops[i + 1][0] - stops[i][0]) * u + 0.5),
		 (int)(stops[i][1] + (stops[i + 1][1] - stops[i][1]) * u + 0.5),
		 (int)(stops[i][2] + (stops[i + 1][2] - stops[i][2]) * u + 0.5));
}

/* "03:04:06 to 03:04:07 UTC" of interval @c */
static void when(char *buf, size_t len, const struct pc_heat_col *c, bool ms)
{
	char a[32], b[32];
	struct timespec s = col_start(c);

	hms(a, sizeof(a), &s, ms);
	hms(b, sizeof(b), &c->end, ms);
	snprintf(buf, len, "%s to %s UTC", a, b);
}

/*
 * Hover shows a cell's (or a column's) title on the details line.  The
 * titles alone say everything; the script only repeats them where a
 * screenshot or a test can see them.
 */
static const char svg_script[] =
"var details = document.getElementById('details');\n"
"Array.prototype.forEach.call(document.querySelectorAll('rect.c, rect.t'),\n"
"	function (r) {\n"
"	var t = r.getElementsByTagName('title')[0].textContent;\n"
"	r.onmouseover = function () { details.textContent = t; };\n"
"	r.onmouseout = function () { details.textContent = ' '; };\n"
"});\n";

/**
 * pc_heat_svg() - the heatmap as one SVG document
 * @f: where to
 * @h: heatmap
 * @title: the heading, or NULL for "Heatmap of NAME"; at most
 *	PC_HEAT_TITLE_MAX bytes are shown
 *
 * Every interval kept is a column, every (merged) bucket a row.  A cell
 * with values is a <rect class="c"> with data-col (its column, 0 the
 * oldest), data-row (0 the lowest values) and data-n (its count), its
 * colour by its count over the largest cell, and a <title> "[lo, hi) at
 * START to END UTC: N values".  Above the columns, a bar per interval
 * with values, <rect class="t"> with data-col and data-n (the interval's
 * count, which its cells add up to) and a <title>.  Labels: the rows'
 * bounds on the left, times under the columns, axis titles, a colour
 * scale; a details line shows the title under the mouse.  Nothing outside
 * the document is used.  The same heatmap gives the same bytes.
 *
 * Return: 0, -ENOMEM, or -EIO when writing failed.
 */
int pc_heat_svg(FILE *f, const struct pc_heat *h, const char *title)
{
	char label[120], hover[200], rgb[32], sec[32], t0[32];
	unsigned int r, j, k, width, height, labw = 0, step, xstep;
	double cw, rh, gx, gy, gw, gh, x, y, bh;
	bool ms = h->interval_ns % 1000000000ULL != 0;
	unsigned long long n;
	struct grid g;
	int ret;

	ret = grid_build(h, 0, &g);
	if (ret)
		return ret;
	for (r = 0; r < g.nrows; r++) {
		row_label(label, sizeof(label), h, &g, r);
		labw = strlen(label) > labw ? strlen(label) : labw;
	}
	cw = g.ncols ? SVG_GRID_W / g.ncols : SVG_GRID_W;
	cw = cw > SVG_COL_MAX ? SVG_COL_MAX : cw;
	rh = g.nrows ? SVG_GRID_H / g.nrows : SVG_ROW_MAX;
	rh = rh > SVG_ROW_MAX ? SVG_ROW_MAX : rh < SVG_ROW_MIN ? SVG_ROW_MIN : rh;
	gx = 30 + labw * SVG_CHAR + 8;
	gy = SVG_TOP + SVG_TOTALS + 6;
	gw = g.ncols * cw;
	gh = g.nrows ? g.nrows * rh : 60;
	width = (unsigned int)(gx + (gw > 360 ? gw : 360) + SVG_RIGHT + 0.5);
	width = width < 640 ? 640 : width;
	height = (unsigned int)(gy + gh + SVG_BOTTOM + 0.5);
	pc_fmt_ns_seconds(sec, sizeof(sec), h->interval_ns);

	fputs("<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"no\"?>\n", f);
	fprintf(f, "<svg version=\"1.1\" xmlns=\"http://www.w3.org/2000/svg\" width=\"%u\" height=\"%u\" viewBox=\"0 0 %u %u\">\n",
		width, height, width, height);
	fputs("<style>\n"
	      "text { font-family: monospace; font-size: 12px; fill: #000; }\n"
	      "#title { font-size: 17px; }\n"
	      "rect.c:hover, rect.t:hover { stroke: #000; stroke-width: 1; }\n"
	      "</style>\n", f);
	fprintf(f, "<rect x=\"0\" y=\"0\" width=\"%u\" height=\"%u\" fill=\"#ffffff\"/>\n",
		width, height);
	fprintf(f, "<text id=\"title\" x=\"%u\" y=\"24\" text-anchor=\"middle\">",
		width / 2);
	if (title) {
		pc_xml_put(f, title, PC_HEAT_TITLE_MAX);
	} else {
		fputs("Heatmap of ", f);
		pc_xml_put(f, h->name, SIZE_MAX);
	}
	fputs("</text>\n", f);
	fprintf(f, "<text id=\"subtitle\" x=\"%u\" y=\"44\" text-anchor=\"middle\">",
		width / 2);
	if (g.ncols < h->seen)
		fprintf(f, "the last %u of %llu intervals", g.ncols, h->seen);
	else
		fprintf(f, "%u interval%s", g.ncols, g.ncols == 1 ? "" : "s");
	fprintf(f, " of %s s, %llu value%s; colour: values in a cell</text>\n",
		sec, g.total, g.total == 1 ? "" : "s");
	fprintf(f, "<text id=\"details\" x=\"10\" y=\"%u\"> </text>\n",
		height - 8);
	/* axis titles */
	fprintf(f, "<text id=\"ylabel\" x=\"16\" y=\"%.1f\" text-anchor=\"middle\" transform=\"rotate(-90 16 %.1f)\">",
		gy + gh / 2, gy + gh / 2);
	fputs("value", f);
	if (*axis_unit(h)) {
		fputs(" (", f);
		pc_xml_put(f, axis_unit(h), SIZE_MAX);
		fputs(")", f);
	}
	fputs("</text>\n", f);
	fprintf(f, "<text id=\"xlabel\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">time (UTC), one column per %s s interval, the newest on the right</text>\n",
		gx + gw / 2, gy + gh + 38, sec);
	if (!g.nrows) {
		fprintf(f, "<text x=\"%u\" y=\"%.1f\" text-anchor=\"middle\">No values</text>\n",
			width / 2, gy + 30);
		goto out;
	}
	fprintf(f, "<rect id=\"grid\" x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" height=\"%.2f\" fill=\"none\" stroke=\"#999\" stroke-width=\"0.5\"/>\n",
		gx, gy, gw, gh);
	/* row labels: every row, or every step-th when rows are thin */
	step = rh >= 12 ? 1 : (unsigned int)(12 / rh) + 1;
	fputs("<g id=\"rows\">\n", f);
	for (r = 0; r < g.nrows; r += step) {
		row_label(label, sizeof(label), h, &g, r);
		y = gy + (g.nrows - 1 - r) * rh + rh / 2 + 4;
		fprintf(f, "<text x=\"%.2f\" y=\"%.2f\" text-anchor=\"end\" data-row=\"%u\">",
			gx - 6, y, r);
		pc_xml_put(f, label, SIZE_MAX);
		fputs("</text>\n", f);
	}
	fputs("</g>\n", f);
	/* time labels: at most one per 80 px, at the end of a column */
	xstep = (unsigned int)(80 / cw) + 1;
	fputs("<g id=\"times\">\n", f);
	for (j = 0; j < g.ncols; j += xstep) {
		x = gx + (j + 1) * cw;
		hms(t0, sizeof(t0), &col(h, g.c0 + j)->end, ms);
		fprintf(f, "<line x1=\"%.2f\" y1=\"%.2f\" x2=\"%.2f\" y2=\"%.2f\" stroke=\"#999\"/>",
			x, gy + gh, x, gy + gh + 4);
		fprintf(f, "<text x=\"%.2f\" y=\"%.2f\" text-anchor=\"middle\" data-col=\"%u\">%s</text>\n",
			x, gy + gh + 17, j, t0);
	}
	fputs("</g>\n", f);
	/* the columns' counts */
	fprintf(f, "<g id=\"totals\"><text x=\"%.2f\" y=\"%.2f\" text-anchor=\"end\">values per interval</text>\n",
		gx - 6, gy - 8);
	for (j = 0; j < g.ncols; j++) {
		if (!g.tot[j])
			continue;
		bh = (double)(SVG_TOTALS - 4) * g.tot[j] / g.maxtot;
		when(hover, sizeof(hover), col(h, g.c0 + j), ms);
		fprintf(f, "<rect class=\"t\" x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" height=\"%.2f\" fill=\"#888\" data-col=\"%u\" data-n=\"%llu\"><title>%s: %llu value%s</title></rect>\n",
			gx + j * cw, gy - 4 - bh, cw, bh, j, g.tot[j], hover,
			g.tot[j], g.tot[j] == 1 ? "" : "s");
	}
	fputs("</g>\n", f);
	/* the cells */
	fputs("<g id=\"cells\">\n", f);
	for (r = 0; r < g.nrows; r++) {
		row_label(label, sizeof(label), h, &g, r);
		y = gy + (g.nrows - 1 - r) * rh;
		for (j = 0; j < g.ncols; j++) {
			n = g.cell[(size_t)r * g.ncols + j];
			if (!n)
				continue;
			fill(rgb, sizeof(rgb), (double)n / g.max);
			when(hover, sizeof(hover), col(h, g.c0 + j), ms);
			fprintf(f, "<rect class=\"c\" x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" height=\"%.2f\" fill=\"%s\" data-col=\"%u\" data-row=\"%u\" data-n=\"%llu\"><title>",
				gx + j * cw, y, cw, rh, rgb, j, r, n);
			pc_xml_put(f, label, SIZE_MAX);
			fprintf(f, " at %s: %llu value%s</title></rect>\n",
				hover, n, n == 1 ? "" : "s");
		}
	}
	fputs("</g>\n", f);
	/* the colour scale: 20 steps from 1 to the largest cell */
	y = gy + gh + 52;
	fprintf(f, "<g id=\"scale\"><text x=\"%.2f\" y=\"%.2f\" text-anchor=\"end\">1</text>\n",
		gx - 4, y + 10);
	for (k = 0; k < 20; k++) {
		fill(rgb, sizeof(rgb), (k + 1) / 20.0);
		fprintf(f, "<rect x=\"%.2f\" y=\"%.2f\" width=\"10\" height=\"12\" fill=\"%s\"/>",
			gx + k * 10, y, rgb);
	}
	fprintf(f, "\n<text x=\"%.2f\" y=\"%.2f\">%llu values in a cell</text></g>\n",
		gx + 204, y + 10, g.max);
	fprintf(f, "<script type=\"text/ecmascript\"><![CDATA[\n%s]]></script>\n",
		svg_script);
out:
	fputs("</svg>\n", f);
	grid_free(&g);
	if (fflush(f) || ferror(f))
		return -EIO;
	return 0;
}
