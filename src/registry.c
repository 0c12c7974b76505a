/*
 * registry.c - the workloads clkit runs, in the order they are listed:
 * the one place above the framework that names each of them.
 */
#include "framework/framework.h"

const ck_workload *const ck__workloads[] = {
    &ck__selfcheck_workload, &ck__pso_workload, &ck__ga_workload,
    &ck__aco_workload,       &ck__nn_workload,  &ck__gas_workload,
};
const size_t ck__workload_count =
    sizeof ck__workloads / sizeof ck__workloads[0];
