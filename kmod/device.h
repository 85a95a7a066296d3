/* SPDX-License-Identifier: GPL-2.0 */
/* /dev/flamestat and its sysfs statistics: the module's face to users. */
#ifndef FLAMESTAT_DEVICE_H
#define FLAMESTAT_DEVICE_H

int fst_device_register(int gid);
void fst_device_unregister(void);

#endif /* FLAMESTAT_DEVICE_H */
