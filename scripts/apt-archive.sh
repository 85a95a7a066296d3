#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Prints the address of a Debian archive as this machine's own apt sources
# name it, so that chroots and guest root file systems use the same mirror
# as the host and no archive's host name is written into the project.
#
#   scripts/apt-archive.sh main       the archive holding SUITE (default:
#                                     the host's release, e.g. bookworm)
#   scripts/apt-archive.sh security   the archive holding SUITE-security
#   scripts/apt-archive.sh sources S  a sources.list for a chroot of suite S:
#                                     S, S-updates and S-security, from the
#                                     archives that hold SUITE and
#                                     SUITE-security here (an archive
#                                     serves every suite)
#
# Reads /etc/apt/sources.list, /etc/apt/sources.list.d/*.list (one-line
# form) and /etc/apt/sources.list.d/*.sources (deb822). Exits 1 with a
# message when no enabled "deb" source carries the suite.
set -u
which=${1:-main}
# shellcheck source=/dev/null
suite=${SUITE:-$(. /etc/os-release 2>/dev/null && echo "${VERSION_CODENAME:-}")}
[ -n "$suite" ] || { echo "apt-archive: cannot tell the Debian release; set SUITE" >&2; exit 1; }
dir=${APT_DIR:-/etc/apt}

# lookup SUITE: the address of the first enabled deb source carrying SUITE.
lookup() {
	want=$1
	uri=$(
		for f in "$dir/sources.list" "$dir"/sources.list.d/*.list; do
			[ -f "$f" ] || continue
			# deb [options] URI SUITE COMPONENT...
			sed -e 's/#.*//' -e 's/\[[^]]*\]//' "$f" |
				awk -v want="$want" '$1 == "deb" && $3 == want { print $2; exit }'
		done
		for f in "$dir"/sources.list.d/*.sources; do
			[ -f "$f" ] || continue
			# Stanzas separated by blank lines; the first URI of a stanza
			# whose Types has deb, Suites has the suite and Enabled is not no.
			awk -v want="$want" '
				function flush() {
					if (uri != "" && deb && has && enabled) { print uri; found = 1 }
					uri = ""; deb = 0; has = 0; enabled = 1
				}
				BEGIN { enabled = 1 }
				/^[ \t]*#/ { next }
				/^[ \t]*$/ { flush(); if (found) exit; next }
				tolower($1) == "types:" { for (i = 2; i <= NF; i++) if ($i == "deb") deb = 1 }
				tolower($1) == "uris:" { uri = $2 }
				tolower($1) == "suites:" { for (i = 2; i <= NF; i++) if ($i == want) has = 1 }
				tolower($1) == "enabled:" && tolower($2) == "no" { enabled = 0 }
				END { if (!found) flush() }
			' "$f"
		done | head -n 1
	)
	if [ -z "$uri" ]; then
		echo "apt-archive: no enabled 'deb' source for $want in $dir/sources.list or $dir/sources.list.d/" >&2
		return 1
	fi
	echo "${uri%/}"
}

case $which in
main) lookup "$suite" ;;
security) lookup "$suite-security" ;;
sources)
	[ $# = 2 ] || { echo "usage: $0 sources SUITE" >&2; exit 2; }
	main=$(lookup "$suite") && security=$(lookup "$suite-security") || exit 1
	# unstable has no -updates or -security suite, and the archive lets
	# its Release file expire between pushes: apt must not insist on its
	# Valid-Until there.
	case $2 in
	sid | unstable) printf 'deb [check-valid-until=no] %s %s main\n' "$main" "$2" ;;
	*) printf 'deb %s %s main\ndeb %s %s-updates main\ndeb %s %s-security main\n' \
		"$main" "$2" "$main" "$2" "$security" "$2" ;;
	esac ;;
*) echo "usage: $0 main|security|sources SUITE" >&2; exit 2 ;;
esac
