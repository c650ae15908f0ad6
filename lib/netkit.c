// SPDX-License-Identifier: GPL-2.0
/*
 * netkit for the tests: pairs made over rtnetlink (Debian 12's iproute2
 * predates netkit), and its BPF attach points.
 */
#include <errno.h>
#include <linux/if_link.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <linux/bpf.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
#include <bpf/bpf.h>

#include "testlib.h"

struct nlbuf {
	struct nlmsghdr *nh;
	size_t cap;
};

static struct rtattr *nl_put(struct nlbuf *b, unsigned short type, const void *data, size_t len)
{
	struct rtattr *rta = (void *)((char *)b->nh + NLMSG_ALIGN(b->nh->nlmsg_len));
	size_t need = NLMSG_ALIGN(b->nh->nlmsg_len) + RTA_SPACE(len);

	if (need > b->cap)
		return NULL;
	rta->rta_type = type;
	rta->rta_len = RTA_LENGTH(len);
	if (len)
		memcpy(RTA_DATA(rta), data, len);
	b->nh->nlmsg_len = need;
	return rta;
}

/* A nest ends where the message ends: its length is fixed up after. */
static void nl_end(struct nlbuf *b, struct rtattr *nest)
{
	nest->rta_len = (char *)b->nh + b->nh->nlmsg_len - (char *)nest;
}

static int nl_put_u32(struct nlbuf *b, unsigned short type, uint32_t v)
{
	return nl_put(b, type, &v, sizeof(v)) ? 0 : -1;
}

int netkit_pair(const char *primary, const char *peer, int peer_ns_fd)
{
	char buf[1024] __attribute__((aligned(NLMSG_ALIGNTO))) = {};
	struct nlbuf b = { .nh = (void *)buf, .cap = sizeof(buf) };
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK };
	struct rtattr *linkinfo, *data, *peer_info;
	struct ifinfomsg *ifi, peer_ifi = { .ifi_family = AF_UNSPEC };
	struct nlmsgerr *err;
	char reply[4096];
	int fd, ret = -1;
	ssize_t n;

	b.nh->nlmsg_len = NLMSG_LENGTH(sizeof(*ifi));
	b.nh->nlmsg_type = RTM_NEWLINK;
	b.nh->nlmsg_flags = NLM_F_REQUEST | NLM_F_CREATE | NLM_F_EXCL | NLM_F_ACK;
	b.nh->nlmsg_seq = 1;
	ifi = NLMSG_DATA(b.nh);
	ifi->ifi_family = AF_UNSPEC;
	if (!nl_put(&b, IFLA_IFNAME, primary, strlen(primary) + 1) ||
	    !(linkinfo = nl_put(&b, IFLA_LINKINFO, NULL, 0)) ||
	    !nl_put(&b, IFLA_INFO_KIND, "netkit", strlen("netkit")) ||
	    !(data = nl_put(&b, IFLA_INFO_DATA, NULL, 0)) ||
	    /* The peer: an ifinfomsg, then its own attributes. */
	    !(peer_info = nl_put(&b, IFLA_NETKIT_PEER_INFO, &peer_ifi, sizeof(peer_ifi))) ||
	    !nl_put(&b, IFLA_IFNAME, peer, strlen(peer) + 1) ||
	    (peer_ns_fd >= 0 && nl_put_u32(&b, IFLA_NET_NS_FD, peer_ns_fd)))
		goto too_long;
	nl_end(&b, peer_info);
	if (nl_put_u32(&b, IFLA_NETKIT_MODE, NETKIT_L2) ||
	    nl_put_u32(&b, IFLA_NETKIT_POLICY, NETKIT_PASS) ||
	    nl_put_u32(&b, IFLA_NETKIT_PEER_POLICY, NETKIT_PASS))
		goto too_long;
	nl_end(&b, data);
	nl_end(&b, linkinfo);

	fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE);
	if (fd < 0) {
		diag("NETLINK_ROUTE socket: %m");
		return -1;
	}
	if (sendto(fd, buf, b.nh->nlmsg_len, 0, (void *)&sa, sizeof(sa)) < 0) {
		diag("RTM_NEWLINK netkit: sendto: %m");
		goto out;
	}
	n = recv(fd, reply, sizeof(reply), 0);
	if (n < (ssize_t)NLMSG_LENGTH(sizeof(*err)) ||
	    ((struct nlmsghdr *)reply)->nlmsg_type != NLMSG_ERROR) {
		diag("RTM_NEWLINK netkit: no acknowledgement (%zd bytes)", n);
		goto out;
	}
	err = NLMSG_DATA((struct nlmsghdr *)reply);
	ret = err->error;
	if (ret && ret != -EOPNOTSUPP)
		diag("RTM_NEWLINK netkit %s/%s: %s", primary, peer, strerror(-ret));
out:
	close(fd);
	return ret < 0 && ret != -EOPNOTSUPP ? -1 : ret;
too_long:
	diag("RTM_NEWLINK netkit: message too long");
	return -1;
}

static uint32_t netkit_type(bool peer)
{
	return peer ? BPF_NETKIT_PEER : BPF_NETKIT_PRIMARY;
}

int netkit_link(int prog_fd, int ifindex, bool peer)
{
	int fd = bpf_link_create(prog_fd, ifindex, netkit_type(peer), NULL);

	if (fd < 0)
		diag("netkit %s link on ifindex %d: %s", peer ? "peer" : "primary", ifindex,
		     strerror(-fd));
	return fd < 0 ? -1 : fd;
}

int netkit_attach(int prog_fd, int ifindex, bool peer, int replace_fd)
{
	LIBBPF_OPTS(bpf_prog_attach_opts, opts, .flags = replace_fd >= 0 ? BPF_F_REPLACE : 0,
		    .replace_prog_fd = replace_fd >= 0 ? replace_fd : 0);
	int err;

	err = bpf_prog_attach_opts(prog_fd, ifindex, netkit_type(peer), &opts);
	if (err)
		diag("netkit %s attach on ifindex %d%s: %s", peer ? "peer" : "primary", ifindex,
		     replace_fd >= 0 ? " (replace)" : "", strerror(errno));
	return err ? -1 : 0;
}

int netkit_detach(int prog_fd, int ifindex, bool peer)
{
	/* No program named: the last one goes. */
	LIBBPF_OPTS(bpf_prog_detach_opts, opts, .flags = prog_fd >= 0 ? 0 : BPF_F_AFTER);
	int err;

	err = bpf_prog_detach_opts(prog_fd >= 0 ? prog_fd : 0, ifindex, netkit_type(peer), &opts);
	if (err)
		diag("netkit %s detach on ifindex %d%s: %s", peer ? "peer" : "primary", ifindex,
		     prog_fd >= 0 ? "" : " (by position)", strerror(errno));
	return err ? -1 : 0;
}
