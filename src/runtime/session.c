/*
 * session.c - devices kept open between runs (clkit/session.h): per
 * device, a kept queue and spare queues beside it, a table of built
 * programs and the buffers that runs gave back.
 *
 * A session's devices carry its number (ck_device.session), not a
 * pointer: a copy that outlives the session finds no session in the
 * registry and is refused, rather than reaching freed memory.
 *
 * One lock guards the registry and every session's bookkeeping. Backend
 * work (making, finishing and destroying queues, releasing programs and
 * buffers) runs outside it where it may be slow: what it releases is
 * first unlinked under the lock, into a list of things to destroy.
 *
 * Programs and buffers belong to the kept queue's state (an OpenCL
 * context): each is tagged with the making of that state it came from
 * (its generation), and serves only queues that share that making. A
 * state destroyed after a failed finish leaves its entries unserved.
 *
 * A kept program serves every queue of its making at once: a program's
 * kernels are its own, and runtimes let threads share a built program.
 * The first to miss a key builds it; others that miss it meanwhile wait
 * for that build rather than build it again.
 *
 * Queues made beside the kept one, for runs at the same time, are kept
 * as spares once their work is done, and lent before a new one is made.
 * While the kept queue's state is being made, other queues of the device
 * wait for it, to be made beside it and share its programs.
 *
 * A session lives while its caller holds it (until ck_session_destroy)
 * or a queue made on it lives: each lent queue holds a reference, and the
 * last reference frees what is left.
 */
#include <assert.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/backend.h"

/* Programs a device keeps; past this many, the least recently used one
 * that no program holds gives way. */
enum { KEPT_PROGRAMS = 32 };

/* Spare queues a device keeps, beside its kept one. */
enum { KEPT_SPARES = 16 };

typedef struct kept_program {
  ck__session_device *owner;
  uint8_t key[32];
  void *handle;                  /* NULL while it is being built */
  unsigned long long generation; /* of the state it was built in */
  size_t users;                  /* programs that hold it now */
  int building;                  /* its first user builds it now */
  pthread_t builder;             /* that user's thread */
  unsigned long long used;       /* the session's clock at its last lending */
  struct kept_program *next;
} kept_program;

typedef struct kept_buffer {
  ck__session_device *owner;
  size_t size;
  void *handle;
  unsigned long long generation; /* of the state it was made in */
  /* The queue that gave it back, which alone may take it again while it
   * may still have work on it; NULL once that queue has finished. */
  const ck_queue *from;
  unsigned long long given; /* the device's home lendings when given */
  struct kept_buffer *next;
} kept_buffer;

/* A spare queue's backend state, made beside home's state of generation. */
typedef struct kept_queue {
  ck__session_device *owner;
  void *backend;
  unsigned long long generation;
  struct kept_queue *next;
} kept_queue;

struct ck__session_device {
  ck_session *session;
  /* The kept queue: its device and ops, and its backend state once made
   * (NULL before, and after a failed finish destroyed it). */
  ck_queue home;
  int home_made;   /* its backend state is made (ref's is NULL) */
  int home_making; /* a queue lent it makes that state now */
  int home_lent;
  unsigned long long generation; /* of home's state: its makings so far */
  unsigned long long lendings;   /* of home, so far */
  kept_program *programs;
  size_t program_count; /* built ones */
  kept_buffer *buffers;
  kept_queue *spares;
  size_t spare_count;
};

struct ck_session {
  unsigned long long id;
  size_t references; /* the caller's until destroyed, and each lent queue's */
  int closed;
  ck_device *devices;
  size_t count;
  ck__session_device *kept; /* one per device */
  ck_session_stats stats;
  unsigned long long clock;
  ck_session *next; /* in the registry */
};

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
/* Signalled, with the lock, when a program being built is kept or given
 * up, and when a kept queue's state being made is made or failed. */
static pthread_cond_t settled = PTHREAD_COND_INITIALIZER;
static ck_session *registry;
static unsigned long long last_id;

/* What to destroy once the lock is released. */
typedef struct trash {
  kept_program *programs;
  kept_buffer *buffers;
  kept_queue *queues;
} trash;

static void trash_empty(trash *bin) {
  assert(bin);
  while (bin->programs) {
    kept_program *entry = bin->programs;
    bin->programs = entry->next;
    ck_program program = {.queue = &entry->owner->home,
                          .handle = entry->handle};
    entry->owner->home.ops->program_destroy(&program);
    free(entry);
  }
  while (bin->buffers) {
    kept_buffer *entry = bin->buffers;
    bin->buffers = entry->next;
    ck_buffer buffer = {.queue = &entry->owner->home,
                        .size = entry->size,
                        .handle = entry->handle};
    entry->owner->home.ops->buffer_destroy(&buffer);
    free(entry);
  }
  while (bin->queues) {
    kept_queue *entry = bin->queues;
    bin->queues = entry->next;
    ck_queue queue = entry->owner->home;
    queue.backend = entry->backend;
    queue.ops->destroy(&queue);
    free(entry);
  }
}

/* Under the lock: the live session of number id, or NULL. */
static ck_session *find(unsigned long long id) {
  for (ck_session *session = registry; session; session = session->next)
    if (session->id == id)
      return session;
  return NULL;
}

/* Under the lock: the session's share of the device with the id of
 * device, or NULL. */
static ck__session_device *share_of(ck_session *session,
                                    const ck_device *device) {
  assert(session && device && (session->kept || session->count == 0));
  for (size_t i = 0; i < session->count; ++i)
    if (strcmp(session->devices[i].id, device->id) == 0)
      return &session->kept[i];
  return NULL;
}

/* Which programs discard_programs() moves. */
typedef enum { EVERY, IDLE, STALE } which_programs;

/* Under the lock: moves the device's programs to bin: every one, those no
 * program holds, or of those the ones no later queue can share (of a
 * state destroyed since). */
static void discard_programs(ck__session_device *kept, which_programs which,
                             trash *bin) {
  assert(kept && bin);
  for (kept_program **at = &kept->programs; *at;) {
    kept_program *entry = *at;
    int stale = !kept->home_made || entry->generation != kept->generation;
    if (which != EVERY &&
        (entry->users || entry->building || (which == STALE && !stale))) {
      at = &entry->next;
      continue;
    }
    *at = entry->next;
    entry->next = bin->programs;
    bin->programs = entry;
    --kept->program_count;
  }
}

/* Under the lock: moves the device's spare queues to bin: every one, or
 * those of a state destroyed since. */
static void discard_spares(ck__session_device *kept, int every, trash *bin) {
  assert(kept && bin);
  for (kept_queue **at = &kept->spares; *at;) {
    kept_queue *entry = *at;
    if (!every && kept->home_made && entry->generation == kept->generation) {
      at = &entry->next;
      continue;
    }
    *at = entry->next;
    entry->next = bin->queues;
    bin->queues = entry;
    --kept->spare_count;
  }
}

/* Under the lock: moves the device's buffers to bin: every one, or those
 * no queue may still use that were given back before lending `before`. */
static void discard_buffers(ck__session_device *kept, int every,
                            unsigned long long before, trash *bin) {
  ck_session_stats *stats = &kept->session->stats;
  for (kept_buffer **at = &kept->buffers; *at;) {
    kept_buffer *entry = *at;
    if (!every && (entry->from || entry->given >= before)) {
      at = &entry->next;
      continue;
    }
    *at = entry->next;
    entry->next = bin->buffers;
    bin->buffers = entry;
    --stats->buffers;
    stats->buffer_bytes -= entry->size;
  }
}

static void session_free(ck_session *session) {
  assert(session && session->references == 0);
  trash bin = {0};
  for (size_t i = 0; session->kept && i < session->count; ++i) {
    ck__session_device *kept = &session->kept[i];
    discard_programs(kept, EVERY, &bin);
    discard_buffers(kept, 1, 0, &bin);
    discard_spares(kept, 1, &bin);
    trash_empty(&bin);
    if (kept->home_made)
      kept->home.ops->destroy(&kept->home);
  }
  free(session->kept);
  free(session->devices);
  free(session);
}

/* Drops a reference taken under the lock; the last frees the session. */
static void release(ck_session *session) {
  pthread_mutex_lock(&lock);
  assert(session->references > 0);
  int last = --session->references == 0;
  pthread_mutex_unlock(&lock);
  if (last)
    session_free(session);
}

static ck_status destroyed(const ck_device *device) {
  return ck__fail(CK_ERROR_INVALID_ARGUMENT,
                  "device %s belongs to session %llu, which was destroyed "
                  "(ck_session_destroy)",
                  device->id, device->session);
}

ck_status ck_session_create(const char *selector, ck_session **session) {
  ck_status status = CK_OK;
  ck_device_set set = {0};
  size_t *indices = NULL, count = 0;
  ck_session *made = NULL;
  CK__REQUIRE(session);
  *session = NULL;
  CK_TRY(ck__device_enumerate_for(selector, &set));
  indices = calloc(set.count, sizeof *indices);
  made = calloc(1, sizeof *made);
  if (!indices || !made)
    CK_FAIL(CK_ERROR_OUT_OF_MEMORY, "out of host memory for a session");
  CK_TRY(ck_device_select(&set, selector, indices, set.count, &count));
  made->devices = calloc(count, sizeof *made->devices);
  made->kept = calloc(count, sizeof *made->kept);
  if (!made->devices || !made->kept)
    CK_FAIL(CK_ERROR_OUT_OF_MEMORY, "out of host memory for a session");
  made->count = count;
  made->references = 1;
  made->stats.devices = count;
  pthread_mutex_lock(&lock);
  made->id = ++last_id;
  for (size_t i = 0; i < count; ++i) {
    made->devices[i] = set.devices[indices[i]];
    made->devices[i].session = made->id;
    made->kept[i].session = made;
    made->kept[i].home.device = made->devices[i];
    made->kept[i].home.ops = ck__queue_ops_for(&made->devices[i]);
  }
  made->next = registry;
  registry = made;
  pthread_mutex_unlock(&lock);
  *session = made;
  made = NULL;
fail:
  if (made) {
    free(made->devices);
    free(made->kept);
    free(made);
  }
  free(indices);
  ck_device_set_free(&set);
  return status;
}

ck_status ck_session_destroy(ck_session *session) {
  trash bin = {0};
  if (!session)
    return CK_OK;
  pthread_mutex_lock(&lock);
  for (ck_session **at = &registry; *at; at = &(*at)->next)
    if (*at == session) {
      *at = session->next;
      break;
    }
  session->closed = 1;
  /* What no queue holds goes now, the rest as each queue is given back:
   * out of the registry, the session gains no more. */
  for (size_t i = 0; i < session->count; ++i) {
    ck__session_device *kept = &session->kept[i];
    discard_programs(kept, IDLE, &bin);
    discard_buffers(kept, 0, (unsigned long long)-1, &bin);
    discard_spares(kept, 1, &bin);
    if (!kept->home_lent && kept->home_made) {
      kept->home.ops->destroy(&kept->home);
      kept->home_made = 0;
    }
  }
  pthread_mutex_unlock(&lock);
  trash_empty(&bin);
  release(session);
  return CK_OK;
}

ck_status ck_session_get_devices(const ck_session *session,
                                 const ck_device **devices, size_t *count) {
  CK__REQUIRE(session);
  CK__REQUIRE(devices);
  CK__REQUIRE(count);
  *devices = session->devices;
  *count = session->count;
  return CK_OK;
}

ck_status ck_session_query(const ck_session *session, ck_session_stats *stats) {
  CK__REQUIRE(session);
  CK__REQUIRE(stats);
  pthread_mutex_lock(&lock);
  *stats = session->stats;
  stats->programs = 0;
  for (size_t i = 0; i < session->count; ++i)
    stats->programs += session->kept[i].program_count;
  pthread_mutex_unlock(&lock);
  return CK_OK;
}

_Thread_local ck_session *ck__session_running;

ck_status ck__session_run_begin(const ck_device *device, ck_session **outer) {
  assert(device && outer);
  ck_session *session = NULL;
  *outer = ck__session_running;
  if (device->session) {
    pthread_mutex_lock(&lock);
    session = find(device->session);
    if (session) {
      ++session->stats.runs;
      ++session->references;
    }
    pthread_mutex_unlock(&lock);
    if (!session)
      return destroyed(device);
  }
  ck__session_running = session;
  return CK_OK;
}

void ck__session_run_end(ck_session *outer) {
  ck_session *session = ck__session_running;
  ck__session_running = outer;
  if (session)
    release(session);
}

/* Under the lock: the session of number id for a queue of the calling
 * thread: a live one, or the one its run began on, though destroyed. */
static ck_session *find_for_queue(unsigned long long id) {
  ck_session *session = find(id);
  if (!session && ck__session_running && ck__session_running->id == id)
    session = ck__session_running;
  return session;
}

/* Under the lock: a spare queue of home's state for queue, which it then
 * holds (1), or 0 where there is none. */
static int spare_lend(ck__session_device *kept, ck_queue *queue) {
  assert(kept && queue && kept->home_lent); /* home is lent first */
  kept_queue *spare = kept->spares;
  if (!spare || !kept->home_made || spare->generation != kept->generation)
    return 0;
  kept->spares = spare->next;
  --kept->spare_count;
  queue->backend = spare->backend;
  queue->generation = spare->generation;
  free(spare);
  return 1;
}

ck_status ck__session_queue_take(ck_queue *queue) {
  assert(queue && queue->ops && queue->device.session && !queue->kept);
  ck_status status = CK_OK;
  pthread_mutex_lock(&lock);
  ck_session *session = find_for_queue(queue->device.session);
  ck__session_device *kept = session ? share_of(session, &queue->device) : NULL;
  if (!kept) {
    pthread_mutex_unlock(&lock);
    if (session)
      return ck__fail(CK_ERROR_INVALID_ARGUMENT,
                      "device %s is not one of session %llu's devices",
                      queue->device.id, queue->device.session);
    return destroyed(&queue->device);
  }
  if (session->closed) {
    /* A run that began before the session was destroyed finishes: the
     * queues it makes since are its own. */
    pthread_mutex_unlock(&lock);
    return queue->ops->create(queue);
  }
  ++session->references;
  queue->kept = kept;
  while (kept->home_making)
    pthread_cond_wait(&settled, &lock);
  if (!kept->home_lent) {
    kept->home_lent = 1;
    ++kept->lendings;
    queue->home = 1;
    queue->backend = kept->home.backend;
    if (kept->home_made) {
      queue->generation = kept->generation;
      ++session->stats.queues_lent;
    }
  } else if (spare_lend(kept, queue)) {
    ++session->stats.queues_lent;
    pthread_mutex_unlock(&lock);
    return CK_OK;
  } else if (kept->home_made && queue->ops->create_beside) {
    /* Under the lock: home's state cannot go meanwhile. */
    status = queue->ops->create_beside(queue, &kept->home);
    session->stats.queues_made += status == CK_OK;
    queue->generation = kept->generation;
    pthread_mutex_unlock(&lock);
    goto done;
  }
  int make = !queue->home || !kept->home_made;
  if (make && queue->home)
    kept->home_making = 1;
  pthread_mutex_unlock(&lock);
  if (make) {
    status = queue->ops->create(queue);
    pthread_mutex_lock(&lock);
    session->stats.queues_made += status == CK_OK;
    if (status == CK_OK && queue->home) {
      kept->home.backend = queue->backend;
      kept->home_made = 1;
      queue->generation = ++kept->generation;
    }
    if (queue->home) {
      kept->home_making = 0;
      pthread_cond_broadcast(&settled);
    }
    pthread_mutex_unlock(&lock);
  }
done:
  if (status != CK_OK) {
    pthread_mutex_lock(&lock);
    if (queue->home)
      kept->home_lent = 0;
    pthread_mutex_unlock(&lock);
    queue->kept = NULL;
    queue->home = 0;
    queue->generation = 0;
    queue->backend = NULL;
    release(session);
  }
  return status;
}

void ck__session_queue_give(ck_queue *queue) {
  assert(queue && queue->kept && queue->kept->session);
  ck__session_device *kept = queue->kept;
  ck_session *session = kept->session;
  trash bin = {0};
  void *broken = NULL;
  int finished = 1, destroy = 0;
  /* A queue made beside home's state may serve as a spare. */
  int beside = !queue->home && queue->generation;
  if (queue->home || beside) {
    /* Its work done, a kept state serves the next queue as new. A failure
     * here is not the caller's: its own failure stays the last. */
    ck__error_saved saved;
    ck__error_save(&saved);
    finished = queue->ops->finish(queue) == CK_OK;
    ck__error_restore(&saved);
  }
  pthread_mutex_lock(&lock);
  for (kept_buffer *entry = kept->buffers; entry; entry = entry->next)
    if (entry->from == queue)
      entry->from = NULL; /* its work is done */
  if (queue->home) {
    if (!finished || session->closed) {
      destroy = 1;
      broken = kept->home.backend;
      kept->home.backend = NULL;
      kept->home_made = 0;
    }
    kept->home_lent = 0;
  } else if (beside && finished && !session->closed && kept->home_made &&
             queue->generation == kept->generation &&
             kept->spare_count < KEPT_SPARES) {
    kept_queue *spare = calloc(1, sizeof *spare);
    if (spare) {
      *spare = (kept_queue){.owner = kept,
                            .backend = queue->backend,
                            .generation = queue->generation,
                            .next = kept->spares};
      kept->spares = spare;
      ++kept->spare_count;
      queue->backend = NULL;
    }
  }
  if (session->closed || destroy) {
    /* What the state held serves no later queue. */
    discard_programs(kept, IDLE, &bin);
    discard_buffers(kept, 0, (unsigned long long)-1, &bin);
    discard_spares(kept, 1, &bin);
  } else if (queue->home) {
    /* The buffers kept are those the last lending gave back. */
    discard_buffers(kept, 0, kept->lendings, &bin);
  }
  pthread_mutex_unlock(&lock);
  trash_empty(&bin);
  if (destroy) {
    ck_queue dead = *queue;
    dead.backend = broken;
    queue->ops->destroy(&dead);
  } else if (!queue->home && queue->backend) {
    queue->ops->destroy(queue); /* neither home's nor kept as a spare */
  }
  queue->backend = NULL;
  release(session);
}

/* Under the lock: the device's kept program of key built, or being built,
 * in the state of generation, or NULL. */
static kept_program *program_of(ck__session_device *kept,
                                unsigned long long generation,
                                const uint8_t key[32]) {
  for (kept_program *entry = kept->programs; entry; entry = entry->next)
    if (entry->generation == generation && memcmp(entry->key, key, 32) == 0)
      return entry;
  return NULL;
}

int ck__session_program_take(ck_program *program, const uint8_t key[32]) {
  assert(program && program->queue && program->queue->kept && key);
  ck__session_device *kept = program->queue->kept;
  ck_session *session = kept->session;
  unsigned long long generation = program->queue->generation;
  int served = 0;
  pthread_mutex_lock(&lock);
  for (;;) {
    kept_program *entry = program_of(kept, generation, key);
    if (entry && !entry->building) {
      ++entry->users;
      entry->used = ++session->clock;
      program->handle = entry->handle;
      program->kept = entry;
      ++session->stats.programs_reused;
      served = 1;
      break;
    }
    /* A build of it under way on another thread serves this program too
     * once it ends; one of this thread's own is not waited for. */
    if (entry && !pthread_equal(entry->builder, pthread_self())) {
      pthread_cond_wait(&settled, &lock);
      continue;
    }
    if (!entry && !session->closed && generation) {
      /* The caller builds it: others wait for its build. */
      kept_program *made = calloc(1, sizeof *made);
      if (made) {
        *made = (kept_program){.owner = kept,
                               .generation = generation,
                               .users = 1,
                               .building = 1,
                               .builder = pthread_self(),
                               .next = kept->programs};
        memcpy(made->key, key, 32);
        kept->programs = made;
        program->kept = made;
      }
    }
    break;
  }
  pthread_mutex_unlock(&lock);
  return served;
}

/* Under the lock: unlinks a program being built, which no one else holds,
 * and wakes those that wait for it. */
static void unlink_building(ck__session_device *kept, kept_program *entry) {
  for (kept_program **at = &kept->programs; *at; at = &(*at)->next)
    if (*at == entry) {
      *at = entry->next;
      break;
    }
  pthread_cond_broadcast(&settled);
}

void ck__session_program_keep(ck_program *program) {
  assert(program && program->queue && program->queue->kept);
  kept_program *entry = program->kept; /* NULL: take() kept no place */
  ck__session_device *kept = program->queue->kept;
  ck_session *session = kept->session;
  trash bin = {0};
  int kept_it = 0;
  pthread_mutex_lock(&lock);
  ++session->stats.programs_built;
  if (entry && !session->closed && kept->program_count >= KEPT_PROGRAMS) {
    kept_program **oldest = NULL;
    for (kept_program **at = &kept->programs; *at; at = &(*at)->next)
      if (!(*at)->users && !(*at)->building &&
          (!oldest || (*at)->used < (*oldest)->used))
        oldest = at;
    if (oldest) {
      kept_program *gone = *oldest;
      *oldest = gone->next;
      gone->next = NULL;
      bin.programs = gone;
      --kept->program_count;
    }
  }
  if (entry && !session->closed && kept->program_count < KEPT_PROGRAMS) {
    entry->handle = program->handle;
    entry->building = 0;
    entry->used = ++session->clock;
    ++kept->program_count;
    pthread_cond_broadcast(&settled);
    kept_it = 1;
  } else if (entry) {
    /* No room, or closed: the program keeps its own build. */
    unlink_building(kept, entry);
    program->kept = NULL;
  }
  pthread_mutex_unlock(&lock);
  if (entry && !kept_it)
    free(entry);
  trash_empty(&bin);
}

void ck__session_program_give(ck_program *program) {
  assert(program && program->kept);
  kept_program *entry = program->kept;
  assert(entry->owner);
  ck__session_device *kept = entry->owner;
  trash bin = {0};
  int abandoned = entry->building; /* its build failed */
  pthread_mutex_lock(&lock);
  if (abandoned) {
    unlink_building(kept, entry);
  } else {
    --entry->users;
    if (kept->session->closed)
      discard_programs(kept, IDLE, &bin);
    else /* one of a state since destroyed serves no one */
      discard_programs(kept, STALE, &bin);
  }
  pthread_mutex_unlock(&lock);
  if (abandoned)
    free(entry);
  trash_empty(&bin);
  program->kept = NULL;
  program->handle = NULL;
}

/* Buffers of ref are plain host memory, which malloc keeps as well; a
 * queue of its own shares none. */
static int keeps_buffers(const ck_queue *queue) {
  assert(queue);
  return queue->kept && queue->generation &&
         queue->device.backend != CK_BACKEND_REF;
}

int ck__session_buffer_take(ck_buffer *buffer) {
  ck_queue *queue = buffer->queue;
  if (!keeps_buffers(queue))
    return 0;
  ck__session_device *kept = queue->kept;
  kept_buffer *found = NULL;
  pthread_mutex_lock(&lock);
  for (kept_buffer **at = &kept->buffers; *at; at = &(*at)->next)
    if ((*at)->size == buffer->size && (*at)->generation == queue->generation &&
        (!(*at)->from || (*at)->from == queue)) {
      found = *at;
      *at = found->next;
      ck_session_stats *stats = &kept->session->stats;
      --stats->buffers;
      stats->buffer_bytes -= found->size;
      ++stats->buffers_reused;
      break;
    }
  pthread_mutex_unlock(&lock);
  if (!found)
    return 0;
  buffer->handle = found->handle;
  free(found);
  return 1;
}

int ck__session_buffer_give(ck_buffer *buffer) {
  ck_queue *queue = buffer->queue;
  if (!keeps_buffers(queue) || !buffer->handle)
    return 0;
  ck__session_device *kept = queue->kept;
  kept_buffer *entry = calloc(1, sizeof *entry);
  if (!entry)
    return 0;
  pthread_mutex_lock(&lock);
  int keeps = !kept->session->closed;
  if (keeps) {
    *entry = (kept_buffer){.owner = kept,
                           .size = buffer->size,
                           .handle = buffer->handle,
                           .generation = queue->generation,
                           .from = queue,
                           .given = kept->lendings,
                           .next = kept->buffers};
    kept->buffers = entry;
    ++kept->session->stats.buffers;
    kept->session->stats.buffer_bytes += buffer->size;
  }
  pthread_mutex_unlock(&lock);
  if (!keeps)
    free(entry);
  return keeps;
}

int ck__session_buffers_drop(ck_queue *queue) {
  if (!keeps_buffers(queue))
    return 0;
  trash bin = {0};
  pthread_mutex_lock(&lock);
  /* Every buffer no queue may still use, whenever it was given back. */
  discard_buffers(queue->kept, 0, (unsigned long long)-1, &bin);
  pthread_mutex_unlock(&lock);
  int dropped = bin.buffers != NULL;
  trash_empty(&bin);
  return dropped;
}
