/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Flame graphs: the folded stack format, parsed from untrusted text, and
 * a self-contained SVG writer.  No device and no probectl state: the host
 * tests and probectl's flamegraph command use the same two functions.
 *
 * The folded format, one stack a line, root first, leaf last:
 *
 *	frame;frame;frame COUNT
 *
 * COUNT is a decimal u64 after the last blank; a frame is any text without
 * ';' or control characters (kernel %pS names hold blanks, brackets, '<'
 * and '>').
 */
#ifndef PROBECTL_FLAME_H
#define PROBECTL_FLAME_H

#include <stddef.h>
#include <stdio.h>

#define PC_FLAME_MAX_FRAMES	260		/* comm, user and kernel frames, cut marks */
#define PC_FOLDED_MAX_LINE	(256 * 1024)	/* 260 frames of KSYM_NAME_LEN or less */
#define PC_FOLDED_MAX_LINES	(1U << 20)
#define PC_FOLDED_MAX_BYTES	(64U << 20)	/* the whole input */
#define PC_FLAME_WIDTH		1200		/* px, the default */
#define PC_FLAME_MIN_WIDTH	200
#define PC_FLAME_MAX_WIDTH	65536
#define PC_FLAME_TITLE_MAX	200

/**
 * struct pc_flame_stack - one stack and how often it was seen
 * @frames: frame names, root first; NUL-terminated, none empty
 * @nframes: 1 to PC_FLAME_MAX_FRAMES
 * @count: samples (or events) with this stack, or their weight (a sum,
 *	in the unit of struct pc_flame_opts)
 * @nuser: frames[1] to frames[@nuser] are a process's user frames (and
 *	frames[0] the process), drawn in a colour of their own; 0 when not
 *	known (a folded file does not say)
 */
struct pc_flame_stack {
	const char **frames;
	unsigned int nframes;
	unsigned long long count;
	unsigned int nuser;
};

/**
 * struct pc_flame_opts - how the SVG looks
 * @title: the heading, or NULL for "Flame Graph"; at most
 *	PC_FLAME_TITLE_MAX bytes are shown
 * @width: the image's width in px, 0 for PC_FLAME_WIDTH; else from
 *	PC_FLAME_MIN_WIDTH to PC_FLAME_MAX_WIDTH
 * @unit: the unit of the counts, as a histogram's ("calls", "samples",
 *	"ns": times, shown as ns, us, ms or s), or NULL for "samples"
 */
struct pc_flame_opts {
	const char *title;
	unsigned int width;
	const char *unit;
};

int pc_flame_svg(FILE *out, const struct pc_flame_stack *s, size_t n,
		 const struct pc_flame_opts *o);
int pc_flame_merge(struct pc_flame_stack *s, size_t *n);
int pc_folded_parse(FILE *in, struct pc_flame_stack **out, size_t *n,
		    char *err, size_t errlen);
void pc_folded_free(struct pc_flame_stack *s, size_t n);
void pc_xml_put(FILE *f, const char *s, size_t max);

#endif /* PROBECTL_FLAME_H */
