/*
 * The Linux CPU affinity of the calling thread, for `--store-cpus`. Swift's Glibc
 * module leaves out the GNU declarations (`sched_setaffinity`, `CPU_SET`), so this
 * calls the system call itself with a plain bit mask.
 */
#ifndef LOCSTREAM_CSCHED_SHIM_H
#define LOCSTREAM_CSCHED_SHIM_H

#include <errno.h>
#include <stddef.h>
#include <sys/syscall.h>
#include <unistd.h>

/**
 * Lets the calling thread run only on the CPUs whose bits are set in `mask`
 * (`bytes` long, bit N of byte N / 8 for CPU N). Returns 0, or the errno of the
 * failure (EINVAL when none of them may be used).
 */
static inline int locstream_pin_current_thread(const unsigned char *mask, size_t bytes) {
    return syscall(SYS_sched_setaffinity, 0, bytes, mask) == 0 ? 0 : errno;
}

#endif
