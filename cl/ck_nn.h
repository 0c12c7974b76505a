/*
 * ck_nn.h - the per-element math of MLP training, shared by the OpenCL
 * kernels (nn.cl, nn_gemm.inc) and the ref steps (src/nn/nn_ref.c), so that
 * both backends apply the same activation, loss and optimiser formulas.
 *
 * Layouts (row-major): activations and deltas of a layer are count x
 * width; the weights of a layer are out x (in + 1), the bias in the last
 * column, so that one matrix product with a constant 1 input gives both
 * the weights' and the bias's gradient.
 */
#ifndef CK_NN_H
#define CK_NN_H

#include "ck_prelude.h"
#include "ck_real.h"

#define CK_NN_ACT_SIGMOID 0
#define CK_NN_ACT_TANH 1
#define CK_NN_ACT_RELU 2
#define CK_NN_ACT_IDENTITY 3

#define CK_NN_LOSS_CROSS_ENTROPY 0
#define CK_NN_LOSS_MSE 1

#define CK_NN_OPTIMIZER_SGD 0
#define CK_NN_OPTIMIZER_ADAM 1

CK_FN ck_real ck_nn_activate(int kind, ck_real z) {
  switch (kind) {
  case CK_NN_ACT_SIGMOID:
    return CK_R(1) / (CK_R(1) + CK_EXP(-z));
  case CK_NN_ACT_TANH:
    return CK_TANH(z);
  case CK_NN_ACT_RELU:
    return z > CK_R(0) ? z : CK_R(0);
  default:
    return z;
  }
}

/* The activation's derivative, from its output a (all three allow it). */
CK_FN ck_real ck_nn_slope(int kind, ck_real a) {
  switch (kind) {
  case CK_NN_ACT_SIGMOID:
    return a * (CK_R(1) - a);
  case CK_NN_ACT_TANH:
    return CK_R(1) - a * a;
  case CK_NN_ACT_RELU:
    return a > CK_R(0) ? CK_R(1) : CK_R(0);
  default:
    return CK_R(1);
  }
}

/*
 * One sample's output layer. row holds the output layer's values (z for
 * cross-entropy, sigmoid(z) for MSE), width entries; label is the true
 * class. Returns the sample's loss and stores the predicted class (the
 * first largest output). With delta_scale nonzero, row is overwritten by
 * dLoss/dz x delta_scale (1/batch, so that the products sum a mean):
 * softmax(z) - onehot for cross-entropy, (a - onehot) a (1 - a) for MSE.
 * The cross-entropy is log(sum exp(z - max)) + max - z_label, exact for
 * large logits.
 */
CK_FN ck_real ck_nn_output_row(int loss, CK_GLOBAL ck_real *row, int width,
                               int label, ck_real delta_scale, int *predicted) {
  ck_real top = row[0];
  int best = 0;
  for (int k = 1; k < width; ++k)
    if (row[k] > top) {
      top = row[k];
      best = k;
    }
  *predicted = best;
  ck_real value = CK_R(0);
  if (loss == CK_NN_LOSS_CROSS_ENTROPY) {
    ck_real sum = CK_R(0);
    for (int k = 0; k < width; ++k)
      sum += CK_EXP(row[k] - top);
    value = CK_LOG(sum) + top - row[label];
    if (delta_scale != CK_R(0))
      for (int k = 0; k < width; ++k) {
        ck_real p = CK_EXP(row[k] - top) / sum;
        row[k] = (p - (k == label ? CK_R(1) : CK_R(0))) * delta_scale;
      }
  } else {
    for (int k = 0; k < width; ++k) {
      ck_real a = row[k];
      ck_real error = a - (k == label ? CK_R(1) : CK_R(0));
      value += CK_R(0.5) * error * error;
      if (delta_scale != CK_R(0))
        row[k] = error * a * (CK_R(1) - a) * delta_scale;
    }
  }
  return value;
}

/*
 * One parameter's optimiser step, given its gradient (the mean over the
 * batch, weight decay included by the caller):
 *   SGD:  first = momentum first + g;  w -= rate first
 *   Adam: first = b1 first + (1 - b1) g;  second = b2 second + (1 - b2) g^2;
 *         w -= rate (first / c1) / (sqrt(second / c2) + epsilon),
 * with c1 = 1 - b1^t and c2 = 1 - b2^t the bias corrections of step t.
 * CK_NN_STEP is written once for any arithmetic type: weight, first and
 * second are lvalues of a real or, in the CPU kernels, of a vector of
 * reals (one parameter a lane), and second is touched only by Adam.
 */
#define CK_NN_STEP(optimizer, weight, first, second, gradient, rate, momentum, \
                   beta1, beta2, epsilon, correction1, correction2)            \
  do {                                                                         \
    if ((optimizer) == CK_NN_OPTIMIZER_ADAM) {                                 \
      (first) = (beta1) * (first) + (CK_R(1) - (beta1)) * (gradient);          \
      (second) =                                                               \
          (beta2) * (second) + (CK_R(1) - (beta2)) * (gradient) * (gradient);  \
      (weight) -= (rate) * ((first) / (correction1)) /                         \
                  (CK_SQRT((second) / (correction2)) + (epsilon));             \
    } else {                                                                   \
      (first) = (momentum) * (first) + (gradient);                             \
      (weight) -= (rate) * (first);                                            \
    }                                                                          \
  } while (0)

CK_FN void ck_nn_optimize(int optimizer, CK_GLOBAL ck_real *weight,
                          CK_GLOBAL ck_real *first, CK_GLOBAL ck_real *second,
                          ck_real gradient, ck_real rate, ck_real momentum,
                          ck_real beta1, ck_real beta2, ck_real epsilon,
                          ck_real correction1, ck_real correction2) {
  /* Each state read once and written once: through the pointers, which
   * may alias for all the compiler knows, the step would reload them. */
  ck_real w = *weight, m = *first;
  ck_real v = optimizer == CK_NN_OPTIMIZER_ADAM ? *second : CK_R(0);
  CK_NN_STEP(optimizer, w, m, v, gradient, rate, momentum, beta1, beta2,
             epsilon, correction1, correction2);
  *weight = w;
  *first = m;
  if (optimizer == CK_NN_OPTIMIZER_ADAM)
    *second = v;
}

#endif /* CK_NN_H */
