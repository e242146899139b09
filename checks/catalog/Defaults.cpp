//===- Defaults.cpp - The embedded default catalog -----------------------===//
//
// The real APIs of torch, torch_npu, vLLM, vLLM Ascend, the CUDA runtime and
// ACL. Unanchored names match at any scope boundary (see NameSet), so the C++
// "weak_ref_tensor" covers every namespace a binding puts it in.
//
//===----------------------------------------------------------------------===//
#include "Catalog.h"

using namespace tether;

static Catalog makeDefaults() {
  Catalog C;
  C.CapturePairs = {
      {"aclmdlRICaptureBegin", "aclmdlRICaptureEnd"},
      {"aclmdlRICaptureTaskGrpBegin", "aclmdlRICaptureTaskGrpEnd"},
      {"cudaStreamBeginCapture", "cudaStreamEndCapture"},
      {"cudaStreamBeginCaptureToGraph", "cudaStreamEndCapture"},
      // NPUGraph (c10_npu, torch.npu), CUDAGraph (at::cuda, torch.cuda):
      // methods, matched on the same receiver.
      {"capture_begin", "capture_end"},
  };
  C.TaskUpdatePairs = {
      // torch_npu (torch.npu.graph_task_update_begin(stream, handle)),
      // vLLM Ascend's update of captured attention tasks between replays.
      {"graph_task_update_begin", "graph_task_update_end"},
      {"aclmdlRICaptureTaskUpdateBegin", "aclmdlRICaptureTaskUpdateEnd"},
  };
  // Capture sessions: one pool, several graphs captured in turn.
  C.SessionPairs = {
      // Megatron-LM (megatron/core/transformer/cuda_graphs.py), around the
      // capture of every layer's forward and backward graphs.
      {"megatron.core.transformer.cuda_graphs._set_capture_start",
       "megatron.core.transformer.cuda_graphs._set_capture_end"},
      // TransformerEngine (transformer_engine/pytorch/graph.py), around
      // make_graphed_callables' captures.
      {"transformer_engine.pytorch.graph.set_capture_start",
       "transformer_engine.pytorch.graph.set_capture_end"},
  };
  // vLLM's (vllm/distributed/parallel_state.py; vLLM Ascend and SGLang have
  // their own of the same name), around capture_model's captures.
  C.SessionContexts = {"graph_capture"};
  // No default session predicates: Megatron-LM's and TransformerEngine's
  // is_graph_capturing() guard code of the captured forward, so they are
  // capture predicates (below).
  C.CaptureGuards = {"*GraphCaptureGuard", "*StreamCaptureGuard"};
  C.CaptureContexts = {
      "torch.npu.graph",        "torch.cuda.graph",
      "torch_npu.npu.graph",    "torch.npu.graphs.graph",
      "torch.cuda.graphs.graph", "torch_npu.npu.graphs.graph",
  };
  C.CapturePredicates = {
      "capturing", // forward-context attribute: ctx.capturing
      "is_current_stream_capturing",
      // C++: a capture status compared with CaptureStatus::None / Active.
      "currentStreamCaptureStatus",
      "currentStreamCaptureStatusMayInitCtx",
  };
  C.WeakRefFunctions = {
      "torch_npu._C._weak_ref_tensor",
      "torch.ops._C.weak_ref_tensor",
      "torch.ops._C_ascend.weak_ref_tensor",
      "vllm.utils.torch_utils.weak_ref_tensors",
      "vllm.utils.torch_utils.weak_ref_tensor",
      "vllm.utils.weak_ref_tensors",
      "vllm.utils.weak_ref_tensor",
      "vllm_ascend.utils.weak_ref_tensors",
      "weak_ref_tensor", // the C++ kernel, in any namespace
  };
  C.BlobFunctions = {
      "at::from_blob", "torch::from_blob",
      "at_npu::native::from_blob", // torch_npu's (vLLM Ascend weak_ref_tensor)
      "at::for_blob",              // for_blob(...)...make_tensor()
  };
  C.WorkspaceProducers = {"*get_workspace*", "*get_max_workspace*"};
  C.WorkspaceNames = {"*workspace*"};
  C.StreamSwitches = {
      "torch.npu.stream",        "torch.cuda.stream",
      "torch_npu.npu.stream",    "c10::cuda::CUDAStreamGuard",
      "c10_npu::NPUStreamGuard", "c10::StreamGuard",
      "at::cuda::setCurrentCUDAStream", "c10::cuda::setCurrentCUDAStream",
      "c10_npu::setCurrentNPUStream",
  };
  C.StreamSyncs = {
      "wait_stream", "wait_event", "record_event", "synchronize",
      "cudaStreamWaitEvent", "cudaEventRecord", "aclrtStreamWaitEvent",
      "aclrtRecordEvent", "block", "record", "wait",
  };
  return C;
}

const Catalog &Catalog::defaults() {
  static const Catalog Defaults = makeDefaults();
  return Defaults;
}
