// SPDX-License-Identifier: GPL-2.0
/* tc attach points for the tests: tcx links, cls_bpf filters (libbpf's
 * netlink), and act_bpf actions (iproute2's tc, on pinned programs).
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <linux/bpf.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "testlib.h"

int tcx_link(int prog_fd, int ifindex, bool ingress)
{
	int fd = bpf_link_create(prog_fd, ifindex,
				 ingress ? BPF_TCX_INGRESS : BPF_TCX_EGRESS, NULL);

	if (fd < 0)
		diag("tcx %s link on ifindex %d: %s", ingress ? "ingress" : "egress",
		     ifindex, strerror(-fd));
	return fd < 0 ? -1 : fd;
}

int tcx_attach(int prog_fd, int ifindex, bool ingress, int replace_fd)
{
	LIBBPF_OPTS(bpf_prog_attach_opts, opts, .flags = replace_fd >= 0 ? BPF_F_REPLACE : 0,
		    .replace_prog_fd = replace_fd >= 0 ? replace_fd : 0);
	int err;

	err = bpf_prog_attach_opts(prog_fd, ifindex,
				   ingress ? BPF_TCX_INGRESS : BPF_TCX_EGRESS, &opts);
	if (err)
		diag("tcx %s attach on ifindex %d%s: %s", ingress ? "ingress" : "egress",
		     ifindex, replace_fd >= 0 ? " (replace)" : "", strerror(errno));
	return err ? -1 : 0;
}

int tcx_detach(int prog_fd, int ifindex, bool ingress)
{
	/* No program named: the last one goes. */
	LIBBPF_OPTS(bpf_prog_detach_opts, opts, .flags = prog_fd >= 0 ? 0 : BPF_F_AFTER);
	int err;

	err = bpf_prog_detach_opts(prog_fd >= 0 ? prog_fd : 0, ifindex,
				   ingress ? BPF_TCX_INGRESS : BPF_TCX_EGRESS, &opts);
	if (err)
		diag("tcx detach on ifindex %d%s: %s", ifindex,
		     prog_fd >= 0 ? "" : " (by position)", strerror(errno));
	return err ? -1 : 0;
}

/* libbpf's print function is global: threads silence it one at a time. */
static pthread_mutex_t quiet_lock = PTHREAD_MUTEX_INITIALIZER;

static void tc_hook(struct bpf_tc_hook *hook, int ifindex, bool ingress)
{
	memset(hook, 0, sizeof(*hook));
	hook->sz = sizeof(*hook);
	hook->ifindex = ifindex;
	hook->attach_point = ingress ? BPF_TC_INGRESS : BPF_TC_EGRESS;
}

int cls_bpf_attach(int prog_fd, int ifindex, bool ingress, uint32_t handle,
		   bool replace)
{
	LIBBPF_OPTS(bpf_tc_opts, opts, .prog_fd = prog_fd, .handle = handle,
		    .priority = 1, .flags = replace ? BPF_TC_F_REPLACE : 0);
	libbpf_print_fn_t old_print;
	struct bpf_tc_hook hook;
	int err;

	tc_hook(&hook, ifindex, ingress);
	/* The clsact qdisc, once: libbpf would log the kernel's refusal
	 * of a second one.
	 */
	pthread_mutex_lock(&quiet_lock);
	old_print = libbpf_set_print(NULL);
	err = bpf_tc_hook_create(&hook);
	libbpf_set_print(old_print);
	pthread_mutex_unlock(&quiet_lock);
	if (err && err != -EEXIST) {
		diag("clsact on ifindex %d: %s", ifindex, strerror(-err));
		return -1;
	}
	err = bpf_tc_attach(&hook, &opts);
	if (err)
		diag("cls_bpf %s filter on ifindex %d: %s", ingress ? "ingress" : "egress",
		     ifindex, strerror(-err));
	return err ? -1 : 0;
}

int cls_bpf_detach(int ifindex, bool ingress, uint32_t handle)
{
	LIBBPF_OPTS(bpf_tc_opts, opts, .handle = handle, .priority = 1);
	struct bpf_tc_hook hook;
	int err;

	tc_hook(&hook, ifindex, ingress);
	err = bpf_tc_detach(&hook, &opts);
	if (err)
		diag("cls_bpf detach on ifindex %d: %s", ifindex, strerror(-err));
	return err ? -1 : 0;
}

#define PIN_DIR "/sys/fs/bpf/testbed"

/* Pin @fd as PIN_DIR/@name for tc(8); bpffs is mounted if need be (the
 * testbed guest mounts it, a bare one may not).
 */
static int pin(int fd, const char *name, char *path, size_t size)
{
	if (mkdir(PIN_DIR, 0700) && errno != EEXIST &&
	    (mount("bpf", "/sys/fs/bpf", "bpf", 0, NULL) || mkdir(PIN_DIR, 0700))) {
		diag("bpffs directory %s: %m", PIN_DIR);
		return -1;
	}
	snprintf(path, size, PIN_DIR "/%s", name);
	unlink(path);
	if (bpf_obj_pin(fd, path)) {
		diag("pinning %s: %m", path);
		return -1;
	}
	return 0;
}

int act_bpf_attach(int cls_fd, int act_fd, const char *dev, bool ingress)
{
	char cls[128], act[128];
	int ret;

	if (pin(cls_fd, "cls", cls, sizeof(cls)) || pin(act_fd, "act", act, sizeof(act)))
		return -1;
	if (run_cmd("tc qdisc replace dev %s clsact", dev))
		return -1;
	ret = run_cmd("tc filter add dev %s %s pref 2 bpf object-pinned %s action bpf object-pinned %s",
		      dev, ingress ? "ingress" : "egress", cls, act);
	/* tc holds the programs now: the pins can go. */
	unlink(cls);
	unlink(act);
	return ret;
}

int act_bpf_detach(const char *dev, bool ingress)
{
	return run_cmd("tc filter del dev %s %s pref 2", dev, ingress ? "ingress" : "egress");
}
