#!/bin/bash
# demo-rootfs/build.sh - build the Debian bookworm root filesystem that the
# memnotify test guest boots (cached), and optionally compose a disk image.
#
# Usage: demo-rootfs/build.sh [--print-base] [--print-image [mkimage options]]
#
#   (no option)    build the configured base tree if it is not cached yet
#   --print-base   the same, then print the base tree's path on stdout
#   --print-image  build the base, then compose an ext4 image from it with
#                  demo-rootfs/mkimage.sh (the remaining options, e.g.
#                  --overlay DIR, are passed on to it) and print its path
#
# The base is debootstrap --variant=minbase of Debian bookworm plus the
# packages listed in demo-rootfs/packages, configured for a headless test
# guest (no password for root, fstab for /dev/vda, slow or useless units
# masked). It is made in two cached steps under $MEMNOTIFY_CACHE/rootfs/:
#   debootstrap-<hash>/tree  the plain debootstrap; <hash> covers the suite,
#                            the debootstrap options and demo-rootfs/packages
#   base-<hash>/tree         a copy configured by this script; <hash> covers
#                            this script and demo-rootfs/packages (base-latest
#                            points at the newest)
# so that changing only the configuration below skips the download.
# Downloaded .debs are kept in $MEMNOTIFY_CACHE/rootfs/debs.
#
# The Debian mirror is the one apt uses on this host (the first bookworm
# "deb" source in /etc/apt/sources.list{,.d/*}), $MEMNOTIFY_MIRROR overrides
# it; the mirror is not part of the cache key.
#
# debootstrap needs root: as another user, only an already cached base is
# printed; anything else fails with a clear message.
#
# Exit codes: 0 built or cached, 1 failed, 2 bad usage.
set -euo pipefail
# SPDX-License-Identifier: LGPL-2.1-or-later
. "$(dirname "$0")/../scripts/lib.sh"

suite=bookworm
default_mirror=http://deb.debian.org/debian
here=$MN_TOP/demo-rootfs

mode=build
while [ $# -gt 0 ]; do
	case $1 in
	--print-base) mode=base; shift ;;
	--print-image) mode=image; shift; break ;;
	-h|--help) sed -n '2,/^set -e/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
	*) echo "demo-rootfs/build.sh: unknown argument '$1' (try --help)" >&2; exit 2 ;;
	esac
done

packages=$(sed 's/#.*//' "$here/packages" | tr -s ' \t' '\n\n' | sed '/^$/d' | sort -u | paste -sd, -)
[ -n "$packages" ] || mn_die "no packages in $here/packages"
key=$(mn_hash "$0" "$here/packages")
base=$MN_CACHE/rootfs/base-$key

finish() {
	ln -sfn "base-$key" "$MN_CACHE/rootfs/base-latest" 2>/dev/null || true
	case $mode in
	base) echo "$base/tree" ;;
	image) exec "$here/mkimage.sh" --base "$base/tree" "$@" --print-image ;;
	*) mn_log "rootfs: $base/tree" ;;
	esac
	exit 0
}

[ -f "$base/ok" ] && finish "$@"
if [ "$(id -u)" -ne 0 ]; then
	mn_die "the demo rootfs (base-$key) is not cached and building it needs root
  (debootstrap and the files it creates belong to root); run as root:
  sudo $0"
fi
mn_need_pkgs debootstrap debian-archive-keyring e2fsprogs
mn_lock rootfs-build
[ -f "$base/ok" ] && finish "$@"

# The mirror apt uses here: the first "deb" source whose suites include
# $suite exactly, in deb822 (.sources) or one-line (.list) form.
find_mirror() {
	local f
	for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
		[ -r "$f" ] || continue
		awk -v s="$suite" '$1 == "deb" {
			i = 2
			if ($i ~ /^\[/) { while (i < NF && $i !~ /\]$/) i++; i++ }
			if ($(i + 1) == s) { print $i; exit }
		}' "$f"
	done
	for f in /etc/apt/sources.list.d/*.sources; do
		[ -r "$f" ] || continue
		awk -v s="$suite" '
		function flush() {
			if (types ~ /(^| )deb( |$)/ && (" " suites " ") ~ (" " s " ") && uris != "")
				{ split(uris, u, " "); print u[1]; found = 1; exit }
			types = suites = uris = ""
		}
		/^[ \t]*$/ { flush(); next }
		/^[ \t]*#/ { next }
		tolower($1) == "types:" { sub(/^[^:]*:[ \t]*/, ""); types = $0 }
		tolower($1) == "suites:" { sub(/^[^:]*:[ \t]*/, ""); suites = $0 }
		tolower($1) == "uris:" { sub(/^[^:]*:[ \t]*/, ""); uris = $0 }
		END { if (!found) flush() }' "$f"
	done
}
mirror=${MEMNOTIFY_MIRROR:-$(find_mirror | head -n1)}
mirror=${mirror:-$default_mirror}

debs=$MN_CACHE/rootfs/debs
dbs_opts="--variant=minbase --components=main --include=$packages $suite"
dbs_key=$(printf '%s\n' "$dbs_opts" | sha256sum | cut -c1-16)
dbs=$MN_CACHE/rootfs/debootstrap-$dbs_key
work=$MN_CACHE/rootfs/work-$key
# debootstrap mounts /proc and /sys in the target; never leave them.
umount_all() { mn_umount_below "$MN_CACHE/rootfs"; }
trap umount_all EXIT
umount_all

if [ ! -f "$dbs/ok" ]; then
	log=$MN_CACHE/rootfs/debootstrap-$dbs_key.log
	rm -rf "$dbs" "$dbs.tmp"
	mkdir -p "$debs" "$dbs.tmp"
	: >"$log"
	mn_log "rootfs: debootstrap $suite minbase from $mirror (log: $log)"
	mn_log "rootfs: extra packages: $packages"
	set +e
	# shellcheck disable=SC2086
	debootstrap --cache-dir="$debs" $dbs_opts "$dbs.tmp/tree" "$mirror" 2>&1 |
		tee -a "$log" | {
		n=0
		while IFS= read -r line; do
			case $line in
			"I: Retrieving "*|"I: Validating "*)
				case $line in
				*Release*|*Packages*) mn_log "debootstrap: ${line#I: }" ;;
				"I: Retrieving "*) n=$((n + 1)); [ $((n % 50)) = 0 ] && mn_log "debootstrap: $n packages retrieved" ;;
				esac ;;
			"I: Resolving"*|"I: Checking component"*|"I: Installing core"*|"I: Unpacking required"*|\
			"I: Configuring required"*|"I: Unpacking the base"*|"I: Configuring the base"*|"I: Base system"*|\
			W:*|E:*)
				mn_log "debootstrap: ${line#I: }" ;;
			esac
		done
	}
	rc=${PIPESTATUS[0]}
	set -e
	umount_all
	if [ "$rc" -ne 0 ]; then
		tail -n 30 "$log" >&2
		[ -f "$dbs.tmp/tree/debootstrap/debootstrap.log" ] &&
			tail -n 30 "$dbs.tmp/tree/debootstrap/debootstrap.log" >&2
		mn_die "debootstrap failed (exit $rc, log: $log)"
	fi
	rm -rf "$dbs.tmp/tree/debootstrap"
	mv "$log" "$dbs.tmp/debootstrap.log"
	touch "$dbs.tmp/ok"
	mv "$dbs.tmp" "$dbs"
else
	mn_log "rootfs: debootstrap tree cached (debootstrap-$dbs_key)"
fi

rm -rf "$work"
mkdir -p "$work"
cp -a "$dbs/tree" "$work/tree"
mn_log "rootfs: configuring the guest"
t=$work/tree
# No password for root: the serial console lets a person log in by hand.
sed -i 's/^root:[^:]*:/root::/' "$t/etc/shadow"
echo memnotify-guest >"$t/etc/hostname"
cat >"$t/etc/hosts" <<'EOF'
127.0.0.1	localhost
127.0.1.1	memnotify-guest
::1		localhost ip6-localhost ip6-loopback
EOF
# The root is mounted rw by the kernel (root=/dev/vda rw); no fsck at boot.
cat >"$t/etc/fstab" <<'EOF'
# memnotify test guest: the image is made fresh by mkfs.ext4 on the host.
/dev/vda	/	ext4	rw,relatime	0	0
EOF
# A fixed machine id: no first-boot logic (systemd-firstboot would prompt).
printf '%s\n' "$(printf 'memnotify-guest %s' "$key" | sha256sum | cut -c1-32)" >"$t/etc/machine-id"
ln -sfn /usr/share/zoneinfo/Etc/UTC "$t/etc/localtime"
echo Etc/UTC >"$t/etc/timezone"
# The journal stays in memory: the scenario runner copies it out.
mkdir -p "$t/etc/systemd/journald.conf.d"
cat >"$t/etc/systemd/journald.conf.d/memnotify.conf" <<'EOF'
[Journal]
Storage=volatile
RuntimeMaxUse=32M
EOF
# The guest kernel is small (CONFIG_BASE_SMALL: pid_max at most 32768):
# Debian's kernel.pid_max = 4194304 would fail systemd-sysctl.service.
mkdir -p "$t/etc/sysctl.d"
ln -sfn /dev/null "$t/etc/sysctl.d/50-pid-max.conf"
# Units that slow the boot down or do nothing useful in a throw-away guest
# (the kernel has no modules; nobody logs in through logind: ~13 s under TCG).
for u in systemd-firstboot.service systemd-timesyncd.service \
	systemd-logind.service modprobe@.service \
	apt-daily.timer apt-daily-upgrade.timer apt-daily.service apt-daily-upgrade.service \
	dpkg-db-backup.timer dpkg-db-backup.service \
	e2scrub_all.timer e2scrub_all.service e2scrub_reap.service \
	fstrim.timer fstrim.service man-db.timer man-db.service \
	systemd-networkd.service systemd-networkd-wait-online.service \
	systemd-journal-flush.service getty@tty1.service; do
	ln -sfn /dev/null "$t/etc/systemd/system/$u"
done
# Nothing of apt's is needed at run time; keep the tree small.
rm -rf "$t"/var/lib/apt/lists/* "$t"/var/cache/apt/*.bin "$t"/var/cache/apt/archives/*.deb \
	"$t"/var/log/*.log "$t"/var/log/apt/*
# Record what went in.
{
	echo "suite=$suite"
	echo "mirror=$mirror"
	echo "key=$key"
	echo "built=$(date -u +%Y-%m-%dT%H:%M:%SZ)"
} >"$t/etc/memnotify-rootfs"
chroot "$t" dpkg-query -W -f='${Package} ${Version}\n' >"$work/packages.txt" 2>/dev/null || true

rm -rf "$base"
mkdir -p "$base"
mv "$work/tree" "$base/tree"
mv "$work/packages.txt" "$base/packages.txt" 2>/dev/null || true
rm -rf "$work"
du -sh "$base/tree" | awk '{ print $1 }' >"$base/size"
touch "$base/ok"
# Keep the two newest of each kind of tree.
for kind in base debootstrap; do
	ls -1dt "$MN_CACHE/rootfs/$kind"-*/ 2>/dev/null | tail -n +3 | while read -r old; do
		rm -rf "${old%/}"
	done
done
mn_log "rootfs: base ready ($(cat "$base/size"), $(wc -l <"$base/packages.txt" 2>/dev/null || echo '?') packages)"
finish "$@"
