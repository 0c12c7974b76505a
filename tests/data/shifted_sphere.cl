/* A sphere shifted to 0.5 in every coordinate; it takes no data, so the
 * optimisers evaluate it where they make each point. */
float objective(const float *x, int dim) {
  float s = 0.0f;
  for (int i = 0; i < dim; ++i)
    s += (x[i] - 0.5f) * (x[i] - 0.5f);
  return s;
}
