/*
 * ck_ga_migration.h - the halves of a GA migration, a bit each, for the
 * kernels and the host alike (plain C macros): the islands' best leave for
 * the migrant buffers (CK_GA_EMIGRATE), and each island's worst give way
 * to its source island's migrants (CK_GA_IMMIGRATE). The migration steps
 * make either or both; a resident island generation (ga.cl, ga.cu) makes
 * them too, receiving before its first generation and sending after its
 * last, while the island is in fast memory, so that a migration costs no
 * launches and no scattered reads and writes of the population.
 */
#ifndef CK_GA_MIGRATION_H
#define CK_GA_MIGRATION_H

#define CK_GA_IMMIGRATE 1u
#define CK_GA_EMIGRATE 2u

#endif /* CK_GA_MIGRATION_H */
