/*
 * real_variant.h - ref code written once for ck_real and compiled twice,
 * with CK_REAL_DOUBLE=0 and =1 (see src/meson.build). CK_VARIANT(name)
 * gives each build its own symbol: name_f32 or name_f64.
 */
#ifndef CK_REAL_VARIANT_H
#define CK_REAL_VARIANT_H

#include "ck_real.h"
#include "clkit/queue.h"

#if CK_REAL_DOUBLE
#define CK_VARIANT(name) name##_f64
#else
#define CK_VARIANT(name) name##_f32
#endif

/* The host memory behind a ref buffer, as the ref steps read it. */
static inline ck_real *ck__reals(ck_buffer *buffer) {
  void *pointer = NULL;
  ck_buffer_get_host_pointer(buffer, &pointer);
  return pointer;
}

static inline uint32_t *ck__words(ck_buffer *buffer) {
  void *pointer = NULL;
  ck_buffer_get_host_pointer(buffer, &pointer);
  return pointer;
}

#endif /* CK_REAL_VARIANT_H */
