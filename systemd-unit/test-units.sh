#!/bin/sh
# Checks the generated systemd units with systemd-analyze; speaks TAP.
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# For each unit made from systemd-unit/*.in (make builds them first):
#   - no @placeholder@ is left, ExecStart= names an absolute path;
#   - `systemd-analyze verify` accepts the units. verify wants the programs
#     to exist, so it checks copies whose ExecStart= points at the built
#     programs (or at stubs if they are not built);
#   - `systemd-analyze security --offline=yes` rates each service at most
#     2.0 (its exposure scale: 0 safe .. 10 unsafe).
# Skipped (1..0 # SKIP) without systemd-analyze.
set -u

builddir=${top_builddir:-.}
units="memnotify-demo.target memnotify-browser-cache.service memnotify-sqlite-demo.service"

if ! command -v systemd-analyze >/dev/null 2>&1; then
	echo "1..0 # SKIP systemd-analyze is missing (Debian package systemd)"
	exit 0
fi

tmp=$(mktemp -d "${TMPDIR:-/tmp}/memnotify-units.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

echo "1..6"
n=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
not_ok() {
	n=$((n + 1))
	echo "not ok $n - $1"
	[ -s "$tmp/out" ] && sed 's/^/# /' "$tmp/out" | head -n 30
}

# 1: all units are there, fully substituted, with absolute ExecStart= paths.
: >"$tmp/out"
for u in $units; do
	f=$builddir/systemd-unit/$u
	if [ ! -f "$f" ]; then
		echo "$f is missing (make builds it)" >>"$tmp/out"
	elif grep -n '@[a-z_]*@' "$f" >>"$tmp/out"; then
		echo "$f: a placeholder is left" >>"$tmp/out"
	elif grep -n '^ExecStart=[^/]' "$f" >>"$tmp/out"; then
		echo "$f: ExecStart= is not an absolute path" >>"$tmp/out"
	fi
done
if [ -s "$tmp/out" ]; then
	not_ok "the units are generated and fully substituted"
	exit 1
fi
ok "the units are generated and fully substituted ($(sed -n 's/^ExecStart=\([^ ]*\).*/\1/p' \
	"$builddir/systemd-unit/memnotify-browser-cache.service"))"

# The copies that systemd-analyze verify checks: programs in $tmp/bin.
mkdir -p "$tmp/bin" "$tmp/units"
for u in $units; do
	prog=$(sed -n 's/^ExecStart=\([^ ]*\).*/\1/p' "$builddir/systemd-unit/$u")
	if [ -n "$prog" ]; then
		name=$(basename "$prog")
		built=$(find "$builddir/integrations" -name "$name" -type f -perm -u+x 2>/dev/null | head -n 1)
		if [ -n "$built" ]; then
			ln -sf "$(cd "$(dirname "$built")" && pwd)/$name" "$tmp/bin/$name"
		else
			printf '#!/bin/sh\nexit 0\n' >"$tmp/bin/$name"
			chmod +x "$tmp/bin/$name"
		fi
		sed "s|^ExecStart=$prog |ExecStart=$tmp/bin/$name |" "$builddir/systemd-unit/$u" >"$tmp/units/$u"
	else
		cp "$builddir/systemd-unit/$u" "$tmp/units/$u"
	fi
done

# 2: systemd-analyze verify, all units at once (the target pulls in both).
(cd "$tmp/units" && systemd-analyze verify --man=no ./memnotify-demo.target \
	./memnotify-browser-cache.service ./memnotify-sqlite-demo.service) >"$tmp/out" 2>&1
rc=$?
if [ "$rc" -eq 0 ] && ! grep -q . "$tmp/out"; then
	ok "systemd-analyze verify: no errors, no warnings"
else
	not_ok "systemd-analyze verify (exit $rc)"
fi

# 3-4: exposure scores.
for u in memnotify-browser-cache.service memnotify-sqlite-demo.service; do
	systemd-analyze security --offline=yes "$tmp/units/$u" >"$tmp/out" 2>&1
	rc=$?
	score=$(sed -n 's/.*Overall exposure level for [^:]*: \([0-9.]*\).*/\1/p' "$tmp/out")
	if [ "$rc" -eq 0 ] && [ -n "$score" ] &&
		awk -v s="$score" 'BEGIN { exit !(s <= 2.0) }'; then
		ok "$u: systemd-analyze security exposure $score <= 2.0"
	else
		grep '✗' "$tmp/out" >"$tmp/out.x" 2>/dev/null && mv "$tmp/out.x" "$tmp/out"
		not_ok "$u: systemd-analyze security exposure '${score:-?}' <= 2.0 (exit $rc)"
	fi
done

# 5: the settings that the guest and the control runs rely on.
: >"$tmp/out"
for u in memnotify-browser-cache.service memnotify-sqlite-demo.service; do
	for want in '^ConditionPathExists=/dev/mem_notify$' '^EnvironmentFile=-/.*/default/memnotify-demos$' \
		'^PartOf=memnotify-demo.target$' '^DynamicUser=yes$' '^Restart=on-failure$' \
		'^BindReadOnlyPaths=-/dev/mem_notify$' '^DeviceAllow=/dev/mem_notify r$'; do
		grep -q "$want" "$tmp/units/$u" || echo "$u lacks $want" >>"$tmp/out"
	done
done
grep -q '^Environment=SQLITE_MEMNOTIFY=1 LD_LIBRARY_PATH=/usr/lib/memnotify/sqlite$' \
	"$tmp/units/memnotify-sqlite-demo.service" || echo "sqlite: no SQLITE_MEMNOTIFY=1 environment" >>"$tmp/out"
grep -q '^StateDirectory=memnotify-sqlite-demo$' "$tmp/units/memnotify-sqlite-demo.service" ||
	echo "sqlite: no StateDirectory=" >>"$tmp/out"
grep -q '\$MEMNOTIFY_BROWSER_CACHE_ARGS$' "$tmp/units/memnotify-browser-cache.service" ||
	echo "browser-cache: ExecStart= does not end in \$MEMNOTIFY_BROWSER_CACHE_ARGS" >>"$tmp/out"
if [ -s "$tmp/out" ]; then
	not_ok "condition, settings file, target, control switches"
else
	ok "condition, settings file, target, control switches"
fi

# 6: the target wants both services.
if grep -q '^Wants=memnotify-browser-cache.service memnotify-sqlite-demo.service$' \
	"$tmp/units/memnotify-demo.target"; then
	ok "memnotify-demo.target wants both services"
else
	: >"$tmp/out"
	not_ok "memnotify-demo.target wants both services"
fi
