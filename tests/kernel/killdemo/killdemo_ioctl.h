/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * ioctl numbers of the killdemo misc device, shared by the driver and the
 * boot test program (tests/kernel/init/killdemo_init.c).
 *
 * For every family there is a BLOCK ioctl that sleeps until the matching
 * RELEASE ioctl frees the resource, and the RELEASE ioctl itself. BLOCK
 * ioctls that take an argument write a pass count to the int it points to.
 */
#ifndef _KILLDEMO_IOCTL_H
#define _KILLDEMO_IOCTL_H

#include <linux/ioctl.h>

#define KILLDEMO_IOC_MAGIC	0xd7

#define KILLDEMO_BLOCK(family)		_IOR(KILLDEMO_IOC_MAGIC, 2 * (family), int)
#define KILLDEMO_RELEASE(family)	_IO(KILLDEMO_IOC_MAGIC, 2 * (family) + 1)

/* Families, in the order the boot test runs them. */
#define KILLDEMO_MUTEX			0
#define KILLDEMO_SEMAPHORE		1
#define KILLDEMO_RWSEM			2
#define KILLDEMO_WAIT_EVENT		3
#define KILLDEMO_COMPLETION		4
#define KILLDEMO_SCHEDULE_TIMEOUT	5
#define KILLDEMO_MMAP_LOCK		6
#define KILLDEMO_INODE_LOCK		7
#define KILLDEMO_WAIT_EVENT_LOCK_IRQ	8
#define KILLDEMO_NR_FAMILIES		9

#endif /* _KILLDEMO_IOCTL_H */
