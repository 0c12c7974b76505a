/*
 * clkit/kernels.h - the OpenCL C sources embedded in the library.
 *
 * Every file of cl/ is compiled into libclkit. Setting CLKIT_KERNEL_DIR
 * makes clkit read them from that directory instead (for development).
 * Other tools may take a source from here and build it themselves: the
 * assembled form has its shared headers inlined and needs no other file,
 * only the build-time defines its header comment lists and the device
 * defines of docs/devices.md; the form assembled for a device has those
 * defines set already.
 */
#ifndef CLKIT_KERNELS_H
#define CLKIT_KERNELS_H

#include <stddef.h>

#include "clkit/device.h"
#include "clkit/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ck_kernels_count - how many source files are embedded (the count is
 * that of the embedded files, whatever CLKIT_KERNEL_DIR says).
 * Returns: CK_OK; CK_ERROR_INVALID_ARGUMENT if count is NULL. */
ck_status ck_kernels_count(size_t *count);

/*
 * ck_kernels_get - one embedded source by position (0 .. count-1).
 * Takes: index; name and text (static strings, owned by clkit) and size,
 * each optional.
 * Returns: CK_OK; CK_ERROR_NOT_FOUND if index is out of range.
 */
ck_status ck_kernels_get(size_t index, const char **name, const char **text,
                         size_t *size);

/*
 * ck_kernels_assemble - a program's source with every quoted #include of
 * a cl/ header replaced by that header's text (once per header, as if
 * guarded, but at every include for templates named *.inc), framed by
 * #line directives so that compiler messages name the real file and line
 * (cl/NAME for the embedded sources, the file read under
 * CLKIT_KERNEL_DIR otherwise).
 * Takes: name ("selfcheck" or "selfcheck.cl"); text (set to a malloc'd,
 * NUL-terminated string the caller releases with ck_memory_free()); size,
 * optional. Honours CLKIT_KERNEL_DIR.
 * Returns: CK_OK; CK_ERROR_INVALID_ARGUMENT for a NULL name or text, or a
 * name empty or over 60 characters; CK_ERROR_NOT_FOUND for an unknown file
 * or include; CK_ERROR_IO if CLKIT_KERNEL_DIR is set and a file cannot be
 * read; CK_ERROR_PARSE for an include cycle; CK_ERROR_OUT_OF_MEMORY. On
 * failure *text is NULL.
 */
ck_status ck_kernels_assemble(const char *name, char **text, size_t *size);

/*
 * ck_kernels_assemble_for_device - an OpenCL program's assembled source
 * (as ck_kernels_assemble gives it) made to build as it stands outside
 * clkit, with clCreateProgramWithSource and clBuildProgram or another
 * tool, on one device. A leading comment lists the options clkit builds
 * the program with on that device (docs/devices.md) and example values
 * of the program's own defines (clkit sets those per run; the program's
 * header comment says what each means); then each of those defines
 * comes as a #define, which a -D given to the build overrides.
 * Takes: name ("selfcheck" or "selfcheck.cl", a program of cl/); device,
 * an OpenCL device of a ck_device_set; text (set to a malloc'd,
 * NUL-terminated string the caller releases with ck_memory_free()); size,
 * optional. Honours CLKIT_KERNEL_DIR.
 * Returns: CK_OK; CK_ERROR_INVALID_ARGUMENT for a NULL argument or the
 * ref device, which builds no kernels; CK_ERROR_UNSUPPORTED for a CUDA
 * device; CK_ERROR_NOT_FOUND for a name that is not an OpenCL program of
 * cl/; the errors of ck_kernels_assemble. On failure *text is NULL.
 */
ck_status ck_kernels_assemble_for_device(const char *name,
                                         const ck_device *device, char **text,
                                         size_t *size);

/* ck_memory_free - release memory that clkit allocated and handed to the
 * caller (ck_kernels_assemble(), ck_kernels_assemble_for_device(),
 * ck_result_format_json(), ck_tsp_tour_load()): the same as free(), which
 * may be used instead. NULL is a no-op.
 * Returns: CK_OK. */
ck_status ck_memory_free(void *memory);

#ifdef __cplusplus
}
#endif
#endif /* CLKIT_KERNELS_H */
