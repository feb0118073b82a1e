#ifndef TILAWA_C_FILE_SHIMS_H
#define TILAWA_C_FILE_SHIMS_H

/// renameat2(2) with RENAME_NOREPLACE: glibc declares it only under _GNU_SOURCE, which
/// Swift's Glibc module is not built with, so this target compiles the one call itself.
/// Returns 0 or -1 with errno set (EEXIST when the target exists; EINVAL or ENOSYS where the
/// filesystem or kernel has no such rename, and the caller falls back to linkat + unlinkat).
int tilawa_rename_noreplace(int old_directory, const char *old_name, int new_directory, const char *new_name);

#endif
