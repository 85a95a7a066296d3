/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Version-dependent kernel API in one place. The FST_HAVE_* macros come from
 * conftest.sh, which compiles a probe of each API against the target
 * headers.
 */
#ifndef FLAMESTAT_COMPAT_H
#define FLAMESTAT_COMPAT_H

#include <linux/hrtimer.h>
#include <linux/mm.h>
#include <linux/workqueue.h>

#ifdef FST_HAVE_FOR_EACH_VMA
#define FST_VMA_ITER_DECLARE(name, mm)	VMA_ITERATOR(name, mm, 0)
#define fst_for_each_vma(name, mm, vma)	for_each_vma(name, vma)
#else
#define FST_VMA_ITER_DECLARE(name, mm)	int name __maybe_unused = 0
#define fst_for_each_vma(name, mm, vma)					\
	for ((vma) = (mm)->mmap; (vma); (vma) = (vma)->vm_next)
#endif

/*
 * Inside execve() the saved user registers still belong to the old image
 * while task->mm may already be the new, still empty, address space: no
 * user stack can be walked then.
 */
#ifdef FST_HAVE_IN_EXECVE
#define fst_task_in_execve(task)	((task)->in_execve)
#else
#define fst_task_in_execve(task)	false
#endif

/* A task's state: task_struct.__state from 5.14, .state before. */
#ifdef FST_HAVE_TASK_STATE_FIELD
#define fst_task_state(task)	READ_ONCE((task)->__state)
#else
#define fst_task_state(task)	((unsigned int)READ_ONCE((task)->state))
#endif

#ifndef FST_HAVE_MMAP_LOCK
#define mmap_read_lock(mm)	down_read(&(mm)->mmap_sem)
#define mmap_read_trylock(mm)	down_read_trylock(&(mm)->mmap_sem)
#define mmap_read_unlock(mm)	up_read(&(mm)->mmap_sem)
#endif

/*
 * Kernels from 6.17 split the system workqueues by name, log a deprecation
 * for work queued on system_wq and system_unbound_wq, and will drop them.
 * All of the module's work may run on any CPU: fst_wq_unbound.
 */
#ifdef FST_HAVE_SYSTEM_DFL_WQ
#define fst_wq_unbound	system_dfl_wq
#else
#define fst_wq_unbound	system_unbound_wq
#endif

struct cpumask;

void fst_housekeeping_cpus(struct cpumask *dst);
void fst_hrtimer_setup(struct hrtimer *t,
		       enum hrtimer_restart (*fn)(struct hrtimer *));

#endif /* FLAMESTAT_COMPAT_H */
