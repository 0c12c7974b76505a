/*
 * gas_fields.c - the defaults and ranges of ck_gas_config's fields, the one
 * place that gives them: ck_gas_config_init, the checks of ck_gas_create
 * and the gas workload's options read this table.
 */
#include <float.h>
#include <limits.h>
#include <stddef.h>

#include "gas/gas_internal.h"

static const ck__field_word lattices[] = {
    {"square", CK_GAS_SQUARE}, {"triangular", CK_GAS_TRIANGULAR}, {NULL, 0}};
static const ck__field_word models[] = {
    {"lj", CK_GAS_LENNARD_JONES}, {"log", CK_GAS_SOFT_LOG}, {NULL, 0}};
static const ck__field_word shifts[] = {{"energy", CK_GAS_SHIFT_ENERGY},
                                        {"force", CK_GAS_SHIFT_FORCE},
                                        {"none", CK_GAS_SHIFT_NONE},
                                        {NULL, 0}};
static const ck__field_word thermostats[] = {{"none", CK_GAS_NVE},
                                             {"langevin", CK_GAS_LANGEVIN},
                                             {"rescale", CK_GAS_RESCALE},
                                             {NULL, 0}};
static const ck__field_word neighbors[] = {{"auto", CK_GAS_NEIGHBORS_AUTO},
                                           {"cells", CK_GAS_CELLS},
                                           {"verlet", CK_GAS_VERLET},
                                           {"allpairs", CK_GAS_ALL_PAIRS},
                                           {NULL, 0}};

#define GAS_FIELD(member, kind, fallback, low, high)                           \
  CK__FIELD_OF(ck_gas_config, member, kind, fallback, low, high)

const ck__field ck__gas_fields[CK__GAS_FIELDS] = {
    [CK__GAS_PARTICLES] = {GAS_FIELD(particles, CK__FIELD_SIZE, 1024, 1,
                                     1 << 30)},
    /* Checked when the box comes from it (ck__gas_resolve_box). */
    [CK__GAS_DENSITY] = {GAS_FIELD(density, CK__FIELD_REAL, 0.7, 0, 1e6),
                         .flags = CK__FIELD_ABOVE | CK__FIELD_APART},
    /* 0 for both: the box comes from the density. */
    [CK__GAS_BOX_X] = {GAS_FIELD(box_x, CK__FIELD_REAL, 0, CK_GAS_MIN_SIDE,
                                 CK_GAS_MAX_SIDE),
                       .flags = CK__FIELD_APART | CK__FIELD_UNSET},
    [CK__GAS_BOX_Y] = {GAS_FIELD(box_y, CK__FIELD_REAL, 0, CK_GAS_MIN_SIDE,
                                 CK_GAS_MAX_SIDE),
                       .flags = CK__FIELD_APART | CK__FIELD_UNSET},
    [CK__GAS_LATTICE] = {CK__FIELD_ENUM(ck_gas_config, lattice,
                                        CK_GAS_TRIANGULAR, lattices)},
    [CK__GAS_TEMPERATURE] = {GAS_FIELD(temperature, CK__FIELD_REAL, 1.0, 0,
                                       CK_GAS_MAX_TEMPERATURE)},
    [CK__GAS_MODEL] = {CK__FIELD_ENUM(ck_gas_config, model,
                                      CK_GAS_LENNARD_JONES, models)},
    /* Lennard-Jones only. */
    [CK__GAS_RC] = {GAS_FIELD(rc, CK__FIELD_REAL, 2.5, CK_GAS_MIN_CUTOFF, 1e6),
                    .flags = CK__FIELD_APART},
    [CK__GAS_SHIFT] = {CK__FIELD_ENUM(ck_gas_config, shift, CK_GAS_SHIFT_ENERGY,
                                      shifts)},
    /* The soft-log model only. */
    [CK__GAS_STRENGTH] = {GAS_FIELD(strength, CK__FIELD_REAL, 1.0, -DBL_MAX,
                                    DBL_MAX),
                          .flags = CK__FIELD_APART},
    [CK__GAS_SOFTENING] = {GAS_FIELD(softening, CK__FIELD_REAL, 1.0, 0,
                                     DBL_MAX),
                           .flags = CK__FIELD_APART},
    [CK__GAS_DT] = {GAS_FIELD(dt, CK__FIELD_REAL, 0.005, 0, CK_GAS_MAX_DT),
                    .flags = CK__FIELD_ABOVE},
    [CK__GAS_WALLS] = {GAS_FIELD(walls, CK__FIELD_INT, 0, 0, 1)},
    [CK__GAS_THERMOSTAT] = {CK__FIELD_ENUM(ck_gas_config, thermostat,
                                           CK_GAS_NVE, thermostats)},
    /* Each where its thermostat uses it. */
    [CK__GAS_TARGET_TEMPERATURE] = {GAS_FIELD(target_temperature,
                                              CK__FIELD_REAL, 1.0, 0,
                                              CK_GAS_MAX_TEMPERATURE),
                                    .flags = CK__FIELD_APART},
    [CK__GAS_GAMMA] = {GAS_FIELD(gamma, CK__FIELD_REAL, 1.0, 0,
                                 CK_GAS_MAX_GAMMA),
                       .flags = CK__FIELD_ABOVE | CK__FIELD_APART},
    [CK__GAS_RESCALE_EVERY] = {GAS_FIELD(rescale_every, CK__FIELD_UINT, 10, 1,
                                         UINT_MAX),
                               .flags = CK__FIELD_APART},
    [CK__GAS_NEIGHBORS] = {CK__FIELD_ENUM(ck_gas_config, neighbors,
                                          CK_GAS_NEIGHBORS_AUTO, neighbors)},
    /* Verlet lists only, and at most rc (ck_gas_create). */
    [CK__GAS_SKIN] = {GAS_FIELD(skin, CK__FIELD_REAL, 0.3, 0, 1e6),
                      .flags = CK__FIELD_ABOVE | CK__FIELD_APART},
    [CK__GAS_SEED] = {GAS_FIELD(seed, CK__FIELD_UINT64, 1, 0, 0x1p64),
                      .flags = CK__FIELD_APART},
    [CK__GAS_XYZ_PATH] = {GAS_FIELD(xyz_path, CK__FIELD_TEXT, 0, 0, 0)},
};
