//===- Defaults.cpp - The embedded default catalog -----------------------===//
//
// The real APIs of torch, torch_npu, vLLM, vLLM Ascend, the CUDA runtime and
// ACL, and of the serving and training stacks built on them. Unanchored names
// match at any scope boundary (see NameSet), so the C++ "weak_ref_tensor"
// covers every namespace a binding puts it in.
//
// Where each project's name was seen (repository: path):
//   TransformerEngine  NVIDIA/TransformerEngine: transformer_engine/pytorch/
//     graph.py (`from .utils import make_weak_ref`, _graph_context_wrapper
//     around torch.cuda.graph, is_graph_capturing)
//   TensorRT-LLM       NVIDIA/TensorRT-LLM: tensorrt_llm/_torch/utils.py
//     (make_weak_ref: TensorWrapper over data_ptr()); its graph runners keep
//     `make_weak_ref(output)` after `with torch.cuda.graph(...)`
//   Megatron-LM        NVIDIA/Megatron-LM: megatron/core/transformer/
//     cuda_graphs.py (is_graph_capturing; make_weakref(ten, inplace=True)
//     rebinds ten.data to TE's make_weak_ref and returns ten)
//   LightLLM           ModelTC/lightllm: lightllm/utils/tensor_utils.py
//     (tensor_to_no_ref_tensor, ptr_to_tensor(device_ptr, nbytes)),
//     lightllm/utils/torch_memory_saver_utils.py (TorchMemorySaverWrapper,
//     used as `with self.torch_memory_saver.cuda_graph(graph, pool=...)`)
//   SGLang             sgl-project/sglang: python/sglang/srt/compilation/
//     weak_ref_tensor.py (weak_ref_tensors over sgl_kernel.weak_ref_tensor /
//     torch_npu._C._weak_ref_tensor); cuda_graph_runner captures with
//     `with self.device_module.graph(graph, pool=..., stream=...)`
//   DeepSpeed          microsoft/DeepSpeed: accelerator/*_accelerator.py
//     (capture_to_graph(graph, pool, stream) returns torch.cuda.graph(...))
//   cuda-python        NVIDIA/cuda-python: cudart.cudaStreamBeginCaptureToGraph
//   vLLM, vLLM Ascend, LMDeploy and TGI capture with torch.cuda.graph /
//   torch.npu.graph directly, which the torch entries cover.
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
  C.TaskUpdateCalls = {
      // CUDA runtime and driver: a node of an instantiated graph (or of the
      // graph it is instantiated from) set to new parameters, which "only
      // affect future launches" (the runtime API's words); the kernel's
      // argument array, a copy's or a memset's pointers are baked in. Seen
      // called from C++ engines and from Python through cuda-python
      // (`cuda.cuGraphExecKernelNodeSetParams(g.raw_cuda_graph_exec(), ...)`).
      "cudaGraphExecKernelNodeSetParams",
      "cudaGraphKernelNodeSetParams",
      "cudaGraphExecMemcpyNodeSetParams",
      "cudaGraphExecMemcpyNodeSetParams1D",
      "cudaGraphExecMemcpyNodeSetParamsToSymbol",
      "cudaGraphExecMemcpyNodeSetParamsFromSymbol",
      "cudaGraphExecMemsetNodeSetParams",
      "cuGraphExecKernelNodeSetParams",
      "cuGraphKernelNodeSetParams",
  };
  // Raw memory: ACL's runtime (acl_rt.h), the CUDA runtime and driver, HIP.
  // The first argument receives the address (`void **devPtr`). Pinned host
  // memory too: a graph's copy task keeps a host address as well.
  C.RawAllocators = {
      "aclrtMalloc",        "aclrtMallocAlign32", "aclrtMallocCached",
      "aclrtMallocWithCfg", "aclrtMallocHost",    "cudaMalloc",
      "cudaMallocAsync",    "cudaMallocFromPoolAsync",
      "cudaMallocManaged",  "cudaMallocHost",     "cudaHostAlloc",
      "cuMemAlloc",         "cuMemAlloc_v2",      "cuMemAllocAsync",
      "cuMemAllocHost",     "cuMemAllocHost_v2",  "hipMalloc",
      "hipMallocAsync",     "hipHostMalloc",
  };
  C.RawFrees = {
      "aclrtFree",     "aclrtFreeHost", "cudaFree",   "cudaFreeAsync",
      "cudaFreeHost",  "cuMemFree",     "cuMemFree_v2", "cuMemFreeAsync",
      "cuMemFreeHost", "hipFree",       "hipFreeAsync", "hipHostFree",
  };
  // An instantiated graph's end: ACL's model runtime instance (what
  // aclmdlRICaptureEnd makes), CUDA's and HIP's executable graphs. A
  // cudaGraph_t is not among them: the executable made from it keeps its
  // own copy of the tasks.
  C.GraphDestroys = {
      "aclmdlRIDestroy",
      "cudaGraphExecDestroy",
      "cuGraphExecDestroy",
      "hipGraphExecDestroy",
  };
  C.GraphLaunches = {
      "aclmdlRIExecuteAsync", "aclmdlRIExecute", "cudaGraphLaunch",
      "cuGraphLaunch",        "hipGraphLaunch",
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
      "transformer_engine.pytorch.graph._graph_context_wrapper",
      // LightLLM's wrapper held as `torch_memory_saver` and the
      // torch_memory_saver package's own singleton.
      "torch_memory_saver.cuda_graph",
      // SGLang: torch.get_device_module(device).graph
      "device_module.graph",
      // DeepSpeed: an accelerator's capture_to_graph, bound to a name or
      // called on `get_accelerator()` (matched by the method's own name).
      "capture_to_graph",
  };
  C.CapturePredicates = {
      "capturing", // forward-context attribute: ctx.capturing
      "is_current_stream_capturing",
      // C++: a capture status compared with CaptureStatus::None / Active.
      "currentStreamCaptureStatus",
      "currentStreamCaptureStatusMayInitCtx",
      // The runtimes' own, through an out-parameter compared with
      // cudaStreamCaptureStatusActive / ACL_MODEL_RI_CAPTURE_STATUS_ACTIVE.
      "cudaStreamIsCapturing",
      "hipStreamIsCapturing",
      "aclmdlRICaptureGetInfo",
      "transformer_engine.pytorch.graph.is_graph_capturing",
      "megatron.core.transformer.cuda_graphs.is_graph_capturing",
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
      "sglang.srt.compilation.weak_ref_tensor.weak_ref_tensors",
      "transformer_engine.pytorch.utils.make_weak_ref",
      "tensorrt_llm._torch.utils.make_weak_ref",
      // Also rebinds its argument's .data in place (inplace=True).
      "megatron.core.transformer.cuda_graphs.make_weakref",
      "lightllm.utils.tensor_utils.tensor_to_no_ref_tensor",
  };
  C.BlobFunctions = {
      "at::from_blob", "torch::from_blob",
      "at_npu::native::from_blob", // torch_npu's (vLLM Ascend weak_ref_tensor)
      // libtorch's stable ABI (SGLang's sgl-kernel weak_ref_tensor): it has
      // no deleter parameter at all.
      "torch::stable::from_blob",
      "at::for_blob",              // for_blob(...)...make_tensor()
      // LightLLM: ptr_to_tensor(t.data_ptr(), nbytes), cupy UnownedMemory.
      "lightllm.utils.tensor_utils.ptr_to_tensor",
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
