/*
 * uninit.cl - deliberately broken: only work-item 0 fills its slot of
 * local memory, yet every work-item reads its own slot and stores it, so
 * 63 of them copy uninitialised values. The kernel check must report it.
 */
__kernel __attribute__((reqd_work_group_size(64, 1, 1)))
void uninit(__global uint *out, uint count) {
  __local uint slots[64];
  uint item = (uint)get_global_id(0);
  uint local_id = (uint)get_local_id(0);
  if (local_id == 0)
    slots[0] = item;
  barrier(CLK_LOCAL_MEM_FENCE);
  if (item < count)
    out[item] = slots[local_id];
}
