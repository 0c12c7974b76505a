/* A weighted, shifted sphere: data holds dim weights, then dim centres. */
float objective(const float *x, int dim, __global const float *data) {
  float s = 0.0f;
  for (int i = 0; i < dim; ++i) {
    float t = x[i] - data[dim + i];
    s += data[i] * t * t;
  }
  return s;
}
