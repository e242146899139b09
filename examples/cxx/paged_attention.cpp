// A torch extension in the style of an Ascend attention backend's C++ side:
// the paged-attention op keeps the workspace it was launched with so the
// captured graph can be re-pointed at replay. It reproduces the vLLM Ascend
// double conversion: the call site hands over weak_ref_tensor(workspace) and
// the store helper converts it again.
#include <ATen/ATen.h>
#include <torch/extension.h>

#include <cstdint>
#include <mutex>
#include <unordered_map>

namespace ascend_ext {

/// A tensor that aliases t's memory and owns none of it.
at::Tensor weak_ref_tensor(const at::Tensor &t) {
  return at::from_blob(t.data_ptr(), t.sizes(), t.strides(), t.options());
}

/// Workspaces of the captured graphs, per number of tokens. Kept weak: the
/// graph pool owns the memory once capture has ended.
class GraphWorkspaces {
public:
  void update(int64_t num_tokens, const at::Tensor &workspace) {
    std::lock_guard<std::mutex> lock(mu_);
    slots_[num_tokens] = weak_ref_tensor(workspace);
  }

  at::Tensor get(int64_t num_tokens) {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = slots_.find(num_tokens);
    return it == slots_.end() ? at::Tensor() : it->second;
  }

private:
  std::mutex mu_;
  std::unordered_map<int64_t, at::Tensor> slots_;
};

GraphWorkspaces &graph_workspaces() {
  static GraphWorkspaces instance;
  return instance;
}

at::Tensor paged_attention(const at::Tensor &query, const at::Tensor &key_cache,
                           const at::Tensor &value_cache, int64_t num_tokens) {
  at::Tensor workspace = at::empty({num_tokens, query.size(-1)}, query.options());
  at::Tensor out = at::empty_like(query);
  // ... launch the fused kernel with `workspace` ...
  graph_workspaces().update(num_tokens, weak_ref_tensor(workspace));
  return out;
}

} // namespace ascend_ext

PYBIND11_MODULE(ascend_ext, m) {
  m.def("paged_attention", &ascend_ext::paged_attention,
        "paged attention with a graph-captured workspace");
}
