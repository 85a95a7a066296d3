/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Off-CPU time (FLAMESTAT_MODE_OFFCPU, _WALL): probes on the scheduler's
 * sched_switch (and sched_wakeup) tracepoints keep the stack of each task
 * that switches out and, when it switches in again, count the time it was
 * off a CPU in that stack, in the CPU tables the timers also write.
 */
#ifndef FLAMESTAT_OFFCPU_H
#define FLAMESTAT_OFFCPU_H

#include <linux/types.h>

#include "sampler.h"

int fst_offcpu_init(void);
int fst_offcpu_start(struct fst_sampler *s, u32 nr_tasks);
void fst_offcpu_stop(struct fst_sampler *s, struct fst_counts *counts);
void fst_offcpu_detach(struct fst_sampler *s);
void fst_offcpu_cpu_online(struct fst_sampler *s);
void fst_offcpu_cpu_offline(struct fst_sampler *s);
u64 fst_offcpu_recent_hits(void);
u32 fst_offcpu_blocked(struct fst_sampler *s);
size_t fst_offcpu_bytes(struct fst_sampler *s);

#endif /* FLAMESTAT_OFFCPU_H */
