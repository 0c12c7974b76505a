/*
 * exchange_nccl.h - NCCL under the exchange (exchange_nccl.c; built where
 * CUDA and NCCL are found). The exchange reaches it through its ops
 * table, ck__exchange_nccl_ops (exchange_backend.h).
 */
#ifndef CK_EXCHANGE_NCCL_H
#define CK_EXCHANGE_NCCL_H

/* 1 when libnccl.so.2 could be opened (on first call). */
int ck__nccl_available(void);

#endif /* CK_EXCHANGE_NCCL_H */
