# shellcheck shell=sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# TAP helpers for the host test scripts (sh and bash). Source it; do not
# run it.

n=0

# ok DESCRIPTION: a passed test point.
ok() { n=$((n + 1)); echo "ok $n - $1"; }

# not_ok DESCRIPTION [FILE...]: a failed test point, followed by the last
# lines of each FILE that exists, as TAP comments.
not_ok() {
	n=$((n + 1))
	echo "not ok $n - $1"
	shift
	for f in "$@"; do [ -f "$f" ] && sed "s|^|# ${f##*/}: |" "$f" | tail -n "${TAP_TAIL:-25}"; done
}

# tap_cached_build OUT ERR SCRIPT PLAN: run one of the caching package
# build scripts (exit status 3: root needed, 4: not cached; stdout: the
# .deb files). As root it builds; as another user it only looks into the
# cache (--cached-only). When nothing can be had the test plan becomes
# "1..0 # SKIP" and the test ends; otherwise it prints the plan "1..PLAN"
# and the first test point, and bails out if the build failed. stdout goes
# to OUT, stderr to ERR.
tap_cached_build() {
	local rc
	if [ "$(id -u)" -eq 0 ]; then
		echo "# ${3##*/} (several minutes when not cached)"
		bash "$3" >"$1" 2>"$2"
	else
		bash "$3" --cached-only >"$1" 2>"$2"
	fi
	rc=$?
	case $rc in
	3|4) echo "1..0 # SKIP not cached: run ${3##*/} as root once"; exit 0 ;;
	esac
	echo "1..$4"
	if [ "$rc" -ne 0 ]; then
		not_ok "${3##*/} (exit status $rc)" "$2"
		echo "Bail out! no packages"
		exit 1
	fi
	ok "${3##*/}: $(wc -l <"$1") packages in $(dirname "$(head -n 1 "$1")")"
}

# tap_fifo_device_shim: preload tests/shim/fifo-device-shim.so into every
# program the test runs ($MEMNOTIFY_FIFO_SHIM, set by make check, or the
# build tree's), so that a FIFO standing in for /dev/mem_notify answers as
# a kernel with levels and without records; bails out if it is not built.
tap_fifo_device_shim() {
	local shim=${MEMNOTIFY_FIFO_SHIM:-${top_builddir:-.}/tests/shim/.libs/fifo-device-shim.so}

	if [ ! -f "$shim" ]; then
		echo "Bail out! $shim is not built (make check builds it)"
		exit 1
	fi
	LD_PRELOAD=$shim${LD_PRELOAD:+:$LD_PRELOAD}
	MEMNOTIFY_SHIM_RECORDS=0
	export LD_PRELOAD MEMNOTIFY_SHIM_RECORDS
}
