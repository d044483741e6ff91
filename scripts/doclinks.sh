#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Checks the links of README.md and docs/*.md: every relative link and
# image ([text](path), [text](path#anchor), [text](#anchor)) names a file
# or directory that exists, and every #anchor into a Markdown file names
# one of its headings, as GitHub makes anchors of them: the heading's
# text without its Markdown (code spans, links), lowercased, characters
# other than letters, digits, spaces, '-' and '_' dropped, spaces made
# '-', and "-1", "-2"... added to a repeated one.  Links with a scheme
# (https:, mailto:) are not followed.  Fenced code blocks and code spans
# hold no links or headings.
#
# Listings of files of the tree are checked too, so that the docs show
# the code that is built and tested: a fenced block after a line
# "<!-- file: PATH -->" must be the file PATH (relative to the Markdown
# file, as links are), exactly; after "<!-- excerpt: PATH -->", each of
# its lines but "..." must be a line of PATH.
#
# Prints "error: FILE:LINE: ..." for each broken link or listing and
# exits 1 if there is one (check.sh's lint stage counts a clean run as
# passed).
#
# Usage: doclinks.sh [FILE.md...]   (default: README.md docs/*.md)
set -u

top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top" || exit 1
[ $# -gt 0 ] || set -- README.md docs/*.md

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# md FILE...: "FILE<TAB>h<TAB>ANCHOR" for each heading and
# "FILE<TAB>l<TAB>LINE<TAB>TARGET" for each link, outside code;
# "FILE<TAB>f|x<TAB>LINE<TAB>PATH<TAB>COPY" for each listing of a file or
# an excerpt, the fenced block copied to COPY in $tmp.
md() {
	awk -v dir="$tmp" '
	FNR == 1 { fence = ""; want = ""; delete seen }
	fence == "" && /^<!-- (file|excerpt): [^ ]+ -->$/ {
		want = ($2 == "file:") ? "f" : "x"
		wpath = $3
		wline = FNR
		next
	}
	# A fence opens with three or more backticks or tildes and closes
	# with the same character.
	/^[ \t]*(```|~~~)/ {
		c = substr($0, match($0, /[`~]/), 1)
		if (fence == "") {
			fence = c
			if (want != "") {
				copy = dir "/listing" ++nlist
				printf "" > copy
				print FILENAME "\t" want "\t" wline "\t" wpath "\t" copy
				want = ""
			}
		} else if (fence == c) {
			fence = ""
			if (copy != "")
				close(copy)
			copy = ""
		}
		next
	}
	fence != "" {
		if (copy != "")
			print > copy
		next
	}
	# a marker holds for the next line only
	want != "" && FNR > wline { want = "" }
	{
		line = $0
		# code spans hold no links
		gsub(/`[^`]*`/, "", line)
	}
	/^#+[ \t]/ {
		# a code span keeps its text in the anchor
		h = $0
		gsub(/`/, "", h)
		sub(/^#+[ \t]+/, "", h)
		sub(/[ \t]+#+[ \t]*$/, "", h)
		sub(/[ \t]+$/, "", h)
		# [text](url) and ![alt](url) read as their text
		while (match(h, /!?\[[^]]*\]\([^)]*\)/)) {
			t = substr(h, RSTART, RLENGTH)
			sub(/^!?\[/, "", t)
			sub(/\]\(.*$/, "", t)
			h = substr(h, 1, RSTART - 1) t substr(h, RSTART + RLENGTH)
		}
		h = tolower(h)
		gsub(/[^a-z0-9 _-]/, "", h)
		gsub(/ /, "-", h)
		a = h
		if (h in seen)
			a = h "-" seen[h]
		seen[h]++
		print FILENAME "\th\t" a
	}
	{
		while (match(line, /\]\([^) \t]+( +"[^"]*")?\)/)) {
			t = substr(line, RSTART + 2, RLENGTH - 3)
			sub(/ +".*$/, "", t)
			print FILENAME "\tl\t" FNR "\t" t
			line = substr(line, RSTART + RLENGTH)
		}
	}
	' "$@"
}

md "$@" > "$tmp/all" || exit 1
awk -F '\t' '$2 == "h" { print $1 "\t" $3 }' "$tmp/all" > "$tmp/anchors"

bad=0
while IFS=$'\t' read -r file kind lineno target copy; do
	case $kind in
	f | x)
		dest=$(realpath -m --relative-to="$top" "$(dirname "$file")/$target")
		if [ ! -f "$dest" ]; then
			echo "error: $file:$lineno: listing of $target: no such file ($dest)"
			bad=1
		elif [ "$kind" = f ] && ! cmp -s "$copy" "$dest"; then
			echo "error: $file:$lineno: the listing is not $dest:"
			diff -u "$dest" "$copy" | sed 's/^/# /'
			bad=1
		elif [ "$kind" = x ]; then
			while IFS= read -r l; do
				[ "$l" = ... ] || grep -qxF -- "$l" "$dest" || {
					echo "error: $file:$lineno: the excerpt's line '$l' is not in $dest"
					bad=1
				}
			done < "$copy"
		fi
		continue
		;;
	l) ;;
	*) continue ;;
	esac
	case $target in
	[a-zA-Z]*:*) continue ;;	# https:, mailto:...
	esac
	path=${target%%#*} anchor=
	case $target in *'#'*) anchor=${target#*#} ;; esac
	if [ -z "$path" ]; then
		dest=$file
	else
		dest=$(realpath -m --relative-to="$top" "$(dirname "$file")/$path")
	fi
	if [ ! -e "$dest" ]; then
		echo "error: $file:$lineno: $target: no such file ($dest)"
		bad=1
		continue
	fi
	[ -n "$anchor" ] || continue
	case $dest in
	*.md) ;;
	*) continue ;;	# anchors of other files are not ours to check
	esac
	if [ ! -s "$tmp/anchors-$(echo "$dest" | tr / _)" ]; then
		if grep -q "^$dest	" "$tmp/anchors"; then
			grep "^$dest	" "$tmp/anchors"
		else
			md "$dest" | awk -F '\t' '$2 == "h" { print $1 "\t" $3 }'
		fi > "$tmp/anchors-$(echo "$dest" | tr / _)"
	fi
	if ! grep -qxF "$dest	$anchor" "$tmp/anchors-$(echo "$dest" | tr / _)"; then
		echo "error: $file:$lineno: $target: $dest has no heading with anchor #$anchor"
		bad=1
	fi
done < "$tmp/all"
exit $bad
