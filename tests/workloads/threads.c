// SPDX-License-Identifier: GPL-2.0
/*
 * Multi-threaded workload: N threads (default 2) spin in distinct chains.
 * Even-numbered threads are named "worker_a" and run thread_worker_a ->
 * spin_a, odd ones "worker_b" with thread_worker_b -> spin_b; the main
 * thread ("threads") only waits for them. With -s every thread runs
 * thread_worker_a -> spin_a, the odd ones still named "worker_b": stacks that
 * differ in the thread's name only.
 *
 *   threads [-s] [-n THREADS] [-l LOOPS] [SECONDS]   LOOPS: spins per thread
 */
#include <pthread.h>

#include "common.h"

#define USAGE "threads [-s] [-n THREADS] [-l LOOPS] [SECONDS]"
#define MAX_THREADS 256

struct job {
	const char *name;
	unsigned long long end;
	unsigned long loops;
	unsigned long result;
};

NOINLINE unsigned long spin_a(unsigned long seed)
{
	return spin_body(SPIN_ITERS, seed);
}

NOINLINE unsigned long spin_b(unsigned long seed)
{
	return spin_body(SPIN_ITERS, seed ^ 0x5a5a);
}

/* Runs @spin until the job's deadline or for its number of loops. */
static inline __attribute__((always_inline)) void
run_job(struct job *j, unsigned long (*spin)(unsigned long))
{
	unsigned long seed = 1, i;

	if (j->loops) {
		for (i = 0; i < j->loops; i++)
			seed = spin(seed);
	} else {
		do
			seed = spin(seed);
		while (now_ns() < j->end);
	}
	j->result = seed;
}

NOINLINE void *thread_worker_a(void *arg)
{
	struct job *j = arg;

	pthread_setname_np(pthread_self(), j->name);
	run_job(arg, spin_a);
	return arg;
}

NOINLINE void *thread_worker_b(void *arg)
{
	pthread_setname_np(pthread_self(), "worker_b");
	run_job(arg, spin_b);
	return arg;
}

int main(int argc, char **argv)
{
	static pthread_t tid[MAX_THREADS];
	static struct job jobs[MAX_THREADS];
	unsigned long long end, duration = 1000000000ULL;
	unsigned long loops = 0, n = 2, i;
	int opt, err, same = 0;

	while ((opt = getopt(argc, argv, "sn:l:")) != -1) {
		if (opt == 's')
			same = 1;
		else if (opt == 'n')
			n = parse_count(optarg, MAX_THREADS, USAGE);
		else if (opt == 'l')
			loops = parse_count(optarg, 1UL << 40, USAGE);
		else
			die_usage(USAGE);
	}
	if (optind < argc - 1 || n == 0)
		die_usage(USAGE);
	if (optind == argc - 1)
		duration = parse_seconds(argv[optind], USAGE);

	end = now_ns() + duration;
	for (i = 0; i < n; i++) {
		jobs[i].name = i % 2 ? "worker_b" : "worker_a";
		jobs[i].end = end;
		jobs[i].loops = loops;
		err = pthread_create(&tid[i], NULL,
				     i % 2 && !same ? thread_worker_b :
				     thread_worker_a, &jobs[i]);
		if (err) {
			fprintf(stderr, "threads: pthread_create: %s\n",
				strerror(err));
			return 1;
		}
	}
	for (i = 0; i < n; i++)
		pthread_join(tid[i], NULL);
	return 0;
}
