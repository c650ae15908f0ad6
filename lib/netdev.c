// SPDX-License-Identifier: GPL-2.0
/* Devices for the tests: veth pairs, dummies, and the glue to make them. */
#include <net/if.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "testlib.h"

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

int wait_running(const char *name, int ms)
{
	struct ifreq ifr = {};
	int fd, ret = -1;

	fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -1;
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", name);
	for (; ms >= 0; ms -= 10) {
		if (ioctl(fd, SIOCGIFFLAGS, &ifr))
			break;
		if (ifr.ifr_flags & IFF_RUNNING) {
			ret = 0;
			break;
		}
		usleep(10000);
	}
	if (ret)
		diag("%s: no carrier", name);
	close(fd);
	return ret;
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
