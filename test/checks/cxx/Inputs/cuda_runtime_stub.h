// Stand-in for the parts of the CUDA runtime API the tests use: graph
// execution handles, a kernel node's parameters (a C struct) and the calls
// that set a node of an instantiated graph to new parameters.
#pragma once
#include <cstddef>

struct CUgraphExec_st;
struct CUgraphNode_st;
struct CUstream_st;
using cudaGraphExec_t = CUgraphExec_st *;
using cudaGraphNode_t = CUgraphNode_st *;
using cudaStream_t = CUstream_st *;
enum cudaError_t { cudaSuccess = 0 };

struct dim3 {
  unsigned x, y, z;
};

struct cudaKernelNodeParams {
  void *func;
  dim3 gridDim;
  dim3 blockDim;
  unsigned int sharedMemBytes;
  void **kernelParams;
  void **extra;
};

cudaError_t cudaGraphExecKernelNodeSetParams(cudaGraphExec_t exec,
                                             cudaGraphNode_t node,
                                             const cudaKernelNodeParams *params);
cudaError_t cudaGraphLaunch(cudaGraphExec_t exec, cudaStream_t stream);
cudaError_t cudaGraphExecDestroy(cudaGraphExec_t exec);
cudaError_t cudaMalloc(void **devPtr, size_t size);
cudaError_t cudaFree(void *devPtr);

// The runtime's capture predicate, answering through an out-parameter.
enum cudaStreamCaptureStatus {
  cudaStreamCaptureStatusNone = 0,
  cudaStreamCaptureStatusActive = 1,
  cudaStreamCaptureStatusInvalidated = 2
};
cudaError_t cudaStreamIsCapturing(cudaStream_t stream,
                                  cudaStreamCaptureStatus *status);

// Stream capture: the graph comes out of the end call.
struct CUgraph_st;
using cudaGraph_t = CUgraph_st *;
enum cudaStreamCaptureMode { cudaStreamCaptureModeGlobal = 0 };
cudaError_t cudaStreamBeginCapture(cudaStream_t stream,
                                   cudaStreamCaptureMode mode);
cudaError_t cudaStreamEndCapture(cudaStream_t stream, cudaGraph_t *graph);
cudaError_t cudaGraphInstantiate(cudaGraphExec_t *exec, cudaGraph_t graph,
                                 void *, char *, size_t);
