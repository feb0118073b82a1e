#ifndef TILAWA_C_FILE_SHIMS_H
#define TILAWA_C_FILE_SHIMS_H

/// renameat2(2) with RENAME_NOREPLACE: glibc declares it only under _GNU_SOURCE, which
/// Swift's Glibc module is not built with, so this target compiles the one call itself.
/// Returns 0 or -1 with errno set (EEXIST when the target exists; EINVAL or ENOSYS where the
/// filesystem or kernel has no such rename, and the caller falls back to linkat + unlinkat).
int tilawa_rename_noreplace(int old_directory, const char *old_name, int new_directory, const char *new_name);

/// syncfs(2): everything written to the filesystem holding `descriptor` reaches the disk, data
/// and metadata (on ext4 and xfs, one journal commit). Since Linux 5.8 it fails with the error
/// of any write-back that failed on that filesystem since `descriptor` was opened, so a caller
/// opens it before writing. Declared only under _GNU_SOURCE, like renameat2.
int tilawa_syncfs(int descriptor);

#endif
