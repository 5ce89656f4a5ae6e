#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# tests/licence.sh - every file git tracks names its licence: an
# SPDX-License-Identifier line in its first 100 lines, or an annotation in
# REUSE.toml (for files that cannot carry one: patches, texts, packaging)
# whose licence is one COPYING describes. A TAP test for make check.
#
# Usage: tests/licence.sh
#
# Skipped (1..0 # SKIP) outside a git checkout (a release tarball): the
# list of files is git's.
# Exit status: 0 every file names its licence, 1 some do not.
srcdir=${top_srcdir:-$(cd "$(dirname "$0")/.." && pwd)}
if ! git -C "$srcdir" ls-files --error-unmatch REUSE.toml >/dev/null 2>&1; then
	echo "1..0 # SKIP not a git checkout"
	exit 0
fi
git -C "$srcdir" ls-files -z | python3 -c '
import re, sys, tomllib
top = sys.argv[1]
allowed = {"LGPL-2.1-or-later", "GPL-2.0-only", "GPL-2.0", "GPL-2.0 WITH Linux-syscall-note",
           "FSFULLR AND FSFAP-no-warranty-disclaimer"}

def glob(pat):
    out = ""
    for part in re.split(r"(\*\*|\*|\?)", pat):
        out += {"**": ".*", "*": "[^/]*", "?": "[^/]"}.get(part, re.escape(part))
    return re.compile(out + r"\Z")

with open(top + "/REUSE.toml", "rb") as f:
    reuse = tomllib.load(f)
rules = []
for a in reuse.get("annotations", []):
    paths = a["path"] if isinstance(a["path"], list) else [a["path"]]
    rules += [(glob(p), a["SPDX-License-Identifier"]) for p in paths]

n = failed = 0
def point(ok, what):
    global n, failed
    n += 1
    failed += not ok
    print(("ok" if ok else "not ok") + " %d - %s" % (n, what))

files = [f for f in sys.stdin.read().split("\0") if f]
missing, bad = [], []
for name in files:
    lic = None
    try:
        with open(top + "/" + name, encoding="utf-8", errors="replace") as f:
            for _, line in zip(range(100), f):
                m = re.search(r"SPDX-License-Identifier: (.*?)\s*(\*/|-->)?\s*$", line)
                if m:
                    lic = m.group(1)
                    break
    except (IsADirectoryError, FileNotFoundError):
        continue
    if lic is None:
        lic = next((l for r, l in rules if r.match(name)), None)
    if lic is None:
        missing.append(name)
    elif lic not in allowed:
        bad.append("%s (%s)" % (name, lic))
point(not missing, "all %d tracked files name their licence (no SPDX line or REUSE.toml entry: %s)"
      % (len(files), ", ".join(missing[:10]) or "none"))
point(not bad, "each is a licence COPYING describes (other: %s)" % (", ".join(bad[:10]) or "none"))
point(all(any(r.match(f) for f in files) for r, _ in rules),
      "every REUSE.toml path matches a tracked file")
print("1..%d" % n)
sys.exit(1 if failed else 0)
' "$srcdir"
