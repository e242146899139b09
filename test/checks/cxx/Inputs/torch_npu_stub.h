// A small stand-in for the parts of ATen, torch_npu and ACL the checks look
// at, so most check tests parse in milliseconds. The real headers are
// exercised by the *-libtorch.cpp tests. Included as a system header
// (-isystem), like the real ones.
#pragma once
#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <unordered_map>
#include <utility>
#include <vector>

namespace c10 {
using IntArrayRef = std::vector<int64_t>;
struct TensorOptions {};
struct Stream {};
struct StreamGuard {
  explicit StreamGuard(Stream) {}
};
} // namespace c10

namespace at {
using c10::IntArrayRef;
using c10::TensorOptions;
class Tensor {
public:
  Tensor() = default;
  Tensor(const Tensor &) = default;
  Tensor(Tensor &&) = default;
  Tensor &operator=(const Tensor &) = default;
  Tensor &operator=(Tensor &&) = default;
  ~Tensor() {}
  void *data_ptr() const { return ptr_; }
  template <typename T> T *data_ptr() const { return static_cast<T *>(ptr_); }
  IntArrayRef sizes() const { return {}; }
  IntArrayRef strides() const { return {}; }
  TensorOptions options() const { return {}; }
  int64_t numel() const { return 0; }
  int64_t nbytes() const { return 0; }
  bool defined() const { return ptr_ != nullptr; }
  Tensor clone() const { return *this; }
  Tensor &copy_(const Tensor &src, bool non_blocking = false);
  Tensor slice(int64_t dim, int64_t start, int64_t end) const;
  Tensor narrow(int64_t dim, int64_t start, int64_t length) const;
  Tensor view(IntArrayRef size) const;
  Tensor reshape(IntArrayRef shape) const;
  Tensor transpose(int64_t dim0, int64_t dim1) const;
  Tensor contiguous() const;
  Tensor detach() const;
  void reset() { ptr_ = nullptr; }
  void set_data(const Tensor &new_data) const {}

private:
  void *ptr_ = nullptr;
};
Tensor empty(IntArrayRef sizes, TensorOptions options = {});
Tensor zeros(IntArrayRef sizes, TensorOptions options = {});
Tensor from_blob(void *data, IntArrayRef sizes,
                 const TensorOptions &options = {});
Tensor from_blob(void *data, IntArrayRef sizes, IntArrayRef strides,
                 const TensorOptions &options = {});
Tensor from_blob(void *data, IntArrayRef sizes,
                 const std::function<void(void *)> &deleter,
                 const TensorOptions &options = {});
// The builder behind from_blob (ATen/ops/from_blob.h).
class TensorMaker {
public:
  TensorMaker &strides(IntArrayRef) noexcept { return *this; }
  TensorMaker &storage_offset(int64_t) noexcept { return *this; }
  TensorMaker &deleter(std::function<void(void *)>) noexcept { return *this; }
  TensorMaker &context(void *, void (*)(void *) = nullptr) noexcept {
    return *this;
  }
  TensorMaker &options(TensorOptions) noexcept { return *this; }
  Tensor make_tensor();
};
TensorMaker for_blob(void *data, IntArrayRef sizes) noexcept;
} // namespace at

namespace torch {
using at::Tensor;
using at::from_blob;
} // namespace torch

// torch_npu
namespace c10_npu {
struct NPUStream {
  operator c10::Stream() const { return {}; }
};
NPUStream getCurrentNPUStream();
NPUStream getStreamFromPool();
void setCurrentNPUStream(NPUStream);
struct NPUStreamGuard {
  explicit NPUStreamGuard(NPUStream) {}
};
struct NPUGraph {
  void capture_begin();
  void capture_end();
  void replay();
  void reset();
};
} // namespace c10_npu

// ACL runtime (public CANN signatures, simplified).
using aclError = int;
using aclrtStream = void *;
using aclmdlRI = void *;
enum aclmdlRICaptureMode { ACL_MODEL_RI_CAPTURE_MODE_GLOBAL = 0 };
aclError aclmdlRICaptureBegin(aclrtStream stream, aclmdlRICaptureMode mode);
aclError aclmdlRICaptureEnd(aclrtStream stream, aclmdlRI *modelRI);
aclError aclmdlRICaptureTaskGrpBegin(aclrtStream stream);
aclError aclmdlRICaptureTaskGrpEnd(aclrtStream stream, void **handle);
aclError aclmdlRICaptureTaskUpdateBegin(aclrtStream stream, void *handle);
aclError aclmdlRICaptureTaskUpdateEnd(aclrtStream stream);
aclError aclmdlRIExecuteAsync(aclmdlRI modelRI, aclrtStream stream);
aclError aclmdlRIDestroy(aclmdlRI modelRI);
enum aclrtMemMallocPolicy { ACL_MEM_MALLOC_HUGE_FIRST = 0 };
aclError aclrtMalloc(void **devPtr, size_t size, aclrtMemMallocPolicy policy);
aclError aclrtFree(void *devPtr);
// An aclnn op's launch: its workspace is a raw address.
aclError aclnnAdd(void *workspace, uint64_t workspaceSize, void *executor,
                  aclrtStream stream);

// Ops that read their tensor arguments on the device.
namespace at_npu::native {
at::Tensor npu_fused_infer_attention_score(const at::Tensor &q,
                                           const at::Tensor &k,
                                           const at::Tensor &v,
                                           const at::Tensor &workspace);
int64_t npu_fused_infer_attention_score_get_max_workspace(const at::Tensor &q);
// The op command aclnn ops are queued with (EXEC_NPU_CMD): the handler is
// the launch, run when the command runs.
struct OpCommand {
  OpCommand &Name(const char *name);
  OpCommand &SetCustomHandler(std::function<int()> handler);
  void Run();
};
} // namespace at_npu::native

// Events, capture guards and workspace helpers (capture-lifetime checks).
namespace c10_npu {
struct NPUEvent {
  void record(NPUStream);
  void block(NPUStream);
};
struct NPUGraphCaptureGuard {
  explicit NPUGraphCaptureGuard(NPUGraph &g) : g_(g) { g_.capture_begin(); }
  ~NPUGraphCaptureGuard() { g_.capture_end(); }
  NPUGraph &g_;
};
} // namespace c10_npu
namespace at_npu::native {
// torch_npu's from_blob (torch_npu/csrc/aten/common/from_blob.h).
at::Tensor from_blob(void *data, at::IntArrayRef sizes,
                     const c10::TensorOptions &options = {});
at::Tensor from_blob(void *data, at::IntArrayRef sizes, at::IntArrayRef strides,
                     const c10::TensorOptions &options = {});
at::Tensor from_blob(void *data, at::IntArrayRef sizes,
                     const std::function<void(void *)> &deleter,
                     const c10::TensorOptions &options = {});
void npu_paged_attention(const at::Tensor &q, const at::Tensor &workspace);
} // namespace at_npu::native

// Capture predicates.
namespace c10_npu {
bool is_current_stream_capturing();
} // namespace c10_npu
namespace at::cuda {
enum class CaptureStatus { None = 0, Active = 1, Invalidated = 2 };
CaptureStatus currentStreamCaptureStatus();
} // namespace at::cuda
