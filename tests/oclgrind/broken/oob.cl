/*
 * oob.cl - deliberately broken: every work-item writes the element after
 * its own, so the last one writes one element past the end of the buffer.
 * The kernel check must report it (an invalid write).
 */
__kernel void oob(__global uint *out, uint count) {
  uint item = (uint)get_global_id(0);
  if (item < count)
    out[item + 1] = item;
}
