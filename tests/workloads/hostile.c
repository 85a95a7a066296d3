// SPDX-License-Identifier: GPL-2.0
/*
 * hostile: user stacks made to mislead a frame-pointer walker. An assembly
 * loop (spin_fp) runs with the frame pointer register set to a chain this
 * program builds: one that loops, points into the kernel, at non-canonical,
 * unmapped, PROT_NONE or page-crossing memory, is misaligned, very deep, or
 * is rewritten or unmapped by another thread while being walked; spin_fp_sys
 * does the same around a system call, so that kernel-mode samples walk it
 * from the saved user registers. Built for x86_64 (hostile) and i386
 * (hostile32, 4-byte frames for the module's compat walk), and for arm64
 * (hostile: x29 and frame records {x29, x30}) and AArch32 (hostile32, the
 * compat walk of an arm64 kernel: r11 and APCS frames, whose {fp, sp, lr}
 * end just below the address the frame pointer holds).
 *
 *   hostile -m MODE [-d DEPTH] [SECONDS]
 *
 * Sets its name to "hx-MODE" (hostile32: "h32-MODE") and prints what a
 * correct walk records for samples whose IP lies in the window, where the
 * frame pointer register holds the hostile value:
 *
 *   window 0xLO 0xHI sys 0xLO 0xHI     IP ranges (inclusive) of the loops
 *   expect nu=N u1=0x.. u2=0x.. fault=F truncated=T
 *   expect any | expect remap
 *
 * MODE chain is an ordinary stack (main -> c_outer -> c_middle -> c_leaf);
 * MODE nap blocks instead, in nanosleeps of 1 ms (the kernel stacks of a
 * 32-bit task's system calls, for 63-kstack-cache).
 * DEPTH is the module's user_depth (default 127), for MODE deep.
 */
#include <pthread.h>
#include <stdint.h>
#include <sys/mman.h>
#include <sys/prctl.h>

#include "common.h"

#define USAGE "hostile -m MODE [-d DEPTH] [SECONDS]"

typedef uintptr_t uword;
/*
 * A frame as the walker reads it: the caller's frame pointer and a return
 * address, stored at the address the frame pointer holds, less FP_BIAS.
 */
#ifdef __arm__
struct frame {
	uword next;
	uword sp;
	uword ret;
};
/* APCS: the frame pointer points just past the frame's {fp, sp, lr}. */
#define FP_BIAS sizeof(struct frame)
#else
struct frame {
	uword next;
	uword ret;
};
#define FP_BIAS 0
#endif
/* The frame pointer of a frame stored at @addr. */
#define FP(addr) ((uword)(addr) + FP_BIAS)
#define FRAME(next_fp, ret_addr) ((struct frame){ .next = (next_fp), .ret = (ret_addr) })

void spin_fp(uword fp, unsigned long iters);
void spin_fp_sys(uword fp, unsigned long iters);
extern const char spin_fp_loop[], spin_fp_loop_end[];
extern const char spin_fp_sys_loop[], spin_fp_sys_loop_end[];

#ifdef __x86_64__
#define NAME_PREFIX "hx-"
#define KADDR ((uword)0xffffffff81000000UL)
__asm__(
	"	.text\n"
	"	.globl spin_fp, spin_fp_loop, spin_fp_loop_end\n"
	"	.type spin_fp, @function\n"
	"spin_fp:\n"
	"	push %rbp\n"
	"	mov %rdi, %rbp\n"
	"spin_fp_loop:\n"
	"	dec %rsi\n"
	"	jnz spin_fp_loop\n"
	"spin_fp_loop_end:\n"
	"	pop %rbp\n"
	"	ret\n"
	"	.size spin_fp, .-spin_fp\n"
	"	.globl spin_fp_sys, spin_fp_sys_loop, spin_fp_sys_loop_end\n"
	"	.type spin_fp_sys, @function\n"
	"spin_fp_sys:\n"
	"	push %rbp\n"
	"	mov %rdi, %rbp\n"
	"spin_fp_sys_loop:\n"
	"	mov $110, %eax\n"	/* getppid */
	"	syscall\n"
	"	dec %rsi\n"
	"	jnz spin_fp_sys_loop\n"
	"spin_fp_sys_loop_end:\n"
	"	pop %rbp\n"
	"	ret\n"
	"	.size spin_fp_sys, .-spin_fp_sys\n");
#elif defined(__i386__)
#define NAME_PREFIX "h32-"
/* Above a compat task's address space. */
#define KADDR ((uword)0xfffff000UL)
__asm__(
	"	.text\n"
	"	.globl spin_fp, spin_fp_loop, spin_fp_loop_end\n"
	"	.type spin_fp, @function\n"
	"spin_fp:\n"
	"	push %ebp\n"
	"	mov 8(%esp), %eax\n"
	"	mov 12(%esp), %ecx\n"
	"	mov %eax, %ebp\n"
	"spin_fp_loop:\n"
	"	dec %ecx\n"
	"	jnz spin_fp_loop\n"
	"spin_fp_loop_end:\n"
	"	pop %ebp\n"
	"	ret\n"
	"	.size spin_fp, .-spin_fp\n"
	"	.globl spin_fp_sys, spin_fp_sys_loop, spin_fp_sys_loop_end\n"
	"	.type spin_fp_sys, @function\n"
	"spin_fp_sys:\n"
	"	push %ebp\n"
	"	mov 8(%esp), %eax\n"
	"	mov 12(%esp), %ecx\n"
	"	mov %eax, %ebp\n"
	"spin_fp_sys_loop:\n"
	"	mov $64, %eax\n"	/* getppid; int $0x80 keeps %ecx */
	"	int $0x80\n"
	"	dec %ecx\n"
	"	jnz spin_fp_sys_loop\n"
	"spin_fp_sys_loop_end:\n"
	"	pop %ebp\n"
	"	ret\n"
	"	.size spin_fp_sys, .-spin_fp_sys\n");
#elif defined(__aarch64__)
#define NAME_PREFIX "hx-"
/* The start of the kernel's half of a 48-bit address space. */
#define KADDR ((uword)0xffff800008000000UL)
/* x29 is the frame pointer; a frame record {x29, x30} is a struct frame. */
__asm__(
	"	.text\n"
	"	.globl spin_fp, spin_fp_loop, spin_fp_loop_end\n"
	"	.type spin_fp, %function\n"
	"spin_fp:\n"
	"	stp x29, x30, [sp, #-16]!\n"
	"	mov x29, x0\n"
	"spin_fp_loop:\n"
	"	subs x1, x1, #1\n"
	"	b.ne spin_fp_loop\n"
	"spin_fp_loop_end:\n"
	"	ldp x29, x30, [sp], #16\n"
	"	ret\n"
	"	.size spin_fp, .-spin_fp\n"
	"	.globl spin_fp_sys, spin_fp_sys_loop, spin_fp_sys_loop_end\n"
	"	.type spin_fp_sys, %function\n"
	"spin_fp_sys:\n"
	"	stp x29, x30, [sp, #-16]!\n"
	"	mov x29, x0\n"
	"	mov x9, x1\n"		/* svc returns in x0 and keeps the rest */
	"spin_fp_sys_loop:\n"
	"	mov x8, #173\n"	/* getppid */
	"	svc #0\n"
	"	subs x9, x9, #1\n"
	"	b.ne spin_fp_sys_loop\n"
	"spin_fp_sys_loop_end:\n"
	"	ldp x29, x30, [sp], #16\n"
	"	ret\n"
	"	.size spin_fp_sys, .-spin_fp_sys\n");
#elif defined(__arm__)
#define NAME_PREFIX "h32-"
/* Above an AArch32 task's address space (and its vectors page). */
#define KADDR ((uword)0xfffff000UL)
/*
 * A32 code (built with -marm): r11 is the frame pointer the compat walk
 * starts from (Thumb code uses r7). The loops leave the stack as it is.
 */
__asm__(
	"	.text\n"
	"	.arm\n"
	"	.globl spin_fp, spin_fp_loop, spin_fp_loop_end\n"
	"	.type spin_fp, %function\n"
	"spin_fp:\n"
	"	push {r11, lr}\n"
	"	mov r11, r0\n"
	"spin_fp_loop:\n"
	"	subs r1, r1, #1\n"
	"	bne spin_fp_loop\n"
	"spin_fp_loop_end:\n"
	"	pop {r11, pc}\n"
	"	.size spin_fp, .-spin_fp\n"
	"	.globl spin_fp_sys, spin_fp_sys_loop, spin_fp_sys_loop_end\n"
	"	.type spin_fp_sys, %function\n"
	"spin_fp_sys:\n"
	"	push {r4, r7, r11, lr}\n"
	"	mov r11, r0\n"
	"	mov r4, r1\n"		/* svc returns in r0 and keeps the rest */
	"spin_fp_sys_loop:\n"
	"	mov r7, #64\n"	/* getppid (EABI) */
	"	svc #0\n"
	"	subs r4, r4, #1\n"
	"	bne spin_fp_sys_loop\n"
	"spin_fp_sys_loop_end:\n"
	"	pop {r4, r7, r11, pc}\n"
	"	.size spin_fp_sys, .-spin_fp_sys\n");
#else
#error "hostile: x86 or arm only (its loops are assembly)"
#endif

/* Return addresses no mapping covers (so the text shows them as 0x...). */
#define R1 ((uword)0x11110010UL)
#define R2 ((uword)0x22220020UL)

#define ARENA_PAGES	8
#define HOLE_PAGE	4	/* unmapped */
#define NONE_PAGE	6	/* PROT_NONE */
#define DEEP_FRAMES	5000

static uint8_t *arena;
static long pagesz;
static volatile int stop;
static unsigned long long end_ns;

static void setup_arena(void)
{
	pagesz = sysconf(_SC_PAGESIZE);
	arena = mmap(NULL, ARENA_PAGES * pagesz, PROT_READ | PROT_WRITE,
		     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (arena == MAP_FAILED || munmap(arena + HOLE_PAGE * pagesz, pagesz) ||
	    mprotect(arena + NONE_PAGE * pagesz, pagesz, PROT_NONE)) {
		perror("hostile: arena");
		exit(1);
	}
}

static struct frame *frame_at(size_t off)
{
	return (struct frame *)(arena + off);
}

/* Spins in spin_fp (or spin_fp_sys) with @fp until the time is up. */
static void run(uword fp, int sys)
{
	do {
		if (sys)
			spin_fp_sys(fp, 2000);
		else
			spin_fp(fp, 4000000);
	} while (now_ns() < end_ns && !stop);
}

static uword rand_word(uint64_t *s)
{
	uword hole = (uword)(arena + HOLE_PAGE * pagesz);

	*s = *s * 6364136223846793005ULL + 1442695040888963407ULL;
	switch ((*s >> 33) % 8) {
	case 0: return 0;
	case 1: return KADDR;
	case 2: return hole + (uword)((*s >> 20) % pagesz);
	case 3: return R1;
	case 4: return (uword)(*s >> 17);
	default:
		/* Somewhere in the arena, often a frame further on. */
		return (uword)(arena + ((*s >> 24) % (HOLE_PAGE * pagesz)));
	}
}

/* Rewrites the chain all the time, while the main thread walks on it. */
static void *mutator(void *unused)
{
	uword *w = (uword *)arena;
	size_t n = HOLE_PAGE * pagesz / sizeof(uword);
	uint64_t s = 42;

	(void)unused;
	while (!stop)
		w[(s >> 40) % n] = rand_word(&s);
	return NULL;
}

/* Unmaps the chain's page and maps it back, again and again. */
static void *remapper(void *unused)
{
	(void)unused;
	while (!stop) {
		if (munmap(arena, pagesz))
			break;
		if (mmap(arena, pagesz, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0) == MAP_FAILED)
			break;
		*frame_at(0) = FRAME(FP(arena), R1);
	}
	return NULL;
}

volatile unsigned long sink;

NOINLINE unsigned long c_leaf(unsigned long seed)
{
	return spin_body(SPIN_ITERS, seed);
}

NOINLINE unsigned long c_middle(unsigned long seed)
{
	unsigned long r = c_leaf(seed);

	sink = r;
	return r + 1;
}

NOINLINE unsigned long c_outer(unsigned long seed)
{
	unsigned long r = c_middle(seed);

	sink = r;
	return r + 1;
}

static void expect(unsigned int nu, uword u1, uword u2, int fault, int trunc)
{
	printf("expect nu=%u", nu);
	if (nu > 1)
		printf(" u1=%#llx", (unsigned long long)u1);
	if (nu > 2)
		printf(" u2=%#llx", (unsigned long long)u2);
	printf(" fault=%d truncated=%d\n", fault, trunc);
}

int main(int argc, char **argv)
{
	unsigned long long duration = 1000000000ULL;
	unsigned long depth = 127, seed = 1;
	const char *mode = NULL;
	char name[16];
	uword a, fp, hole;
	pthread_t th;
	int opt, sys = 0, thread = 0;
	size_t i;

	while ((opt = getopt(argc, argv, "m:d:")) != -1) {
		if (opt == 'm')
			mode = optarg;
		else if (opt == 'd')
			depth = parse_count(optarg, 1024, USAGE);
		else
			die_usage(USAGE);
	}
	if (!mode || optind < argc - 1)
		die_usage(USAGE);
	if (optind == argc - 1)
		duration = parse_seconds(argv[optind], USAGE);
	snprintf(name, sizeof(name), NAME_PREFIX "%s", mode);
	prctl(PR_SET_NAME, name);
	setup_arena();
	a = (uword)arena;
	hole = a + HOLE_PAGE * pagesz;
	end_ns = now_ns() + duration;
	printf("window %#llx %#llx sys %#llx %#llx\n",
	       (unsigned long long)(uword)spin_fp_loop,
	       (unsigned long long)(uword)spin_fp_loop_end,
	       (unsigned long long)(uword)spin_fp_sys_loop,
	       (unsigned long long)(uword)spin_fp_sys_loop_end);

	if (!strcmp(mode, "chain")) {
		printf("expect chain\n");
		fflush(stdout);
		do
			seed = c_outer(seed);
		while (now_ns() < end_ns);
		sink = seed;
		return 0;
	}
	if (!strcmp(mode, "nap")) {
		struct timespec ms = { 0, 1000000 };

		printf("expect any\n");
		fflush(stdout);
		do
			nanosleep(&ms, NULL);
		while (now_ns() < end_ns);
		return 0;
	}
	/*
	 * @a is where the (first) frame is stored, @fp the frame pointer the
	 * loop runs with: FP(a), or a value that points at no frame.
	 */
	fp = FP(a);
	if (!strcmp(mode, "selfloop") || !strcmp(mode, "sys")) {
		*frame_at(0) = FRAME(FP(a), R1);
		expect(2, R1, 0, 0, 0);
		sys = !strcmp(mode, "sys");
	} else if (!strcmp(mode, "cycle")) {
		*frame_at(0) = FRAME(FP(a + 64), R1);
		*frame_at(64) = FRAME(FP(a), R2);
		expect(3, R1, R2, 0, 0);
	} else if (!strcmp(mode, "down")) {
		*frame_at(128) = FRAME(FP(a + 64), R1);
		*frame_at(64) = FRAME(FP(a + 128), R2);
		fp = FP(a + 128);
		expect(2, R1, 0, 0, 0);
	} else if (!strcmp(mode, "kernel") || !strcmp(mode, "sysfault")) {
		fp = KADDR;
		expect(1, 0, 0, 1, 0);
		sys = !strcmp(mode, "sysfault");
	} else if (!strcmp(mode, "kernelnext")) {
		*frame_at(0) = FRAME(KADDR, R1);
		expect(2, R1, 0, 1, 0);
	} else if (!strcmp(mode, "kret")) {
		*frame_at(0) = FRAME(0, KADDR);
		expect(2, KADDR, 0, 0, 0);
#if defined(__x86_64__)
	} else if (!strcmp(mode, "noncanon")) {
		fp = (uword)0x8000000000001000ULL;
		expect(1, 0, 0, 1, 0);
#elif defined(__aarch64__)
	} else if (!strcmp(mode, "noncanon")) {
		/* Above a 48-bit user address space, below the kernel's half. */
		fp = (uword)0x0001000000001000ULL;
		expect(1, 0, 0, 1, 0);
#endif
	} else if (!strcmp(mode, "unmapped")) {
		fp = FP(hole);
		expect(1, 0, 0, 1, 0);
	} else if (!strcmp(mode, "pagecross")) {
		/* The frame's first word is mapped, the rest on the unmapped page. */
		a = hole - sizeof(uword);
		*(uword *)a = FP(a) + 4096;
		fp = FP(a);
		expect(1, 0, 0, 1, 0);
	} else if (!strcmp(mode, "protnone")) {
		fp = FP(a + NONE_PAGE * pagesz);
		expect(1, 0, 0, 1, 0);
	} else if (!strcmp(mode, "misaligned")) {
		a += 3;
		memcpy((void *)a, &FRAME(0, R1), sizeof(struct frame));
		fp = FP(a);
#if defined(__aarch64__) || defined(__arm__)
		/*
		 * AArch64 frame records are 8-byte aligned, AArch32 frames
		 * 4-byte aligned: the arm64 walks end quietly at one that is
		 * not (kmod/arch/arm64/unwind.c).
		 */
		expect(1, 0, 0, 0, 0);
#else
		expect(2, R1, 0, 0, 0);
#endif
	} else if (!strcmp(mode, "zero")) {
		fp = 0;
		expect(1, 0, 0, 0, 0);
	} else if (!strcmp(mode, "deep")) {
		struct frame *f = mmap(NULL, (DEEP_FRAMES + 1) * sizeof(*f),
				       PROT_READ | PROT_WRITE,
				       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

		if (f == MAP_FAILED) {
			perror("hostile: mmap");
			return 1;
		}
		for (i = 0; i < DEEP_FRAMES; i++)
			f[i] = FRAME(FP(&f[i + 1]), R1 + 16 * i);
		f[DEEP_FRAMES] = FRAME(0, 0);
		fp = FP(f);
		/* ip, then one return address per frame, up to the depth. */
		expect(depth < DEEP_FRAMES + 1 ? depth : DEEP_FRAMES + 1, R1,
		       R1 + 16, 0, depth < DEEP_FRAMES + 1);
	} else if (!strcmp(mode, "mutate")) {
		for (i = 0; i < HOLE_PAGE * (size_t)pagesz / sizeof(struct frame); i++)
			*frame_at(i * sizeof(struct frame)) =
				FRAME(FP(a + (i + 1) * sizeof(struct frame)), R1);
		printf("expect any\n");
		thread = 1;
	} else if (!strcmp(mode, "remap")) {
		*frame_at(0) = FRAME(FP(a), R1);
		printf("expect remap u1=%#llx\n", (unsigned long long)R1);
		thread = 2;
	} else {
		die_usage(USAGE " (MODE: chain nap selfloop cycle down kernel kernelnext kret noncanon unmapped pagecross protnone misaligned zero deep mutate remap sys sysfault)");
	}
	fflush(stdout);
	if (thread && pthread_create(&th, NULL, thread == 1 ? mutator : remapper, NULL)) {
		perror("hostile: pthread_create");
		return 1;
	}
	run(fp, sys);
	stop = 1;
	if (thread)
		pthread_join(th, NULL);
	return 0;
}
