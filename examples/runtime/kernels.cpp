#include "kernels.h"

#include <cmath>

namespace demo::kernels {

void linear(const aclsim::KernelArgs &a) {
  const float *x = static_cast<const float *>(a.ptr[0]);
  const float *w = static_cast<const float *>(a.ptr[1]);
  float *y = static_cast<float *>(a.ptr[2]);
  const int64_t rows = a.i[0], h = a.i[1];
  for (int64_t b = 0; b < rows; ++b)
    for (int64_t j = 0; j < h; ++j) {
      float s = 0;
      for (int64_t k = 0; k < h; ++k)
        s += x[b * h + k] * w[k * h + j];
      y[b * h + j] = s;
    }
}

void attention(const aclsim::KernelArgs &a) {
  const float *q = static_cast<const float *>(a.ptr[0]);
  const float *K = static_cast<const float *>(a.ptr[1]);
  const float *V = static_cast<const float *>(a.ptr[2]);
  float *ws = static_cast<float *>(a.ptr[3]);
  float *out = static_cast<float *>(a.ptr[4]);
  const int64_t rows = a.i[0], h = a.i[1], maxSeq = a.i[2], seq = a.i[3];
  const float scale = 1.0f / std::sqrt(static_cast<float>(h));
  for (int64_t b = 0; b < rows; ++b) {
    float *score = ws + b * maxSeq;
    float mx = -INFINITY;
    for (int64_t t = 0; t < seq; ++t) {
      float s = 0;
      for (int64_t k = 0; k < h; ++k)
        s += q[b * h + k] * K[t * h + k];
      score[t] = s * scale;
      mx = std::fmax(mx, score[t]);
    }
    float sum = 0;
    for (int64_t t = 0; t < seq; ++t) {
      score[t] = std::exp(score[t] - mx);
      sum += score[t];
    }
    for (int64_t j = 0; j < h; ++j) {
      float acc = 0;
      for (int64_t t = 0; t < seq; ++t)
        acc += score[t] * V[t * h + j];
      out[b * h + j] = acc / sum;
    }
  }
}

void attentionTiled(const aclsim::KernelArgs &a) {
  aclsim::KernelArgs b = a;
  float *ws = static_cast<float *>(a.ptr[3]);
  b.i[3] = static_cast<int64_t>(ws[0]);
  b.ptr[3] = ws + kTilingFloats;
  attention(b);
}

void add(const aclsim::KernelArgs &a) {
  const float *x = static_cast<const float *>(a.ptr[0]);
  const float *y = static_cast<const float *>(a.ptr[1]);
  float *z = static_cast<float *>(a.ptr[2]);
  for (int64_t i = 0; i < a.i[0]; ++i)
    z[i] = x[i] + y[i];
}

} // namespace demo::kernels
