// RUN: %clang_tidy --checks='-*,tether-graph-memory-dies-before-replay' %s -- -std=c++17 -isystem %S/Inputs \
// RUN:   | FileCheck %s --implicit-check-not='warning:' --implicit-check-not='note:'
// RUN: not %tether check --checks='tether-graph-memory-dies-before-replay' %s -- -std=c++17 -isystem %S/Inputs \
// RUN:   | FileCheck %s --implicit-check-not='warning:' --implicit-check-not='note:'

#include "cuda_runtime_stub.h"
#include "torch_npu_stub.h"
#include <memory>

using at_npu::native::npu_paged_attention;

//===--- a workspace allocated for the update, per layer in a loop --------===//
// The updated task keeps the workspace's address; the local dies at the next
// iteration and at the return, and the allocator hands the block out again
// before the next replay.
void update_layers(aclrtStream stream, const std::vector<void *> &handles,
                   const at::Tensor &q, int64_t n) {
  for (void *handle : handles) {
    at::Tensor workspace = at::empty({n});
    aclmdlRICaptureTaskUpdateBegin(stream, handle);
    npu_paged_attention(q, workspace);
    aclmdlRICaptureTaskUpdateEnd(stream);
  }
}
// CHECK: :[[@LINE-4]]:28: warning: memory bound into a graph task by a task update can die before the graph's next replay; the updated task keeps its address [tether-graph-memory-dies-before-replay]
// CHECK: :[[@LINE-6]]:5: note: task update begins here
// CHECK: :[[@LINE-5]]:5: note: task update ends here
// CHECK: :[[@LINE-5]]:3: note: the last strong reference to the memory dies here

//===--- through a helper that runs the update ---------------------------===//
void update_one(aclrtStream stream, void *handle, const at::Tensor &q,
                const at::Tensor &ws) {
  aclmdlRICaptureTaskUpdateBegin(stream, handle);
  npu_paged_attention(q, ws);
  aclmdlRICaptureTaskUpdateEnd(stream);
}
void update_through_helper(aclrtStream stream, void *handle, const at::Tensor &q) {
  update_one(stream, handle, q, at::empty({64}));
}
// CHECK: :[[@LINE-2]]:3: warning: memory bound into a graph task by a task update can die before the graph's next replay
// CHECK: :[[@LINE-8]]:3: note: task update begins here
// CHECK: :[[@LINE-8]]:26: note: the memory is bound into the updated task here
// CHECK: :[[@LINE-8]]:3: note: task update ends here
// CHECK: :[[@LINE-6]]:33: note: the last strong reference to the memory dies here

//===--- negative: the workspace captured with the graph is reused --------===//
static std::unordered_map<int64_t, at::Tensor> g_captured_ws;
void update_reusing(aclrtStream stream, void *handle, const at::Tensor &q,
                    int64_t n) {
  aclmdlRICaptureTaskUpdateBegin(stream, handle);
  npu_paged_attention(q, g_captured_ws[n]);
  aclmdlRICaptureTaskUpdateEnd(stream);
}

//===--- negative: the update's buffers live beside the graph -------------===//
struct UpdateBuffers {
  std::vector<at::Tensor> workspaces;
};
static UpdateBuffers g_update_buffers;
void update_keeping(aclrtStream stream, void *handle, const at::Tensor &q,
                    int64_t n) {
  at::Tensor workspace = at::empty({n});
  g_update_buffers.workspaces.push_back(workspace);
  aclmdlRICaptureTaskUpdateBegin(stream, handle);
  npu_paged_attention(q, workspace);
  aclmdlRICaptureTaskUpdateEnd(stream);
}

//===--- negative: the same op outside any task update --------------------===//
void eager(const at::Tensor &q, int64_t n) {
  at::Tensor workspace = at::empty({n});
  npu_paged_attention(q, workspace);
}

//===--- out-of-pool inputs: memory allocated before the capture ---------===//
struct Runner {
  std::unordered_map<int64_t, c10_npu::NPUGraph *> graphs_;
  std::unordered_map<int64_t, at::Tensor> inputs_;

  // The static input comes from the ordinary allocator, owned by a local;
  // the caller's graph replays with its address.
  void capture(c10_npu::NPUGraph *graph, const at::Tensor &q, int64_t n) {
    at::Tensor static_input = at::empty({n});
    graph->capture_begin();
    npu_paged_attention(q, static_input);
    graph->capture_end();
    graphs_[n] = graph;
  }
  // CHECK: :[[@LINE-4]]:28: warning: memory allocated outside the graph's pool and used by a captured task can die while the graph lives; the graph keeps its address [tether-graph-memory-dies-before-replay]
  // CHECK: :[[@LINE-6]]:5: note: capture begins here
  // CHECK: :[[@LINE-5]]:5: note: capture ends here
  // CHECK: :[[@LINE-4]]:3: note: the last strong reference to the memory dies here

  // Fixed: the input is kept beside the graph.
  void capture_fixed(c10_npu::NPUGraph *graph, const at::Tensor &q, int64_t n) {
    at::Tensor static_input = at::empty({n});
    inputs_[n] = static_input;
    graph->capture_begin();
    npu_paged_attention(q, static_input);
    graph->capture_end();
  }
  // Memory the capture allocates is the graph pool's.
  void capture_pool(c10_npu::NPUGraph *graph, const at::Tensor &q, int64_t n) {
    graph->capture_begin();
    at::Tensor tmp = at::empty({n});
    npu_paged_attention(q, tmp);
    graph->capture_end();
  }
};

// The graph is local and dies with its input: nothing replays later.
void one_shot(const at::Tensor &q, int64_t n) {
  at::Tensor x = at::empty({n});
  c10_npu::NPUGraph g;
  g.capture_begin();
  npu_paged_attention(q, x);
  g.capture_end();
  g.replay();
}

//===--- negative: a view of a buffer that lives on -----------------------===//
// The view's handle dies; the memory is the buffer's.
static at::Tensor g_update_buffer;
void update_with_view(aclrtStream stream, void *handle, const at::Tensor &q,
                      int64_t n) {
  at::Tensor view = g_update_buffer.slice(0, 0, n);
  aclmdlRICaptureTaskUpdateBegin(stream, handle);
  npu_paged_attention(q, view);
  aclmdlRICaptureTaskUpdateEnd(stream);
}

//===--- raw addresses: an argument object a helper fills (road 6) --------===//
// C++ graph executors hand the kernel `void *` members, not tensors. The
// address owns nothing: the workspace still dies at the return.
struct KernelArgs {
  void *workspace = nullptr;
  float *query = nullptr;
};
void launch_kernel(aclrtStream stream, const KernelArgs *args);
void launch_raw(aclrtStream stream, void *ptr);
void fill_args(KernelArgs &args, const at::Tensor &ws) {
  args.workspace = ws.data_ptr();
}
void update_through_args(aclrtStream stream, void *handle, KernelArgs &args,
                         int64_t n) {
  at::Tensor workspace = at::empty({n});
  fill_args(args, workspace);
  aclmdlRICaptureTaskUpdateBegin(stream, handle);
  launch_kernel(stream, &args);
  aclmdlRICaptureTaskUpdateEnd(stream);
}
// CHECK: :[[@LINE-3]]:25: warning: memory bound into a graph task by a task update can die before the graph's next replay; the updated task keeps its address [tether-graph-memory-dies-before-replay]
// CHECK: :[[@LINE-6]]:3: note: the task is handed a raw address of the memory, taken here; an address does not keep the memory alive
// CHECK: :[[@LINE-6]]:3: note: task update begins here
// CHECK: :[[@LINE-5]]:3: note: task update ends here
// CHECK: :[[@LINE-5]]:1: note: the last strong reference to the memory dies here

//===--- a typed address (`data_ptr<float>()`) per layer in a loop --------===//
void update_typed(aclrtStream stream, const std::vector<void *> &handles,
                  KernelArgs &args, int64_t n) {
  for (void *handle : handles) {
    at::Tensor query = at::empty({n});
    args.query = query.data_ptr<float>();
    aclmdlRICaptureTaskUpdateBegin(stream, handle);
    launch_kernel(stream, &args);
    aclmdlRICaptureTaskUpdateEnd(stream);
  }
}
// CHECK: :[[@LINE-4]]:27: warning: memory bound into a graph task by a task update can die before the graph's next replay
// CHECK: :[[@LINE-7]]:18: note: the task is handed a raw address of the memory, taken here; an address does not keep the memory alive
// CHECK: :[[@LINE-7]]:5: note: task update begins here
// CHECK: :[[@LINE-6]]:5: note: task update ends here
// CHECK: :[[@LINE-6]]:3: note: the last strong reference to the memory dies here

//===--- negative: the tensor is kept beside its address ------------------===//
struct KeptArgs {
  at::Tensor workspace;
  KernelArgs args;
};
static KeptArgs g_kept_args;
void update_keeping_args(aclrtStream stream, void *handle, int64_t n) {
  at::Tensor workspace = at::empty({n});
  g_kept_args.workspace = workspace;
  g_kept_args.args.workspace = workspace.data_ptr();
  aclmdlRICaptureTaskUpdateBegin(stream, handle);
  launch_kernel(stream, &g_kept_args.args);
  aclmdlRICaptureTaskUpdateEnd(stream);
}

//===--- negative: an address handed to eager work ------------------------===//
void eager_raw(aclrtStream stream, int64_t n) {
  at::Tensor workspace = at::empty({n});
  launch_raw(stream, workspace.data_ptr());
}

//===--- negative: an address stored during a capture is no weak reference ===//
static std::unordered_map<int64_t, void *> g_addresses;
void capture_addresses(c10_npu::NPUGraph &graph, int64_t n) {
  graph.capture_begin();
  at::Tensor scratch = at::empty({n});
  g_addresses[n] = scratch.data_ptr();
  graph.capture_end();
}

//===--- a kernel's argument array of addresses ---------------------------===//
// `void *args[] = {&q, &ws}`: each element is the address of an argument;
// a launch handed the array reads the memory those arguments point at.
void launch_kernel_args(aclrtStream stream, void **args);
void update_arg_array(aclrtStream stream, void *handle, const at::Tensor &q,
                      int64_t n) {
  at::Tensor workspace = at::empty({n});
  void *ws = workspace.data_ptr();
  void *qp = q.data_ptr();
  void *args[] = {&qp, &ws, &n};
  aclmdlRICaptureTaskUpdateBegin(stream, handle);
  launch_kernel_args(stream, args);
  aclmdlRICaptureTaskUpdateEnd(stream);
}
// CHECK: :[[@LINE-3]]:30: warning: memory bound into a graph task by a task update can die before the graph's next replay
// CHECK: :[[@LINE-8]]:14: note: the task is handed a raw address of the memory, taken here; an address does not keep the memory alive
// CHECK: :[[@LINE-6]]:3: note: task update begins here
// CHECK: :[[@LINE-5]]:3: note: task update ends here
// CHECK: :[[@LINE-5]]:1: note: the last strong reference to the memory dies here

//===--- negative: the array's memory is kept beside the graph ------------===//
static std::vector<at::Tensor> g_kept_for_args;
void update_arg_array_kept(aclrtStream stream, void *handle, int64_t n) {
  at::Tensor workspace = at::empty({n});
  g_kept_for_args.push_back(workspace);
  void *ws = workspace.data_ptr();
  void *args[] = {&ws, &n};
  aclmdlRICaptureTaskUpdateBegin(stream, handle);
  launch_kernel_args(stream, args);
  aclmdlRICaptureTaskUpdateEnd(stream);
}

//===--- an object whose constructor allocates, dying at its scope's end --===//
struct CuSeqlens {
  at::Tensor cu_seqlens;
  explicit CuSeqlens(int64_t n) : cu_seqlens(at::zeros({n + 1})) {}
};
static std::unordered_map<int64_t, c10_npu::NPUGraph *> g_graphs;
void capture_with_temporary(c10_npu::NPUGraph *graph, const at::Tensor &q,
                            int64_t n) {
  {
    CuSeqlens seqlens(n);
    graph->capture_begin();
    npu_paged_attention(q, seqlens.cu_seqlens);
    graph->capture_end();
  }
  g_graphs[n] = graph;
}
// CHECK: :[[@LINE-5]]:28: warning: memory allocated outside the graph's pool and used by a captured task can die while the graph lives; the graph keeps its address
// CHECK: :[[@LINE-7]]:5: note: capture begins here
// CHECK: :[[@LINE-6]]:5: note: capture ends here
// CHECK: :[[@LINE-10]]:15: note: the memory is held only by the object made here, and dies with it
// CHECK: :[[@LINE-7]]:3: note: the last strong reference to the memory dies here

//===--- negative: the object is moved into the graph's entry -------------===//
struct SeqlensEntry {
  c10_npu::NPUGraph *graph;
  CuSeqlens seqlens;
};
static std::unordered_map<int64_t, SeqlensEntry> g_entries;
void capture_keeping_object(c10_npu::NPUGraph *graph, const at::Tensor &q,
                            int64_t n) {
  CuSeqlens seqlens(n);
  graph->capture_begin();
  npu_paged_attention(q, seqlens.cu_seqlens);
  graph->capture_end();
  g_entries.emplace(n, SeqlensEntry{graph, std::move(seqlens)});
}

//===--- an op that allocates its own workspace, called in the update -----===//
// torch_npu's EXEC_NPU_CMD, as xllm's AclGraph::update_graph_tasks meets it:
// the op allocates the aclnn workspace, hands its address to the launch
// lambda and lets it die at its return; the updated task keeps the address.
void launch_aclnn(void *workspace, uint64_t size);
#define EXEC_WITH_OWN_WORKSPACE(size)                                          \
  do {                                                                         \
    at::Tensor workspace_tensor;                                               \
    void *workspace_addr = nullptr;                                            \
    if (size != 0) {                                                           \
      workspace_tensor = at::empty({static_cast<int64_t>(size)});              \
      workspace_addr = workspace_tensor.data_ptr();                            \
    }                                                                          \
    auto acl_call = [=]() -> int {                                             \
      launch_aclnn(workspace_addr, size);                                      \
      return 0;                                                                \
    };                                                                         \
    at_npu::native::OpCommand cmd;                                             \
    cmd.Name("aclnnCausalConv1d");                                             \
    cmd.SetCustomHandler(acl_call);                                            \
    cmd.Run();                                                                 \
  } while (false)

void causal_conv1d(uint64_t workspace_size) {
  EXEC_WITH_OWN_WORKSPACE(workspace_size);
}
void causal_conv1d_layer(uint64_t workspace_size) {
  causal_conv1d(workspace_size);
}

void update_conv_tasks(aclrtStream stream, const std::vector<void *> &handles,
                       uint64_t workspace_size) {
  for (void *handle : handles) {
    aclmdlRICaptureTaskUpdateBegin(stream, handle);
    causal_conv1d(workspace_size);
    aclmdlRICaptureTaskUpdateEnd(stream);
  }
}
// CHECK: :[[@LINE-4]]:5: warning: memory bound into a graph task by a task update can die before the graph's next replay; the updated task keeps its address [tether-graph-memory-dies-before-replay]
// CHECK: :[[@LINE-6]]:5: note: task update begins here
// CHECK: :[[@LINE-16]]:3: note: the task is handed a raw address of the memory, taken here; an address does not keep the memory alive
// CHECK: :[[@LINE-17]]:3: note: the memory is bound into the updated task here
// CHECK: :[[@LINE-7]]:5: note: task update ends here
// CHECK: :[[@LINE-19]]:3: note: the last strong reference to the memory dies here

// Through a layer that calls the op: the same story, at the layer's call.
void update_conv_layers(aclrtStream stream, const std::vector<void *> &handles,
                        uint64_t workspace_size) {
  for (void *handle : handles) {
    aclmdlRICaptureTaskUpdateBegin(stream, handle);
    causal_conv1d_layer(workspace_size);
    aclmdlRICaptureTaskUpdateEnd(stream);
  }
}
// CHECK: :[[@LINE-4]]:5: warning: memory bound into a graph task by a task update can die before the graph's next replay; the updated task keeps its address [tether-graph-memory-dies-before-replay]
// CHECK: :[[@LINE-6]]:5: note: task update begins here
// CHECK: :[[@LINE-32]]:3: note: the task is handed a raw address of the memory, taken here; an address does not keep the memory alive
// CHECK: :[[@LINE-33]]:3: note: the memory is bound into the updated task here
// CHECK: :[[@LINE-7]]:5: note: task update ends here
// CHECK: :[[@LINE-35]]:3: note: the last strong reference to the memory dies here

//===--- negative: the op keeps its workspace in a cache that outlives it --===//
static std::unordered_map<uint64_t, at::Tensor> g_op_workspaces;
void causal_conv1d_cached(uint64_t workspace_size) {
  at::Tensor workspace = at::empty({static_cast<int64_t>(workspace_size)});
  g_op_workspaces[workspace_size] = workspace;
  launch_aclnn(workspace.data_ptr(), workspace_size);
}
void update_conv_tasks_cached(aclrtStream stream,
                              const std::vector<void *> &handles,
                              uint64_t workspace_size) {
  for (void *handle : handles) {
    aclmdlRICaptureTaskUpdateBegin(stream, handle);
    causal_conv1d_cached(workspace_size);
    aclmdlRICaptureTaskUpdateEnd(stream);
  }
}

//===--- negative: the op called outside any task update ------------------===//
void eager_conv(uint64_t workspace_size) { causal_conv1d(workspace_size); }

//===--- a stream capture ending into a member graph ----------------------===//
// ONNX Runtime's TensorRT provider shape: scratch allocated before a raw
// stream capture, read by the captured launch; the graph comes out of
// cudaStreamEndCapture into a member and is replayed by later runs.
void enqueue_bindings(void **bindings, cudaStream_t stream);
struct StreamCaptureRunner {
  cudaGraph_t graph_ = nullptr;
  cudaGraphExec_t exec_ = nullptr;
  void compute(cudaStream_t stream, void *input) {
    at::Tensor scratch = at::empty({1024});
    void *bindings[2] = {input, scratch.data_ptr()};
    cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal);
    enqueue_bindings(bindings, stream);
    cudaStreamEndCapture(stream, &graph_);
    cudaGraphInstantiate(&exec_, graph_, nullptr, nullptr, 0);
  }
};
// CHECK: :[[@LINE-5]]:22: warning: memory allocated outside the graph's pool and used by a captured task can die while the graph lives; the graph keeps its address [tether-graph-memory-dies-before-replay]
// CHECK: :[[@LINE-8]]:33: note: the task is handed a raw address of the memory, taken here; an address does not keep the memory alive
// CHECK: :[[@LINE-8]]:5: note: capture begins here
// CHECK: :[[@LINE-7]]:5: note: capture ends here
// CHECK: :[[@LINE-6]]:3: note: the last strong reference to the memory dies here

// Negative: a one-shot stream capture into a local graph, launched and
// destroyed before the scratch dies.
void launch_graph(cudaGraph_t graph, cudaStream_t stream);
void compute_once(cudaStream_t stream, void *input) {
  at::Tensor scratch = at::empty({1024});
  void *bindings[2] = {input, scratch.data_ptr()};
  cudaGraph_t graph = nullptr;
  cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal);
  enqueue_bindings(bindings, stream);
  cudaStreamEndCapture(stream, &graph);
  launch_graph(graph, stream);
}

//===--- a runner's capture method handed views of the caller's inputs ---===//
// ScaleLLM's ModelRunner::capture_graphs shape: the caller allocates the
// static inputs once, hands each graph runner slices of them and keeps the
// runners; the runner keeps the tokens but not the block table. A slice is
// the input's memory, which dies at the caller's return.
struct SliceRunner {
  c10_npu::NPUGraph graph_;
  at::Tensor tokens_;
  void capture(const at::Tensor &tokens, const at::Tensor &block_tables) {
    tokens_ = tokens;
    graph_.capture_begin();
    npu_paged_attention(tokens, block_tables);
    graph_.capture_end();
  }
};
struct SliceModelRunner {
  std::map<int64_t, std::unique_ptr<SliceRunner>> runners_;
  void capture_graphs(int64_t max_bs) {
    at::Tensor token_ids = at::zeros({max_bs});
    at::Tensor block_tables = at::zeros({max_bs, 64});
    for (int64_t bs = max_bs; bs > 0; bs /= 2) {
      auto runner = std::make_unique<SliceRunner>();
      runner->capture(token_ids.slice(0, 0, bs), block_tables.slice(0, 0, bs));
      runners_[bs] = std::move(runner);
    }
  }
// CHECK: :[[@LINE-4]]:7: warning: memory allocated outside the graph's pool and used by a captured task can die while the graph lives; the graph keeps its address [tether-graph-memory-dies-before-replay]
// CHECK: :[[@LINE-17]]:5: note: capture begins here
// CHECK: :[[@LINE-17]]:33: note: the memory is used by a captured task here
// CHECK: :[[@LINE-17]]:5: note: capture ends here
// CHECK: :[[@LINE-5]]:3: note: the last strong reference to the memory dies here

  // Negative: the caller keeps both inputs beside the runners.
  at::Tensor token_ids_, block_tables_;
  void capture_graphs_kept(int64_t max_bs) {
    token_ids_ = at::zeros({max_bs});
    block_tables_ = at::zeros({max_bs, 64});
    for (int64_t bs = max_bs; bs > 0; bs /= 2) {
      auto runner = std::make_unique<SliceRunner>();
      runner->capture(token_ids_.slice(0, 0, bs), block_tables_.narrow(0, 0, bs));
      runners_[bs] = std::move(runner);
    }
  }
};

//===--- a capture in a loop whose exit the walk meets first ---------------===//
// The return comes before the loop's body in the walk's order; the graph
// the body captures into is known only once the body is seen.
struct LoopCapture {
  bool more_ = true;
  std::unordered_map<int64_t, c10_npu::NPUGraph *> graphs_;
  void capture(c10_npu::NPUGraph &graph, const at::Tensor &q, int64_t n) {
    at::Tensor x = at::empty({n});
    while (more_) {
      graph.capture_begin();
      npu_paged_attention(q, x);
      graph.capture_end();
      graphs_[n] = &graph;
    }
  }
// CHECK: :[[@LINE-5]]:30: warning: memory allocated outside the graph's pool and used by a captured task can die while the graph lives; the graph keeps its address [tether-graph-memory-dies-before-replay]
// CHECK: :[[@LINE-7]]:7: note: capture begins here
// CHECK: :[[@LINE-6]]:7: note: capture ends here
// CHECK: :[[@LINE-4]]:3: note: the last strong reference to the memory dies here
};
