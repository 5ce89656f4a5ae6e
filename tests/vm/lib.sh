# shellcheck shell=bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# tests/vm/lib.sh - boot a kernel under QEMU for memnotify's VM tests.
# Source it from bash (it sources scripts/lib.sh: MN_TOP, MN_CACHE, mn_log,
# mn_die); do not run it. Safe under `set -euo pipefail`.
#
# The functions live in tests/vm/lib/, one file a job, each documenting
# its own:
#   qemu.sh        mn_vm_accel, mn_vm_run, mn_vm_panicked, mn_vm_tail
#   kernel-log.sh  mn_vm_debug_report, mn_vm_check_kernel_log, mn_vm_finished
#   images.sh      mn_vm_initramfs, mn_vm_initramfs_check, mn_vm_scratch_disk,
#                  mn_vm_guest_results
#   tap.sh         mn_tap, mn_tap_done, mn_tap_relay, mn_tap_run, mn_vm_relay_tap,
#                  mn_vm_skip_uncached, mn_vm_modes, mn_vm_guest_inputs

if [ -z "${MN_TOP:-}" ] || ! declare -F mn_log >/dev/null; then
	# shellcheck source=../../scripts/lib.sh
	. "$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)/scripts/lib.sh"
fi

for mn_vm__part in qemu tap kernel-log images; do
	# shellcheck source=/dev/null
	. "$(dirname "${BASH_SOURCE[0]}")/lib/$mn_vm__part.sh"
done
unset mn_vm__part
