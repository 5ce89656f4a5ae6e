/*
 * insn-plugin - a QEMU TCG plugin that counts the guest instructions that
 * all vCPUs execute between two marker instructions, for the scale
 * benchmark's hot path on several vCPUs (QEMU's -icount brings up one).
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Usage: qemu-system-x86_64 ... -plugin PATH/insn-plugin.so,out=FILE
 *
 * The guest marks what is to be counted with two no-op instructions that
 * nothing else executes: "nopl 0x4d4e0001(%rax)" starts a count and
 * "nopl 0x4d4e0002(%rax)" ends it (mn-faultloop -m, around each timed
 * loop). Each end appends "insn <count>" to FILE: the instructions of
 * every vCPU (the user program, the kernel on its behalf, interrupts and
 * work on the other vCPUs) since the start. Translation blocks are counted
 * when entered, whole: where an instruction faults (a page fault), the
 * rest of its block is counted but not run, and the retry counts again
 * from the faulting instruction. Counts run high by about one block's tail
 * per fault (about 0.05 % in a loop of page faults), in every kernel alike.
 *
 * Plugin API version 1 (QEMU 7.2, Debian 12): the few functions used are
 * declared here, so that no QEMU source is needed to build it:
 *   gcc -shared -fPIC -O2 -o insn-plugin.so insn-plugin.c
 */
#include <fcntl.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

typedef uint64_t qemu_plugin_id_t;
typedef struct qemu_info_t qemu_info_t;
struct qemu_plugin_tb;
struct qemu_plugin_insn;
enum qemu_plugin_cb_flags { QEMU_PLUGIN_CB_NO_REGS };
typedef void (*tb_trans_cb)(qemu_plugin_id_t id, struct qemu_plugin_tb *tb);
typedef void (*vcpu_udata_cb)(unsigned int vcpu_index, void *userdata);

void qemu_plugin_register_vcpu_tb_trans_cb(qemu_plugin_id_t id, tb_trans_cb cb);
void qemu_plugin_register_vcpu_tb_exec_cb(struct qemu_plugin_tb *tb, vcpu_udata_cb cb,
					  enum qemu_plugin_cb_flags flags, void *userdata);
void qemu_plugin_register_vcpu_insn_exec_cb(struct qemu_plugin_insn *insn, vcpu_udata_cb cb,
					    enum qemu_plugin_cb_flags flags, void *userdata);
size_t qemu_plugin_tb_n_insns(const struct qemu_plugin_tb *tb);
struct qemu_plugin_insn *qemu_plugin_tb_get_insn(const struct qemu_plugin_tb *tb, size_t idx);
const void *qemu_plugin_insn_data(const struct qemu_plugin_insn *insn);
size_t qemu_plugin_insn_size(const struct qemu_plugin_insn *insn);

__attribute__((visibility("default"))) int qemu_plugin_version = 1;

#define MAX_VCPUS 256

/* per vCPU, so that the vCPU threads of multi-threaded TCG never share one */
static struct {
	uint64_t n;
	char pad[56];
} count[MAX_VCPUS];
static uint64_t start;
static int fd = -1;

/* "nopl 0x4d4e000N(%rax)": 0f 1f 80 0N 00 4e 4d */
static const unsigned char marker[3] = { 0x0f, 0x1f, 0x80 };

static uint64_t total(void)
{
	uint64_t sum = 0;
	unsigned int i;

	for (i = 0; i < MAX_VCPUS; i++)
		sum += __atomic_load_n(&count[i].n, __ATOMIC_RELAXED);
	return sum;
}

static void tb_exec(unsigned int vcpu, void *userdata)
{
	if (vcpu < MAX_VCPUS)
		__atomic_store_n(&count[vcpu].n, count[vcpu].n + (uintptr_t)userdata,
				 __ATOMIC_RELAXED);
}

static void mark(unsigned int vcpu, void *userdata)
{
	char line[64];
	int len;

	(void)vcpu;
	if ((uintptr_t)userdata == 1) {
		__atomic_store_n(&start, total(), __ATOMIC_RELAXED);
		return;
	}
	len = snprintf(line, sizeof(line), "insn %" PRIu64 "\n",
		       total() - __atomic_load_n(&start, __ATOMIC_RELAXED));
	if (fd >= 0 && write(fd, line, len) != len)
		perror("insn-plugin: write");
}

static void tb_trans(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
	size_t n = qemu_plugin_tb_n_insns(tb), i;

	(void)id;
	qemu_plugin_register_vcpu_tb_exec_cb(tb, tb_exec, QEMU_PLUGIN_CB_NO_REGS,
					     (void *)(uintptr_t)n);
	for (i = 0; i < n; i++) {
		struct qemu_plugin_insn *insn = qemu_plugin_tb_get_insn(tb, i);
		const unsigned char *b = qemu_plugin_insn_data(insn);

		if (qemu_plugin_insn_size(insn) == 7 && !memcmp(b, marker, 3) &&
		    (b[3] == 1 || b[3] == 2) && b[4] == 0 && b[5] == 0x4e && b[6] == 0x4d)
			qemu_plugin_register_vcpu_insn_exec_cb(insn, mark, QEMU_PLUGIN_CB_NO_REGS,
							       (void *)(uintptr_t)b[3]);
	}
}

__attribute__((visibility("default")))
int qemu_plugin_install(qemu_plugin_id_t id, const qemu_info_t *info, int argc, char **argv)
{
	int i;

	(void)info;
	for (i = 0; i < argc; i++)
		if (!strncmp(argv[i], "out=", 4))
			fd = open(argv[i] + 4, O_WRONLY | O_CREAT | O_TRUNC | O_APPEND, 0644);
	if (fd < 0) {
		fprintf(stderr, "insn-plugin: needs out=FILE (a writable file)\n");
		return -1;
	}
	qemu_plugin_register_vcpu_tb_trans_cb(id, tb_trans);
	return 0;
}
