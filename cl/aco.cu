/* aco.cu - native CUDA kernels of aco (in progress). */
#define CK_CUDA_NATIVE 1
