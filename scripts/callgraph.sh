#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Usage: scripts/callgraph.sh OBJDIR
#        scripts/callgraph.sh --build KDIR [OUTDIR]
#
# The file-level call graph of probe_core.ko: for each source file of
# modules/core, the other files whose symbols it uses (an undefined
# symbol of A.o that B.o defines gives A -> B; nm).  One line per file,
# "A -> B C ...", then "no cycles", or a cycle through each group of
# files that call each other, "cycle: A -> B -> A", and exit 1.  Data counts as much as calls: a file that uses another's
# lock depends on it as much as one that calls it.
#
# OBJDIR holds the object files, as a build for one kernel leaves them
# (build/<release>/modules/core).  --build compiles modules/core's objects
# for KDIR's kernel into OUTDIR (default build/callgraph/<release>),
# nothing else: no linking, no other module.  The objects are those of
# the .c files in modules/core, so an object whose source is gone is not
# counted.
set -eu

top=$(cd "$(dirname "$0")/.." && pwd)
NM=${NM:-nm}

usage() {
	echo "usage: $0 OBJDIR | --build KDIR [OUTDIR]" >&2
	exit 2
}

srcs=
for c in "$top"/modules/core/*.c; do
	c=${c##*/}
	srcs="$srcs ${c%.c}"
done

case ${1-} in
--build)
	if [ $# -lt 2 ] || [ $# -gt 3 ]; then
		usage
	fi
	kdir=$2
	kver=$(sed -n 's/^#define UTS_RELEASE "\(.*\)"/\1/p' \
		"$kdir/include/generated/utsrelease.h" 2>/dev/null) || true
	if [ -z "$kver" ]; then
		echo "callgraph: no kernel headers at $kdir" >&2
		exit 1
	fi
	objdir=${3:-$top/build/callgraph/$kver}
	mkdir -p "$objdir"
	# As the top Makefile does: sources mirrored as symlinks.
	cp -rsf "$top/Kbuild" "$top/modules" "$top/include" "$objdir/"
	# shellcheck disable=SC2046 # a list of file names
	make --no-print-directory -s -C "$kdir" M="$objdir" \
		$(for s in $srcs; do echo "modules/core/$s.o"; done) >&2
	objdir=$objdir/modules/core
	;;
-* | '')
	usage
	;;
*)
	[ $# = 1 ] || usage
	objdir=$1
	;;
esac

for s in $srcs; do
	if [ ! -f "$objdir/$s.o" ]; then
		echo "callgraph: $objdir/$s.o: no such object (build first)" >&2
		exit 1
	fi
done

# "D file symbol" for what a file defines, "U file symbol" for what it
# uses, then the graph and its cycles (Tarjan's strongly connected
# components; one shortest cycle through each).
for s in $srcs; do
	"$NM" --defined-only -g "$objdir/$s.o" | awk -v f="$s" 'NF == 3 { print "D", f, $3 }'
	"$NM" -u "$objdir/$s.o" | awk -v f="$s" '{ print "U", f, $NF }'
done | awk -v files="$srcs" '
$1 == "D" { def[$3] = $2; next }
$1 == "U" { use[++nu] = $2 " " $3 }
function strong(v,	i, w) {
	idx[v] = low[v] = ++counter
	stack[++sp] = v
	on[v] = 1
	for (i = 1; i <= nadj[v]; i++) {
		w = adj[v, i]
		if (!(w in idx)) {
			strong(w)
			if (low[w] < low[v])
				low[v] = low[w]
		} else if (on[w] && idx[w] < low[v]) {
			low[v] = idx[w]
		}
	}
	if (low[v] == idx[v]) {
		nscc++
		do {
			w = stack[sp--]
			on[w] = 0
			scc[w] = nscc
			size[nscc]++
		} while (w != v)
	}
}
# The shortest path from v back to v inside its component (BFS).
function cycle(v,	head, tail, q, prev, u, i, w, path) {
	head = tail = 1
	q[1] = v
	delete prev
	while (head <= tail) {
		u = q[head++]
		for (i = 1; i <= nadj[u]; i++) {
			w = adj[u, i]
			if (scc[w] != scc[v])
				continue
			if (w == v) {
				path = v
				for (; u != v; u = prev[u])
					path = u " -> " path
				return v " -> " path
			}
			if (!(w in prev)) {
				prev[w] = u
				q[++tail] = w
			}
		}
	}
}
END {
	n = split(files, f, " ")
	for (i = 1; i <= nu; i++) {
		split(use[i], a, " ")
		if ((a[2] in def) && def[a[2]] != a[1])
			edge[a[1], def[a[2]]] = 1
	}
	for (i = 1; i <= n; i++) {
		line = ""
		for (j = 1; j <= n; j++)
			if ((f[i], f[j]) in edge) {
				adj[f[i], ++nadj[f[i]]] = f[j]
				line = line " " f[j]
			}
		printf "%s ->%s\n", f[i], line
	}
	for (i = 1; i <= n; i++)
		if (!(f[i] in idx))
			strong(f[i])
	bad = 0
	for (i = 1; i <= n; i++) {
		c = scc[f[i]]
		if (size[c] < 2 || (c in shown))
			continue
		shown[c] = 1
		bad = 1
		printf "cycle: %s", cycle(f[i])
		if (size[c] > 2) {
			printf " (files in cycles with each other:"
			for (j = 1; j <= n; j++)
				if (scc[f[j]] == c)
					printf " %s", f[j]
			printf ")"
		}
		printf "\n"
	}
	if (!bad)
		print "no cycles"
	exit bad
}'
