# shellcheck shell=bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# The Debian packages memnotify needs, by purpose. Sourced by run-tests.sh
# and demo.sh; mn_need_pkgs (scripts/lib.sh) installs the missing ones.
MN_PKGS_BUILD=(build-essential autoconf automake libtool pkg-config
	libglib2.0-dev libsqlite3-dev systemd gobject-introspection libgirepository1.0-dev gi-docgen
	lintian)
MN_PKGS_KERNEL=(linux-source-6.1 bc flex bison libelf-dev libssl-dev xz-utils cpio)
MN_PKGS_VM=(qemu-system-x86 busybox-static cpio e2fsprogs debootstrap)
MN_PKGS_TEST=(valgrind python3-gi)
