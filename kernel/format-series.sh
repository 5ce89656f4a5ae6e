#!/bin/bash
# kernel/format-series.sh - regenerate kernel/patches/ from a kernel git tree.
#
# Usage: kernel/format-series.sh GIT_TREE BASE_REV
#
# Writes `git format-patch --cover-letter BASE_REV..HEAD` of GIT_TREE into
# kernel/patches/, with the cover letter's subject and body taken from
# kernel/cover-letter.txt (first line = subject, rest = body).
set -euo pipefail
# SPDX-License-Identifier: GPL-2.0-only
. "$(dirname "$0")/../scripts/lib.sh"

[ $# -eq 2 ] || { sed -n '2,/^set -e/p' "$0" | sed '$d; s/^# \{0,1\}//' >&2; exit 2; }
tree=$1 base=$2
out=$MN_TOP/kernel/patches
cover=$MN_TOP/kernel/cover-letter.txt
git -C "$tree" rev-parse --verify -q "$base" >/dev/null || mn_die "$base: no such revision in $tree"

rm -f "$out"/*.patch
git -C "$tree" format-patch -q --cover-letter --no-signature -o "$out" "$base"
subject=$(head -1 "$cover")
python3 - "$out/0000-cover-letter.patch" "$cover" "$subject" <<'PY'
import sys
path, cover, subject = sys.argv[1:]
text = open(path).read()
body = open(cover).read().split('\n', 1)[1].strip('\n')
text = text.replace('*** SUBJECT HERE ***', subject, 1)
text = text.replace('*** BLURB HERE ***', body, 1)
open(path, 'w').write(text)
PY
ls "$out"
