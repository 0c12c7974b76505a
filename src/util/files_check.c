/*
 * files_check.c - checks of file names before a run: that an output's
 * extension names its format, and whether two names spell one file.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "util/util.h"

/* ---- formats named by extensions ----------------------------------------
 * The extensions that name a file format, as readers (image viewers, ASE,
 * spreadsheets) take them. An output of a fixed format whose name ends in
 * another's would be read as that one, or refused by its reader. */
typedef struct known_extension {
  const char *extension; /* lower case, without the dot */
  const char *format;    /* the format in words */
} known_extension;

static const known_extension known_extensions[] = {
    {"csv", "CSV"},
    {"tsv", "tab-separated values"},
    {"txt", "plain text"},
    {"json", "JSON"},
    {"jsonl", "JSON lines"},
    {"xml", "XML"},
    {"html", "HTML"},
    {"htm", "HTML"},
    {"yaml", "YAML"},
    {"yml", "YAML"},
    {"xlsx", "Excel"},
    {"xls", "Excel"},
    {"xyz", "extended XYZ"},
    {"extxyz", "extended XYZ"},
    {"dcd", "DCD"},
    {"pdb", "PDB"},
    {"gro", "GROMACS"},
    {"xtc", "XTC"},
    {"trr", "TRR"},
    {"lammpstrj", "LAMMPS dump"},
    {"nc", "NetCDF"},
    {"h5", "HDF5"},
    {"hdf5", "HDF5"},
    {"npy", "NumPy"},
    {"npz", "NumPy"},
    {"png", "PNG"},
    {"jpg", "JPEG"},
    {"jpeg", "JPEG"},
    {"gif", "GIF"},
    {"bmp", "BMP"},
    {"tif", "TIFF"},
    {"tiff", "TIFF"},
    {"webp", "WebP"},
    {"svg", "SVG"},
    {"pdf", "PDF"},
    {"eps", "PostScript"},
    {"ps", "PostScript"},
    {"ckg", "a gas checkpoint"},
    {"ckn", "a clkit model"},
    {"safetensors", "safetensors"},
    {"pt", "PyTorch"},
    {"pth", "PyTorch"},
    {"onnx", "ONNX"},
    {"tour", "a TSPLIB tour"},
    {"tsp", "a TSPLIB instance"},
    {"cl", "OpenCL C"},
    {"bin", "binary data"},
    {"gz", "gzip"},
    {"bz2", "bzip2"},
    {"xz", "xz"},
    {"zst", "Zstandard"},
    {"zip", "ZIP"},
};

/* The formats of clkit's outputs: the extensions each may end in, space
 * separated (a CSV or a column of values is plain text too). */
static const struct {
  const char *name;     /* as ck_file_check_format takes it */
  const char *words;    /* the format in words */
  const char *accepted; /* extensions, space separated, lower case */
} output_formats[] = {
    {"csv", "CSV", "csv txt"},
    {"text", "plain text", "txt csv"},
    {"xyz", "extended XYZ", "xyz extxyz"},
    {"png", "PNG", "png"},
    {"svg", "SVG", "svg"},
    {"chart", "an SVG or PNG chart", "svg png"},
    {"tour", "a TSPLIB tour", "tour txt"},
    {"gas-checkpoint", "a gas checkpoint", "ckg bin"},
    {"model", "a clkit model or safetensors", "ckn safetensors bin"},
    {"lsq-binary", "clkit's binary least-squares data", "bin"},
};

ck_status ck_file_check_format(const char *path, const char *format) {
  CK__REQUIRE(path);
  CK__REQUIRE(format);
  size_t f = 0, formats = sizeof output_formats / sizeof output_formats[0];
  while (f < formats && strcmp(output_formats[f].name, format) != 0)
    ++f;
  if (f == formats) {
    ck__fail(CK_ERROR_INVALID_ARGUMENT,
             "ck_file_check_format: unknown format '%s'; one of:", format);
    for (f = 0; f < formats; ++f)
      ck__fail_append(" %s", output_formats[f].name);
    return CK_ERROR_INVALID_ARGUMENT;
  }
  /* The extension of the name's last part, where it has one: a leading
   * dot (".hidden") begins a name, not an extension. */
  const char *slash = strrchr(path, '/');
  const char *name = slash ? slash + 1 : path;
  const char *dot = strrchr(name, '.');
  if (!dot || dot == name || !dot[1])
    return CK_OK;
  /* In lower case, as the tables spell them; none is as long as 16. */
  const char *extension = dot + 1;
  size_t length = strlen(extension);
  char lower[16];
  if (length >= sizeof lower)
    return CK_OK;
  for (size_t i = 0; i <= length; ++i)
    lower[i] = (char)tolower((unsigned char)extension[i]);
  const char *accepted = output_formats[f].accepted;
  if (ck__text_list_holds(accepted, lower, length))
    return CK_OK;
  const known_extension *known = NULL;
  for (size_t k = 0;
       !known && k < sizeof known_extensions / sizeof known_extensions[0]; ++k)
    if (strcmp(known_extensions[k].extension, lower) == 0)
      known = &known_extensions[k];
  if (!known)
    return CK_OK; /* a name of the caller's own: nothing says otherwise */
  ck__fail(CK_ERROR_INVALID_ARGUMENT,
           "'%s' ends in .%s (%s), but the file is %s: end its name in", path,
           extension, known->format, output_formats[f].words);
  for (const char *at = accepted; *at;) {
    size_t span = strcspn(at, " ");
    ck__fail_append("%s.%.*s", at == accepted ? " " : " or ", (int)span, at);
    at += span + (at[span] == ' ');
  }
  return CK_ERROR_INVALID_ARGUMENT;
}

/* The path with its directories resolved into *resolved: the whole
 * path's real path when it exists, else its directory's followed by its
 * last name; NULL when neither resolves. Memory that runs out fails with
 * CK_ERROR_OUT_OF_MEMORY: it must not pass for a path that does not
 * resolve, which ck_file_check_same takes for another file. */
static ck_status resolved_path(const char *path, char **resolved) {
  ck_status status = CK_OK;
  char *directory = NULL, *real = NULL;
  if ((*resolved = realpath(path, NULL)))
    return CK_OK;
  if (errno == ENOMEM)
    CK_FAIL(CK_ERROR_OUT_OF_MEMORY, "out of memory resolving %s", path);
  const char *slash = strrchr(path, '/');
  directory = slash ? strndup(path, slash == path ? 1 : (size_t)(slash - path))
                    : strdup(".");
  if (!directory)
    CK_FAIL(CK_ERROR_OUT_OF_MEMORY, "out of memory resolving %s", path);
  if ((real = realpath(directory, NULL))) {
    const char *name = slash ? slash + 1 : path;
    size_t length = strlen(real) + strlen(name) + 2;
    if (!(*resolved = malloc(length)))
      CK_FAIL(CK_ERROR_OUT_OF_MEMORY, "out of memory resolving %s", path);
    snprintf(*resolved, length, "%s/%s", real, name);
  } else if (errno == ENOMEM) {
    CK_FAIL(CK_ERROR_OUT_OF_MEMORY, "out of memory resolving %s", path);
  }
fail:
  free(real);
  free(directory);
  return status;
}

ck_status ck_file_check_same(const char *first, const char *second, int *same) {
  CK__REQUIRE(first);
  CK__REQUIRE(second);
  CK__REQUIRE(same);
  *same = strcmp(first, second) == 0;
  /* "-" is a standard stream, which no other name spells; a file named
   * "-" in the working directory is not it. */
  if (*same || strcmp(first, "-") == 0 || strcmp(second, "-") == 0)
    return CK_OK;
  struct stat first_stat, second_stat;
  if (stat(first, &first_stat) == 0 && stat(second, &second_stat) == 0) {
    /* Links and other spellings of one existing file. */
    *same = first_stat.st_dev == second_stat.st_dev &&
            first_stat.st_ino == second_stat.st_ino;
    return CK_OK;
  }
  /* A file not made yet: where an output would make it, through a
   * dangling link too (a link "alias" to "best" names best). */
  ck_status status = CK_OK;
  char *target_first = ck__file_output_target(first), *target_second = NULL;
  char *resolved_first = NULL, *resolved_second = NULL;
  if (!target_first || !(target_second = ck__file_output_target(second)))
    CK_FAIL(CK_ERROR_OUT_OF_MEMORY, "out of memory resolving %s and %s", first,
            second);
  CK_TRY(resolved_path(target_first, &resolved_first));
  CK_TRY(resolved_path(target_second, &resolved_second));
  *same = resolved_first && resolved_second &&
          strcmp(resolved_first, resolved_second) == 0;
fail:
  free(target_first);
  free(target_second);
  free(resolved_first);
  free(resolved_second);
  return status;
}
