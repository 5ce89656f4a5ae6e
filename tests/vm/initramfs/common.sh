# shellcheck shell=sh
# tests/vm/initramfs/common.sh - the start of every busybox test guest's
# /init (tests/vm/initramfs/init, tests/robust/init, tests/bench/init);
# mn_vm_initramfs (tests/vm/lib.sh) installs it as /lib/mn-common.sh and the
# /init scripts source it first.
#
# Sets up the guest: busybox applets in /bin, /proc, /sys, /dev (devtmpfs),
# stdin/stdout/stderr on the serial console, and the scratch file system of
# mn_vm_scratch_disk (/dev/vda: ext4 with /fill, 128 MiB of random bytes for
# page cache) read-only on /mnt. Then defines:
#   tap 0|1 DESC [DIAG]   a result line "MN-TAP: ok N - DESC" (or "not ok",
#                         with "MN-TAP: # DIAG"); the host relays them
#                         (mn_vm_relay_tap)
#   field KEY TEXT        the value of KEY=value in TEXT
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

n=0
tap() { # tap 0|1 description [diagnostics]
	n=$((n + 1))
	if [ "$1" = 0 ]; then echo "MN-TAP: ok $n - $2"
	else echo "MN-TAP: not ok $n - $2"; [ -n "$3" ] && echo "MN-TAP: # $3"; fi
}
field() { # field KEY TEXT: value of KEY=value in TEXT
	echo "$2" | tr ' ' '\n' | sed -n "s/^$1=//p" | tail -1
}
