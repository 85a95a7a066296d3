// SPDX-License-Identifier: GPL-2.0
/*
 * vhost-net workload: the time goes to vhost's worker thread "vhost-PID",
 * a kernel worker that runs with this process's mm. We play the virtio-net
 * driver: one TX virtqueue in our own memory (legacy layout, no feature
 * bits), its descriptors pointing at Ethernet frames of ours, a tap device
 * as the backend. The ring is kept full, so the worker copies frames out of
 * our memory and feeds them to the tap, which delivers them to the network
 * stack (an unhandled EtherType: dropped there), all in the kernel; we wait
 * on the call eventfd and give back what the worker used.
 *
 *   vhostnet [SECONDS]
 *
 * Prints, once the worker exists, "worker TID comm=vhost-PID flags=0xF"
 * (flags: the worker's PF_* flags, /proc/TID/stat field 9: PF_KTHREAD
 * 0x200000 on kernels before 6.4, PF_USER_WORKER 0x4000 from 6.4), and at
 * the end "packets N" (frames the worker completed). Exits 1, saying why,
 * when vhost-net or tun is missing or refuses the setup.
 *
 * Worker: created at VHOST_SET_OWNER; a kthread that borrows our mm
 * (kthread_use_mm) before 6.4, a thread of this process (vhost_task,
 * PF_USER_WORKER) from 6.4. Hot path: vhost_worker or vhost_task_fn ->
 * vhost_run_work_list -> handle_tx_kick -> handle_tx -> handle_tx_copy ->
 * tun_sendmsg -> netif_receive_skb.
 */
#include <dirent.h>
#include <fcntl.h>
#include <net/if.h>
#include <poll.h>
#include <stdint.h>
#include <sys/eventfd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <linux/if_tun.h>
#include <linux/vhost.h>
#include <linux/virtio_net.h>
#include <linux/virtio_ring.h>

#include "common.h"

#define USAGE "vhostnet [SECONDS]"
/* Descriptors in the TX ring (a power of two), one frame each. */
#define RING 256
/* Bytes of one descriptor's buffer: the virtio-net header, then the frame. */
#define HDR_LEN sizeof(struct virtio_net_hdr)
#define FRAME_LEN 1024
#define SLOT 2048
/* IEEE 802 local experimental EtherType: no protocol handles it. */
#define ETHERTYPE 0x88b5
#define TX_VQ 1

/* From: a locally administered address. */
static const unsigned char src_mac[6] = { 0x02, 0, 0, 0, 0, 0x01 };

/*
 * Our memory, one region of the vhost memory table, mapped 1:1 (a
 * descriptor's "guest physical" address is our virtual address). The
 * ring's parts are at the offsets the legacy layout needs (desc 16-byte,
 * avail 2-byte, used 4-byte aligned; used on its own page).
 */
struct region {
	struct vring_desc desc[RING];
	struct {
		uint16_t flags, idx, ring[RING], used_event;
	} avail;
	char pad_avail[4096 - (RING * sizeof(struct vring_desc) +
			       (RING + 3) * sizeof(uint16_t)) % 4096];
	struct {
		uint16_t flags, idx;
		struct vring_used_elem ring[RING];
		uint16_t avail_event;
	} used;
	char frames[RING][SLOT];
};

static void fail(const char *what)
{
	fprintf(stderr, "vhostnet: %s: %s\n", what, strerror(errno));
	exit(1);
}

/* A tap device, up, with the virtio-net header; its fd. */
static int open_tap(char *name)
{
	struct ifreq ifr;
	char path[128];
	int fd, s;

	fd = open("/dev/net/tun", O_RDWR);
	if (fd < 0)
		fail("/dev/net/tun (tun module)");
	memset(&ifr, 0, sizeof(ifr));
	ifr.ifr_flags = IFF_TAP | IFF_NO_PI | IFF_VNET_HDR;
	snprintf(ifr.ifr_name, IFNAMSIZ, "fsvhost%%d");
	if (ioctl(fd, TUNSETIFF, &ifr) < 0)
		fail("TUNSETIFF");
	memcpy(name, ifr.ifr_name, IFNAMSIZ);
	/* No IPv6 chatter (DAD, router solicitations) on it; best effort. */
	snprintf(path, sizeof(path), "/proc/sys/net/ipv6/conf/%s/disable_ipv6", name);
	s = open(path, O_WRONLY);
	if (s >= 0) {
		if (write(s, "1", 1) < 0) {
			/* the frames flow all the same */
		}
		close(s);
	}
	s = socket(AF_INET, SOCK_DGRAM, 0);
	if (s < 0)
		fail("socket");
	if (ioctl(s, SIOCGIFFLAGS, &ifr) < 0)
		fail("SIOCGIFFLAGS");
	ifr.ifr_flags |= IFF_UP;
	if (ioctl(s, SIOCSIFFLAGS, &ifr) < 0)
		fail("SIOCSIFFLAGS (up)");
	close(s);
	return fd;
}

/* The task whose comm is @want: a thread of ours, else any task; 0 if none. */
static int find_task(const char *dir, const char *want)
{
	char path[300], comm[64];
	struct dirent *d;
	DIR *dp;
	FILE *f;
	int tid = 0;

	dp = opendir(dir);
	if (!dp)
		return 0;
	while (!tid && (d = readdir(dp))) {
		if (d->d_name[0] < '1' || d->d_name[0] > '9')
			continue;
		snprintf(path, sizeof(path), "%s/%s/comm", dir, d->d_name);
		f = fopen(path, "r");
		if (!f)
			continue;
		if (fgets(comm, sizeof(comm), f)) {
			comm[strcspn(comm, "\n")] = '\0';
			if (!strcmp(comm, want))
				tid = atoi(d->d_name);
		}
		fclose(f);
	}
	closedir(dp);
	return tid;
}

static void vhost_ioctl(int fd, unsigned long req, void *arg, const char *what)
{
	if (ioctl(fd, req, arg) < 0)
		fail(what);
}

/* Publish the avail ring up to @idx and kick the worker unless it polls. */
static void publish(struct region *r, uint16_t idx, int kick)
{
	uint64_t one = 1;

	__atomic_store_n(&r->avail.idx, idx, __ATOMIC_RELEASE);
	/* The index store before the flag load (virtio's full barrier). */
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	if (!(__atomic_load_n(&r->used.flags, __ATOMIC_ACQUIRE) & VRING_USED_F_NO_NOTIFY) &&
	    write(kick, &one, sizeof(one)) != sizeof(one))
		fail("kick");
}

int main(int argc, char **argv)
{
	unsigned long long end, duration = 1000000000ULL, packets = 0;
	struct vhost_memory_region *mr;
	struct vhost_memory *mem;
	struct vhost_vring_state st;
	struct vhost_vring_addr addr;
	struct vhost_vring_file vf;
	struct region *r;
	char tap_name[IFNAMSIZ], want[32];
	uint16_t avail_idx, used_seen = 0;
	uint64_t features = 0, v;
	int tap, vh, kick, call, tid, i;
	unsigned char *fr;

	if (argc > 2)
		die_usage(USAGE);
	if (argc == 2)
		duration = parse_seconds(argv[1], USAGE);

	r = mmap(NULL, sizeof(*r), PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
	if (r == MAP_FAILED)
		fail("mmap");

	vh = open("/dev/vhost-net", O_RDWR);
	if (vh < 0)
		fail("/dev/vhost-net (vhost_net module)");
	tap = open_tap(tap_name);
	vhost_ioctl(vh, VHOST_SET_OWNER, NULL, "VHOST_SET_OWNER");

	/* The worker exists from VHOST_SET_OWNER on. */
	snprintf(want, sizeof(want), "vhost-%d", (int)getpid());
	tid = find_task("/proc/self/task", want);
	if (!tid)
		tid = find_task("/proc", want);
	if (!tid) {
		fprintf(stderr, "vhostnet: no task named %s after VHOST_SET_OWNER\n", want);
		return 1;
	}
	printf("worker %d comm=%s flags=%#x\n", tid, want, task_flags(tid));
	fflush(stdout);

	/* Legacy virtio-net: 10-byte header, sent with the frame to the tap. */
	vhost_ioctl(vh, VHOST_SET_FEATURES, &features, "VHOST_SET_FEATURES");
	mem = calloc(1, sizeof(*mem) + sizeof(*mr));
	if (!mem)
		fail("calloc");
	mem->nregions = 1;
	mr = &mem->regions[0];
	mr->guest_phys_addr = (uintptr_t)r;
	mr->memory_size = sizeof(*r);
	mr->userspace_addr = (uintptr_t)r;
	vhost_ioctl(vh, VHOST_SET_MEM_TABLE, mem, "VHOST_SET_MEM_TABLE");

	for (i = 0; i < RING; i++) {
		fr = (unsigned char *)r->frames[i];
		/* header all zero: no checksum offload, no GSO */
		memset(fr + HDR_LEN, 0xff, 6);	/* to: broadcast */
		memcpy(fr + HDR_LEN + 6, src_mac, sizeof(src_mac));
		fr[HDR_LEN + 12] = ETHERTYPE >> 8;
		fr[HDR_LEN + 13] = ETHERTYPE & 0xff;
		memset(fr + HDR_LEN + 14, i & 0xff, FRAME_LEN - 14);
		r->desc[i].addr = (uintptr_t)fr;
		r->desc[i].len = HDR_LEN + FRAME_LEN;
		r->desc[i].flags = 0;
		r->desc[i].next = 0;
	}

	kick = eventfd(0, EFD_CLOEXEC);
	call = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (kick < 0 || call < 0)
		fail("eventfd");
	st = (struct vhost_vring_state){ .index = TX_VQ, .num = RING };
	vhost_ioctl(vh, VHOST_SET_VRING_NUM, &st, "VHOST_SET_VRING_NUM");
	st = (struct vhost_vring_state){ .index = TX_VQ, .num = 0 };
	vhost_ioctl(vh, VHOST_SET_VRING_BASE, &st, "VHOST_SET_VRING_BASE");
	addr = (struct vhost_vring_addr){
		.index = TX_VQ,
		.desc_user_addr = (uintptr_t)r->desc,
		.avail_user_addr = (uintptr_t)&r->avail,
		.used_user_addr = (uintptr_t)&r->used,
	};
	vhost_ioctl(vh, VHOST_SET_VRING_ADDR, &addr, "VHOST_SET_VRING_ADDR");
	vf = (struct vhost_vring_file){ .index = TX_VQ, .fd = kick };
	vhost_ioctl(vh, VHOST_SET_VRING_KICK, &vf, "VHOST_SET_VRING_KICK");
	vf = (struct vhost_vring_file){ .index = TX_VQ, .fd = call };
	vhost_ioctl(vh, VHOST_SET_VRING_CALL, &vf, "VHOST_SET_VRING_CALL");
	vf = (struct vhost_vring_file){ .index = TX_VQ, .fd = tap };
	vhost_ioctl(vh, VHOST_NET_SET_BACKEND, &vf, "VHOST_NET_SET_BACKEND");

	/* Every descriptor available, then refill what the worker used. */
	for (i = 0; i < RING; i++)
		r->avail.ring[i] = i;
	avail_idx = RING;
	end = now_ns() + duration;
	publish(r, avail_idx, kick);
	while (now_ns() < end) {
		struct pollfd pfd = { .fd = call, .events = POLLIN };
		uint16_t used = __atomic_load_n(&r->used.idx, __ATOMIC_ACQUIRE);

		if (used == used_seen) {
			if (poll(&pfd, 1, 100) < 0 && errno != EINTR)
				fail("poll");
			if (read(call, &v, sizeof(v)) < 0 && errno != EAGAIN)
				fail("read call eventfd");
			continue;
		}
		while (used_seen != used) {
			r->avail.ring[avail_idx % RING] =
				r->used.ring[used_seen % RING].id;
			avail_idx++;
			used_seen++;
			packets++;
		}
		publish(r, avail_idx, kick);
	}
	/* Closing the device stops and reaps the worker. */
	close(vh);
	close(tap);
	printf("packets %llu\n", packets);
	if (!packets) {
		fprintf(stderr, "vhostnet: the worker completed no frame\n");
		return 1;
	}
	return 0;
}
