// SPDX-License-Identifier: GPL-2.0
/* Devices for the tests: veth pairs, dummies, and the glue to make them. */
#include <ifaddrs.h>
#include <net/if.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "testlib.h"

#ifndef IFF_LOWER_UP
#define IFF_LOWER_UP	0x10000		/* linux/if.h's; glibc's net/if.h has none */
#endif

void diag(const char *fmt, ...)
{
	va_list ap;

	printf("# ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
}

int run_cmd(const char *fmt, ...)
{
	char cmd[512];
	va_list ap;
	int rc;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	fflush(stdout);
	rc = system(cmd);
	if (rc == -1 || !WIFEXITED(rc) || WEXITSTATUS(rc)) {
		diag("command failed (status %d): %s", rc, cmd);
		return -1;
	}
	return 0;
}

int link_up(const char *name)
{
	return run_cmd("ip link set dev %s up", name);
}

/*
 * @name's carrier, from netlink (getifaddrs(): sysfs shows the netns it
 * was mounted in): 1 when IFF_LOWER_UP (the carrier itself) and
 * IFF_RUNNING (the operstate linkwatch sets after it) are both set, 0 if
 * not, -1 if there is no such device. SIOCGIFFLAGS gives only the
 * operstate: right after igb resets for XDP it can still say running.
 */
static int carrier_up(const char *name)
{
	struct ifaddrs *ifa, *i;
	int up = -1;

	if (getifaddrs(&ifa))
		return -1;
	for (i = ifa; i; i = i->ifa_next)
		if (i->ifa_addr && i->ifa_addr->sa_family == AF_PACKET && !strcmp(i->ifa_name, name))
			up = (i->ifa_flags & (IFF_LOWER_UP | IFF_RUNNING)) ==
			     (IFF_LOWER_UP | IFF_RUNNING);
	freeifaddrs(ifa);
	return up;
}

int wait_running(const char *name, int ms)
{
	int up;

	for (; ms >= 0; ms -= 10) {
		up = carrier_up(name);
		if (up)
			break;
		usleep(10000);
	}
	if (up != 1)
		diag("%s: %s", name, up < 0 ? "no such device" : "no carrier");
	return up == 1 ? 0 : -1;
}

int veth_pair(const char *a, const char *b)
{
	if (run_cmd("ip link add %s type veth peer name %s", a, b))
		return -1;
	return link_up(a) || link_up(b) ? -1 : 0;
}

int dummy_dev(const char *name)
{
	if (run_cmd("ip link add %s type dummy", name))
		return -1;
	return link_up(name);
}

int ifindex_of(const char *name)
{
	int idx = if_nametoindex(name);

	if (!idx)
		diag("no device %s", name);
	return idx;
}

bool kallsyms_has(const char *sym)
{
	char line[512], name[256];
	bool found = false;
	FILE *f;

	f = fopen("/proc/kallsyms", "r");
	if (!f)
		return false;
	while (!found && fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%*s %*s %255s", name) == 1 && !strcmp(name, sym))
			found = true;
	}
	fclose(f);
	return found;
}
