// Twin design maybe-null, C++ side (Python side: design.py).
//
// Models the first draft of the #5522 fix in vLLM Ascend, written against
// torch_npu's C++ API: GraphParams holds one workspace slot per capture size,
// initialised to an undefined tensor; after the capture every slot is turned
// into a weak reference, but a size whose graph never made a workspace still
// holds an undefined tensor.
//
// Expected: `weaken`, the conversion of a slot that may be undefined, is
// tether-weak-ref-of-maybe-null. The fixed twin (the merged fix) skips empty
// slots before converting (`fixed-weaken`): silent.
#include "torch_npu_stub.h"

at::Tensor weak_ref_tensor(const at::Tensor &t);

struct GraphParams {
  explicit GraphParams(const std::vector<int64_t> &sizes) {
    for (int64_t size : sizes)
      workspaces[size] = at::Tensor();
  }
  std::map<int64_t, at::Tensor> workspaces;
};

void weak_ref_workspaces(GraphParams *params) {
  if (!params)
    return;
  for (auto &[num_tokens, workspace] : params->workspaces)
    workspace = weak_ref_tensor(workspace); // TWIN: weaken
}

//===--- the fix ------------------------------------------------------------===//
void weak_ref_workspaces_fixed(GraphParams *params) {
  if (!params)
    return;
  for (auto &[num_tokens, workspace] : params->workspaces) {
    if (!workspace.defined())
      continue;
    workspace = weak_ref_tensor(workspace); // TWIN: fixed-weaken
  }
}

void after_capture(const std::vector<int64_t> &sizes) {
  GraphParams params(sizes);
  weak_ref_workspaces(&params); // TWIN: weaken-call
  weak_ref_workspaces_fixed(&params); // TWIN: fixed-call
}
