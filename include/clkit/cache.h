/*
 * clkit/cache.h - the on-disk cache of built kernel binaries, which also
 * keeps the peaks measured of each device (clkit/peak.h).
 *
 * Programs built for an OpenCL device are stored under a key that hashes
 * the assembled source, the build options, the platform name and version,
 * the device name, the driver version and the clkit version. Location:
 * $CLKIT_CACHE_DIR, else $XDG_CACHE_HOME/clkit, else ~/.cache/clkit.
 * CLKIT_CACHE=0 disables it (so do off, no and false, in any case).
 * Builds for PoCL leave it alone, since PoCL keeps its own cache of
 * builds (and reading a PoCL program's binary makes PoCL compile each
 * kernel once more): CLKIT_CACHE=1 (or on, yes, true) uses it there too,
 * as does POCL_KERNEL_CACHE=0, which turns PoCL's off. Any other value
 * leaves the cache on, as if unset, and ck_cache_query() reports it.
 *
 * A cached binary is loaded as code, so the cache is used only where no
 * one else can write: the directory must be an absolute path, not a
 * symbolic link, owned by the user and not writable by group or others
 * (clkit creates it 0700). An entry is read only if it is a regular file
 * of the user's, not writable by group or others, whose header holds its
 * key; a binary lacking a kernel stored with it is rebuilt. Anything else
 * is a miss, and the rebuilt entry replaces it.
 *
 * Any number of threads and processes may use one cache at once: entries
 * are renamed into place whole, a damaged one is rebuilt, and the
 * temporary file of a writer killed mid-write is deleted by a later store
 * once it is an hour old (ck_cache_clear() deletes it at once).
 */
#ifndef CLKIT_CACHE_H
#define CLKIT_CACHE_H

#include <stddef.h>

#include "clkit/status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct ck_cache_stats {
  char directory[4096];     /* where entries live */
  int enabled;              /* 0 when CLKIT_CACHE=0 (or off, no, false) */
  int pocl_builds;          /* 1 when CLKIT_CACHE=1 stores PoCL's builds
                               too (0: they are left to PoCL's cache) */
  size_t entries;           /* number of entries, peaks included */
  size_t peaks;             /* of which devices' measured peaks
                               (clkit/peak.h) */
  unsigned long long bytes; /* their total size */
} ck_cache_stats;

/*
 * ck_cache_query - describe the cache.
 * Takes: stats, filled in. A missing directory counts as an empty cache.
 * Returns: CK_OK; CK_ERROR_INVALID_ARGUMENT if stats is NULL, or if
 * CLKIT_CACHE has a value that is not one of those above: stats is then
 * filled in all the same (enabled, since the cache stays on) and the
 * message names the value; CK_ERROR_CACHE if the directory is refused
 * (relative, a link, another user's, writable by group or others): builds
 * do not use it, the message says why, and no entries are counted;
 * CK_ERROR_IO if the directory exists but cannot be read.
 */
ck_status ck_cache_query(ck_cache_stats *stats);

/*
 * ck_cache_clear - delete every cache entry, peaks included (and stale
 * temporary files).
 * An entry that is a link is deleted, not what it points to.
 * Takes: removed, optional, set to the number of files deleted.
 * Returns: CK_OK; CK_ERROR_CACHE if the directory is refused (as for
 * ck_cache_query()), with nothing deleted; CK_ERROR_IO if a file could not
 * be deleted.
 */
ck_status ck_cache_clear(size_t *removed);

#ifdef __cplusplus
}
#endif
#endif /* CLKIT_CACHE_H */
