// SPDX-License-Identifier: GPL-2.0
/* Network namespaces held by descriptor, for tests that need several. */
#include <fcntl.h>
#include <net/if.h>
#include <sched.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include "testlib.h"

int netns_new(void)
{
	struct ifreq ifr = {};
	int fd, sock;

	if (unshare(CLONE_NEWNET)) {
		diag("unshare(CLONE_NEWNET): %m");
		return -1;
	}
	/* lo up without a shell per namespace: an ioctl. */
	sock = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	strcpy(ifr.ifr_name, "lo");
	if (sock < 0 || ioctl(sock, SIOCGIFFLAGS, &ifr) ||
	    (ifr.ifr_flags |= IFF_UP, ioctl(sock, SIOCSIFFLAGS, &ifr))) {
		diag("lo up in a new netns: %m");
		if (sock >= 0)
			close(sock);
		return -1;
	}
	close(sock);
	fd = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		diag("/proc/self/ns/net: %m");
	return fd;
}

int netns_enter(int fd)
{
	if (setns(fd, CLONE_NEWNET)) {
		diag("setns: %m");
		return -1;
	}
	return 0;
}
