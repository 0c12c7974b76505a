/*
 * race.cl - deliberately broken: every slot of local memory is set and
 * fenced, then each work-item overwrites its own slot and reads its
 * neighbour's with no barrier in between, a read-write data race (and no
 * uninitialised read). The kernel check must report it.
 */
__kernel __attribute__((reqd_work_group_size(64, 1, 1)))
void race(__global uint *out, uint count) {
  __local uint slots[64];
  uint item = (uint)get_global_id(0);
  uint local_id = (uint)get_local_id(0);
  slots[local_id] = 0u;
  barrier(CLK_LOCAL_MEM_FENCE);
  slots[local_id] = item;
  /* missing: barrier(CLK_LOCAL_MEM_FENCE); */
  if (item < count)
    out[item] = slots[(local_id + 1u) % 64u];
}
