/* aco_cuda.c - native CUDA steps of aco (in progress). */
#include "aco/aco_internal.h"
