// SPDX-License-Identifier: GPL-2.0
/* Real traffic for the tests and benchmarks: raw Ethernet frames through
 * AF_PACKET, and pktgen's.
 */
#include <arpa/inet.h>
#include <linux/if_ether.h>
#include <linux/if_packet.h>
#include <net/if.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "testlib.h"

uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

__u64 wait_counter(volatile __u64 *counter, uint64_t want, int ms)
{
	uint64_t deadline = now_ns() + ms * 1000000ull;

	while (*counter < want && now_ns() < deadline)
		usleep(200);
	return *counter;
}

long send_frames(const char *ifname, long count, uint32_t tag,
		 volatile __u64 *counter, long window)
{
	return send_frames_len(ifname, count, tag, TEST_FRAME_LEN, counter, window);
}

long send_frames_len(const char *ifname, long count, uint32_t tag, size_t len,
		     volatile __u64 *counter, long window)
{
	unsigned char frame[TEST_FRAME_MAX] = {};
	struct sockaddr_ll sll = {};
	struct ethhdr *eth = (void *)frame;
	uint32_t *payload = (void *)(eth + 1);
	uint64_t base = counter ? *counter : 0;
	long sent;
	int fd;

	sll.sll_family = AF_PACKET;
	sll.sll_ifindex = ifindex_of(ifname);
	sll.sll_halen = ETH_ALEN;
	if (!sll.sll_ifindex || len < TEST_FRAME_LEN || len > sizeof(frame))
		return -1;
	fd = socket(AF_PACKET, SOCK_RAW, 0);
	if (fd < 0) {
		diag("AF_PACKET socket: %m");
		return -1;
	}
	memset(eth->h_dest, 0xff, ETH_ALEN);
	memcpy(eth->h_source, "\x02\x00\x00\x00\x00\x01", ETH_ALEN);
	eth->h_proto = htons(TEST_ETH_P);
	payload[TEST_WORD_TAG] = tag;

	for (sent = 0; sent < count; sent++) {
		/* Pace on the receiver's counter: a full ring drops frames. */
		if (counter && (long)(*counter - base) + window <= sent &&
		    wait_counter(counter, base + sent - window + 1, 2000) <
		    base + sent - window + 1) {
			diag("%s: receiver stalled at %llu of %ld frames", ifname,
			     (unsigned long long)(*counter - base), sent);
			break;
		}
		payload[TEST_WORD_SEQ] = sent;
		if (sendto(fd, frame, len, 0, (void *)&sll, sizeof(sll)) < 0) {
			diag("sendto %s: %m", ifname);
			break;
		}
	}
	close(fd);
	return sent;
}

int frames_counted(const char *what, const char *dev, long frames, unsigned int settle_us,
		   volatile __u64 *const *counters, const char *const *names, int n,
		   unsigned int mask)
{
	uint64_t before[32];
	int i, wrong = 0;
	long sent;

	if (n > 32)
		return -1;
	for (i = 0; i < n; i++)
		before[i] = *counters[i];
	sent = send_frames(dev, frames, 0x7e57, NULL, 0);
	usleep(settle_us);
	for (i = 0; i < n; i++) {
		uint64_t got = *counters[i] - before[i], want = mask & (1u << i) ? (uint64_t)sent : 0;

		if (got != want) {
			diag("%s: %ld frames out of %s, program %s counted %llu, want %llu", what, sent,
			     dev, names[i], (unsigned long long)got, (unsigned long long)want);
			wrong++;
		}
	}
	if (sent != frames)
		diag("%s: %ld of %ld frames sent out of %s", what, sent, frames, dev);
	return wrong || sent != frames ? -1 : 0;
}

#define PKTGEN "/proc/net/pktgen/"

/* One command to a pktgen file: pktgen takes its last byte for a newline. */
static int pktgen_write(const char *file, const char *line)
{
	FILE *f = fopen(file, "w");
	int err;

	if (!f) {
		diag("%s: %m", file);
		return -1;
	}
	err = fprintf(f, "%s\n", line) < 0;
	err |= fclose(f) != 0;
	if (err)
		diag("%s: writing '%s' failed: %m", file, line);
	return err ? -1 : 0;
}

int pktgen_start(const char *dev, const char *dst)
{
	return pktgen_start_flows(dev, dst, 0);
}

int pktgen_start_flows(const char *dev, const char *dst, int flows)
{
	char file[64], line[64], mac[32];
	struct ifreq ifr = {};
	unsigned char *a;
	int pid, fd;

	/* from the device itself: sysfs shows the netns it was mounted in */
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", dst);
	fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0 || ioctl(fd, SIOCGIFHWADDR, &ifr)) {
		diag("%s: no MAC address: %m", dst);
		if (fd >= 0)
			close(fd);
		return -1;
	}
	close(fd);
	a = (unsigned char *)ifr.ifr_hwaddr.sa_data;
	snprintf(mac, sizeof(mac), "%02x:%02x:%02x:%02x:%02x:%02x", a[0], a[1], a[2], a[3], a[4],
		 a[5]);

	snprintf(file, sizeof(file), PKTGEN "%s", dev);
	snprintf(line, sizeof(line), "add_device %s", dev);
	if (pktgen_write(PKTGEN "kpktgend_0", "rem_device_all") ||
	    pktgen_write(PKTGEN "kpktgend_0", line))
		return -1;
	snprintf(line, sizeof(line), "dst_mac %s", mac);
	if (pktgen_write(file, "count 0") || pktgen_write(file, "pkt_size 64") ||
	    pktgen_write(file, "dst 198.18.0.2") || pktgen_write(file, line))
		return -1;
	if (flows > 1) {
		snprintf(line, sizeof(line), "src_max 198.18.%d.%d", 1 + (flows - 1) / 256,
			 (flows - 1) % 256);
		if (pktgen_write(file, "src_min 198.18.1.0") || pktgen_write(file, line) ||
		    pktgen_write(file, "flag IPSRC_RND"))
			return -1;
	}
	/* "start" returns only when pktgen stops: a process of its own */
	pid = fork();
	if (!pid)
		_exit(pktgen_write(PKTGEN "pgctrl", "start") ? 1 : 0);
	if (pid < 0)
		diag("fork: %m");
	return pid;
}

void pktgen_stop(int pid)
{
	pktgen_write(PKTGEN "pgctrl", "stop");
	/* a writer not yet in "start" would miss the stop: a signal ends its wait too */
	kill(pid, SIGINT);
	waitpid(pid, NULL, 0);
	pktgen_write(PKTGEN "kpktgend_0", "rem_device_all");
}

long long xdp_packets(const char *dev)
{
	char cmd[64], line[256];
	long long sum = 0, v;
	bool found = false;
	FILE *f;

	snprintf(cmd, sizeof(cmd), "ethtool -S %s 2>&1", dev);
	f = popen(cmd, "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, " rx_queue_%*u_xdp_packets: %lld", &v) == 1) {
			sum += v;
			found = true;
		}
	pclose(f);
	if (!found)
		diag("ethtool -S %s: no rx_queue_N_xdp_packets", dev);
	return found ? sum : -1;
}
