#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# kmod/'s dependencies run one way (docs/DESIGN.md, "The map"): a file may
# include the headers of its own layer and of the layers below it, never
# one above. Prints each include that goes up; exits 1 if there is any.
set -u
cd "$(dirname "$0")/../kmod" || exit 2

# layer NAME: the layer of a source or header, by its base name.
layer() {
	case $1 in
	uapi/*|compat|conftest|table|procdb|procdb_eh|taskroot|buildid|config|arch|fst_arch|unwind|clock|ehframe|ehframe_user|ehtab|ehwalk|vdso_leaf|ksym_text) echo 0 ;;
	sampler|recent|offcpu|kstack_cache) echo 1 ;;
	drain) echo 2 ;;
	session|readermem) echo 3 ;;
	output|text|snapshot|snapzip|ksym) echo 4 ;;
	device) echo 5 ;;
	main) echo 6 ;;
	*) echo unknown ;;
	esac
}

rc=0
for f in *.[ch] arch/*/*.[ch]; do
	case $f in *.mod.c) continue ;; esac
	base=$(basename "$f"); base=${base%.[ch]}
	mine=$(layer "$base")
	if [ "$mine" = unknown ]; then
		echo "kmod/$f: in no layer (add it to scripts/check-kmod-layers.sh and docs/DESIGN.md)"
		rc=1
		continue
	fi
	for inc in $(sed -n 's/^#include "\(.*\)\.h"$/\1/p' "$f"); do
		case $inc in uapi/* | */uapi/*) name=uapi/${inc##*/} ;; *) name=$(basename "$inc") ;; esac
		theirs=$(layer "$name")
		if [ "$theirs" = unknown ] || [ "$theirs" -gt "$mine" ]; then
			echo "kmod/$f (layer $mine) includes $inc.h (layer $theirs)"
			rc=1
		fi
	done
done
exit $rc
