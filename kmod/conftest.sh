#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Build-time feature tests against the target kernel's headers, so that
# backported and newer APIs are detected rather than guessed from version
# numbers. Usage: conftest.sh '<kernel C compiler command>', the command as
# the shell would run it (its own quoting intact: it is eval'ed). Prints
# the -DFST_HAVE_* flags of the features that compile, and
# -DFST_CONFTEST_OK when a trivial file compiles: without it every test
# would fail alike and silently (a wrong compiler, broken headers), and
# kmod/Kbuild stops the build instead. Used by kmod/Kbuild.
cc="$1"

# compiles: is the C code on stdin accepted?
compiles() {
	eval "$cc"' -Werror=implicit-function-declaration \
	       -Werror=incompatible-pointer-types -Werror=int-conversion \
	       -Wno-missing-prototypes -Wno-unused-function \
	       -fsyntax-only -x c -' >/dev/null 2>&1
}

try() {
	if printf '%s\n' "$2" | compiles; then
		printf ' -DFST_HAVE_%s' "$1"
	fi
}

if printf '%s\n' '#include <linux/module.h>' \
	'int t(void) { return 0; }' | compiles; then
	printf ' -DFST_CONFTEST_OK'
fi

try HRTIMER_SETUP '#include <linux/hrtimer.h>
static enum hrtimer_restart f(struct hrtimer *t) { return HRTIMER_NORESTART; }
void t(struct hrtimer *h) { hrtimer_setup(h, f, CLOCK_MONOTONIC, HRTIMER_MODE_REL_HARD); }'

try FOR_EACH_VMA '#include <linux/mm.h>
void t(struct mm_struct *mm) { struct vm_area_struct *vma; VMA_ITERATOR(vmi, mm, 0); for_each_vma(vmi, vma) ; }'

try MMAP_LOCK '#include <linux/mm.h>
#include <linux/mmap_lock.h>
void t(struct mm_struct *mm) { mmap_read_lock(mm); mmap_read_unlock(mm); }'

try IN_EXECVE '#include <linux/sched.h>
bool t(struct task_struct *p) { return p->in_execve; }'

try PERFMON_CAPABLE '#include <linux/capability.h>
bool t(void) { return perfmon_capable(); }'

try VM_FLAGS_CONST '#include <linux/mm.h>
void t(struct vm_area_struct *v) { vm_flags_set(v, 0); }'

try SYSTEM_DFL_WQ '#include <linux/workqueue.h>
struct workqueue_struct *t(void) { return system_dfl_wq; }'

try HK_TYPE '#include <linux/sched/isolation.h>
const struct cpumask *t(void) { return housekeeping_cpumask(HK_TYPE_TICK); }'
# sched_switch with prev_state (5.18, backported to RHEL 9's 5.14.0-162).
try SCHED_SWITCH_PREV_STATE '#include <trace/events/sched.h>
static void p(void *d, bool pr, struct task_struct *a, struct task_struct *b, unsigned int s) { }
int t(void) { return register_trace_sched_switch(p, NULL); }'

# task_struct.__state (5.14; before it, .state).
try TASK_STATE_FIELD '#include <linux/sched.h>
unsigned int t(struct task_struct *p) { return READ_ONCE(p->__state); }'

# The tracepoint's iterator (5.10, with static calls for tracepoints).
try TRACEPOINT_ITERATOR '#include <linux/tracepoint.h>
void *t(struct tracepoint *tp) { return tp->iterator; }'

# inode_get_ctime() (6.6; i_ctime before).
try INODE_GET_CTIME '#include <linux/fs.h>
struct timespec64 t(const struct inode *i) { return inode_get_ctime(i); }'
echo
