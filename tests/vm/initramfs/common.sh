# shellcheck shell=sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# tests/vm/initramfs/common.sh - the start of every busybox test guest's
# /init (tests/vm/initramfs/init, tests/robust/init, tests/bench/init);
# mn_vm_initramfs (tests/vm/lib.sh) installs it as /lib/mn-common.sh and the
# /init scripts source it first.
#
# Sets up the guest: busybox applets in /bin, /proc, /sys, /dev (devtmpfs),
# stdin/stdout/stderr on the serial console, and the scratch file system of
# mn_vm_scratch_disk (/dev/vda: ext4 with /fill, 128 MiB of random bytes for
# page cache) read-only on /mnt. Then sources /lib/mn-tap.sh
# (tests/vm/initramfs/tap.sh): tap, field, fold, oom_kills.
/bin/busybox --install -s /bin
export PATH=/bin
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
# the initramfs has no /dev/console node of its own: talk to the serial
# console through devtmpfs from here on
exec </dev/console >/dev/console 2>&1
mkdir -p /mnt
mount -t ext4 -o ro /dev/vda /mnt 2>/dev/null ||
	echo "MN-INFO: no scratch file system on /dev/vda (/mnt/fill is missing)"

# shellcheck source=SCRIPTDIR/tap.sh
. /lib/mn-tap.sh
