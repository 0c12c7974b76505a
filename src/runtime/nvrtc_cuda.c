/*
 * nvrtc_cuda.c - the CUDA backend's translation of programs: the cl/
 * sources, after ck_cuda_prelude.h, compiled by NVRTC with the same
 * defines as for OpenCL into machine code for a device's architecture, or
 * PTX for one newer than NVRTC knows. program_cuda.c loads what it makes;
 * ck__cuda_compile_check makes it with no device at all.
 */
#include <assert.h>
#include <nvrtc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/backend.h"

/* The oldest and newest architectures NVRTC builds for (sm_XY as XY), or
 * 0 and 0 where it cannot say. */
void ck__nvrtc_range(int *oldest, int *newest) {
  int count = 0, architectures[128];
  *oldest = *newest = 0;
  if (nvrtcGetNumSupportedArchs(&count) != NVRTC_SUCCESS || count <= 0 ||
      count > (int)(sizeof architectures / sizeof architectures[0]) ||
      nvrtcGetSupportedArchs(architectures) != NVRTC_SUCCESS)
    return;
  *oldest = *newest = architectures[0];
  for (int i = 1; i < count; ++i) {
    if (architectures[i] < *oldest)
      *oldest = architectures[i];
    if (architectures[i] > *newest)
      *newest = architectures[i];
  }
}

ck__cuda_reach ck__cuda_reach_of(int architecture, int nvrtc_oldest,
                                 int nvrtc_newest, int native_oldest) {
  if (architecture < nvrtc_oldest || architecture < native_oldest)
    return CK__CUDA_UNREACHABLE;
  if (nvrtc_newest > 0 && architecture > nvrtc_newest)
    return CK__CUDA_THROUGH_PTX;
  return CK__CUDA_MACHINE_CODE;
}

/* NVRTC options from clkit's build options: the defines and the flush of
 * subnormals, not OpenCL's other -cl-* switches. */
static ck_status nvrtc_options(int architecture, int as_ptx, const char *source,
                               const char *options, char *storage,
                               size_t storage_size, const char **list,
                               int *count) {
  assert(architecture > 0 && source && options && storage && list && count);
  /* Contraction as in OpenCL (ck_prelude.h): off, unless the program
   * lets GPUs fuse. */
  int fuse = strstr(source, "#define CK_FUSE_ON_GPU 1") != NULL;
  int written = snprintf(storage, storage_size,
                         "-arch=%s_%d -default-device -std=c++17 -fmad=%s %s",
                         as_ptx ? "compute" : "sm", architecture,
                         fuse ? "true" : "false", options);
  if (written < 0 || (size_t)written >= storage_size)
    return ck__fail(CK_ERROR_INVALID_ARGUMENT, "build options overflow");
  *count = 0;
  char *save = NULL;
  for (char *word = strtok_r(storage, " ", &save); word;
       word = strtok_r(NULL, " ", &save)) {
    /* OpenCL's flush of subnormals is NVRTC's -ftz; the other -cl-
     * switches have no counterpart that the programs need. */
    const char *option = word;
    if (strcmp(word, "-cl-denorms-are-zero") == 0)
      option = "-ftz=true";
    else if (strncmp(word, "-cl-", 4) == 0)
      continue;
    if (*count == 63)
      return ck__fail(CK_ERROR_INVALID_ARGUMENT, "too many build options");
    list[(*count)++] = option;
  }
  return CK_OK;
}

/* NVRTC writes positions as file(line); clkit's messages, like OpenCL
 * compilers', say file:line. Rewrites the log in place (it only
 * shrinks). */
static void colon_positions(char *log) {
  char *out = log;
  for (char *line = log; *line;) {
    char *end = strchr(line, '\n');
    size_t length = end ? (size_t)(end - line + 1) : strlen(line);
    char *open = memchr(line, '(', length);
    char *close =
        open ? memchr(open, ')', length - (size_t)(open - line)) : NULL;
    int digits = open && close > open + 1 && close[1] == ':';
    for (char *c = open ? open + 1 : NULL; digits && c < close; ++c)
      digits = *c >= '0' && *c <= '9';
    if (digits && memchr(line, ' ', (size_t)(open - line)) == NULL) {
      size_t head = (size_t)(open - line), number = (size_t)(close - open - 1);
      memmove(out, line, head);
      out[head] = ':';
      memmove(out + head + 1, open + 1, number);
      size_t rest = length - (size_t)(close + 1 - line);
      memmove(out + head + 1 + number, close + 1, rest);
      out += head + 1 + number + rest;
    } else {
      memmove(out, line, length);
      out += length;
    }
    line += length;
  }
  *out = '\0';
}

/* Compiles source (the prelude already in front) for sm_<architecture>
 * into *cubin: machine code, or PTX (NUL-ended, which the driver compiles
 * when it loads it) for a GPU newer than NVRTC knows, at the newest
 * architecture it does know, or where CK__TEST_CUDA_AS_PTX asks for it.
 * target names the device in messages. */
ck_status ck__nvrtc_compile(int architecture, const char *target,
                            const char *name, const char *source,
                            const char *options, void **cubin,
                            size_t *cubin_size) {
  assert(architecture > 0 && target && name && source && options);
  assert(cubin && cubin_size);
  ck_status status = CK_OK;
  nvrtcProgram compiled = NULL;
  char *log = NULL;
  char storage[2048];
  const char *list[64];
  int count = 0, nvrtc_oldest = 0, nvrtc_newest = 0;
  ck__nvrtc_range(&nvrtc_oldest, &nvrtc_newest);
  int ptx_for = (int)ck__test_value(CK__TEST_CUDA_AS_PTX);
  int as_ptx = ptx_for != 0;
  if (ck__cuda_reach_of(architecture, 0, nvrtc_newest, 0) ==
      CK__CUDA_THROUGH_PTX) {
    as_ptx = 1;
    architecture = nvrtc_newest;
  }
  if (ptx_for > 1 && ptx_for < architecture)
    architecture = ptx_for;
  CK_TRY(nvrtc_options(architecture, as_ptx, source, options, storage,
                       sizeof storage, list, &count));
  nvrtcResult result =
      nvrtcCreateProgram(&compiled, source, name, 0, NULL, NULL);
  if (result != NVRTC_SUCCESS)
    CK_FAIL(CK_ERROR_BUILD, "NVRTC refused program '%s': %s", name,
            nvrtcGetErrorString(result));
  result = nvrtcCompileProgram(compiled, count, list);
  if (result != NVRTC_SUCCESS) {
    size_t log_size = 0;
    nvrtcGetProgramLogSize(compiled, &log_size);
    log = malloc(log_size + 1);
    if (log && nvrtcGetProgramLog(compiled, log) == NVRTC_SUCCESS) {
      log[log_size] = '\0';
      colon_positions(log);
    }
    CK_FAIL(CK_ERROR_BUILD,
            "building program '%s' for %s failed: %s\noptions: %s\n"
            "build log:\n%s",
            name, target, nvrtcGetErrorString(result), options, log ? log : "");
  }
  if ((as_ptx ? nvrtcGetPTXSize(compiled, cubin_size)
              : nvrtcGetCUBINSize(compiled, cubin_size)) != NVRTC_SUCCESS)
    CK_FAIL(CK_ERROR_BUILD, "NVRTC gave no %s for program '%s'",
            as_ptx ? "PTX" : "machine code", name);
  if (!(*cubin = malloc(*cubin_size)))
    CK_FAIL(CK_ERROR_OUT_OF_MEMORY,
            "out of host memory for program '%s': %zu bytes of machine code",
            name, *cubin_size);
  if ((as_ptx ? nvrtcGetPTX(compiled, *cubin)
              : nvrtcGetCUBIN(compiled, *cubin)) != NVRTC_SUCCESS)
    CK_FAIL(CK_ERROR_BUILD, "NVRTC gave no %s for program '%s'",
            as_ptx ? "PTX" : "machine code", name);
  if (as_ptx)
    (void)ck__test_control(CK__TEST_CUDA_PTX_BUILDS,
                           ck__test_value(CK__TEST_CUDA_PTX_BUILDS) + 1);
fail:
  free(log);
  nvrtcDestroyProgram(&compiled);
  return status;
}

/* The prelude, then source: a malloc'd text in *full. The prelude is
 * backend plumbing, not a kernel: always the embedded copy, also where
 * CLKIT_KERNEL_DIR points at other sources. */
ck_status ck__nvrtc_with_prelude(const char *name, const char *source,
                                 char **full) {
  const ck__source *prelude = NULL;
  for (size_t i = 0; i < ck__embedded_source_count; ++i)
    if (strcmp(ck__embedded_sources[i].name, "ck_cuda_prelude.h") == 0)
      prelude = &ck__embedded_sources[i];
  if (!prelude)
    return ck__fail(CK_ERROR_NOT_FOUND, "ck_cuda_prelude.h is not embedded");
  size_t length = prelude->size + strlen(source) + 64;
  if (!(*full = malloc(length)))
    return ck__fail(CK_ERROR_OUT_OF_MEMORY,
                    "out of host memory for program '%s'", name);
  snprintf(*full, length, "#line 1 \"cl/ck_cuda_prelude.h\"\n%.*s\n%s",
           (int)prelude->size, prelude->text, source);
  return CK_OK;
}

ck_status ck__cuda_compile_check(const char *name, const char *prefix,
                                 const char *defines, int architecture) {
  ck_status status = CK_OK;
  char *source = NULL, *full = NULL;
  void *cubin = NULL;
  size_t cubin_size = 0;
  char target[32], options[1024];
  CK_TRY(ck__kernels_assemble_mapped(name, &source, NULL, NULL));
  if (prefix) {
    /* Before the program, as ck__program_build_prefixed places it. */
    size_t length = strlen(prefix) + strlen(source) + 2;
    char *joined = malloc(length);
    if (!joined)
      CK_FAIL(CK_ERROR_OUT_OF_MEMORY, "out of host memory for %s", name);
    snprintf(joined, length, "%s\n%s", prefix, source);
    free(source);
    source = joined;
  }
  CK_TRY(ck__nvrtc_with_prelude(name, source, &full));
  snprintf(target, sizeof target, "sm_%d", architecture);
  snprintf(options, sizeof options,
           "-DCK_DEVICE_GPU=1 -DCK_DEVICE_CPU=0 -DCK_HAS_FP64=1 "
           "-DCK_WARP_WIDTH=%d -DCK_MAX_WORK_GROUP=1024 "
           "-DCK_LOCAL_MEMORY=49152 %s",
           CK__CUDA_WARP, defines ? defines : "");
  CK_TRY(ck__nvrtc_compile(architecture, target, name, full, options, &cubin,
                           &cubin_size));
fail:
  free(cubin);
  free(full);
  free(source);
  return status;
}
