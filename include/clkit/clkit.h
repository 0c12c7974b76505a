/*
 * clkit/clkit.h - the whole public API of clkit, a portable compute
 * toolkit: devices and their measured peaks, one queue abstraction over
 * OpenCL (and the host reference), runtime kernel builds with a binary
 * cache, and workloads.
 *
 * Conventions: public names begin with ck_; every function returns a
 * ck_status and never prints, exits or aborts; the message of the last
 * failure on a thread comes from ck_error_get_last().
 *
 * Threads: distinct objects may be used from distinct threads at once; one
 * object (a queue with what it owns, a workload object) from one thread at
 * a time. Device listing, workload runs and the kernel cache are safe from
 * any thread, and the cache from several processes. Numbers are read and
 * written in the C locale whatever the caller's; the environment is only
 * read. docs/architecture.md, "Threads and processes", has the details.
 */
#ifndef CLKIT_CLKIT_H
#define CLKIT_CLKIT_H

#include "clkit/aco.h"
#include "clkit/bench.h"
#include "clkit/cache.h"
#include "clkit/dataset.h"
#include "clkit/device.h"
#include "clkit/ga.h"
#include "clkit/gas.h"
#include "clkit/kernels.h"
#include "clkit/lsq.h"
#include "clkit/nn.h"
#include "clkit/objectives.h"
#include "clkit/peak.h"
#include "clkit/pso.h"
#include "clkit/queue.h"
#include "clkit/session.h"
#include "clkit/spread.h"
#include "clkit/status.h"
#include "clkit/tsp.h"
#include "clkit/version.h"
#include "clkit/workload.h"

#endif /* CLKIT_CLKIT_H */
