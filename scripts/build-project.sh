#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# scripts/build-project.sh - configure and build memnotify in _build/.
#
# Usage: scripts/build-project.sh [--stage DIR]
#
# Installs missing Debian packages when run as root (prints the apt-get
# command otherwise), runs autoreconf when configure is missing or stale,
# configures _build/ with --prefix=/usr --sysconfdir=/etc and builds. With
# --stage DIR it also runs `make stage`, which leaves the guest's Debian
# packages in _build/guest-debs/ (run-scenario.sh --debs), and copies its
# tree of guest test programs to DIR (run-scenario.sh --stage).
# Exit status: 0 built, 1 a step failed, 2 bad usage.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/lib.sh
. scripts/deps.sh

stage=
case ${1:-} in
'') ;;
--stage) stage=${2:?--stage needs a directory} ;;
*) echo "usage: scripts/build-project.sh [--stage DIR]" >&2; exit 2 ;;
esac

mn_log "checking Debian packages"
mn_need_pkgs "${MN_PKGS_BUILD[@]}" "${MN_PKGS_KERNEL[@]}" "${MN_PKGS_VM[@]}" "${MN_PKGS_TEST[@]}"

if [ ! -x configure ] || [ configure.ac -nt configure ] || [ Makefile.am -nt configure ]; then
	mn_log "autoreconf"
	autoreconf -fi >/dev/null 2>&1 || autoreconf -fi
fi
mkdir -p _build
cd _build
if [ ! -f Makefile ] || [ ../configure -nt Makefile ]; then
	mn_log "configure"
	../configure --quiet --prefix=/usr --sysconfdir=/etc --localstatedir=/var
fi
mn_log "make"
make -s -j"$(nproc)"

if [ -n "$stage" ]; then
	mn_log "make stage: the guest programs (_build/stage) and packages (_build/guest-debs)"
	make -s stage
	rm -rf "$stage"
	cp -a stage "$stage"
fi
