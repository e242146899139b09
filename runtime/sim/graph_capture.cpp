// Streams, capture, task groups, task update and replay of the simulated
// runtime. A captured task is a host function plus its baked-in arguments;
// replay runs the tasks in capture order, so a buffer two tasks think they
// own separately really is written by both, as on the device.
#include "acl_sim/sim.h"
#include "sim_internal.h"

#include <memory>
#include <mutex>
#include <unordered_map>
#include <unordered_set>
#include <vector>

namespace aclsim {
namespace {

struct Task {
  Kernel kernel;
  KernelArgs args;
};

struct Graph {
  std::vector<Task> tasks;
  uint64_t pool;
};

struct Group {
  Graph *graph;
  std::vector<size_t> tasks; // indices into graph->tasks
};

struct Stream {
  Graph *capturing = nullptr;
  Group *open = nullptr;     // task group being captured
  Group *updating = nullptr; // task group being rewritten
  size_t nextUpdate = 0;
};

struct State {
  std::mutex mu;
  std::unordered_map<aclrtStream, std::unique_ptr<Stream>> streams;
  std::unordered_map<Graph *, std::unique_ptr<Graph>> graphs;
  std::unordered_map<Group *, std::unique_ptr<Group>> groups;
  uint64_t nextPool = 1;
};

State &state() {
  static State *s = new State;
  return *s;
}

// The null stream is a stream too.
Stream &streamOf(State &s, aclrtStream h) {
  auto &p = s.streams[h];
  if (!p)
    p = std::make_unique<Stream>();
  return *p;
}

Graph *graphOf(State &s, aclmdlRI ri) {
  auto it = s.graphs.find(static_cast<Graph *>(ri));
  return it == s.graphs.end() ? nullptr : it->second.get();
}

} // namespace

aclError launch(aclrtStream stream, Kernel kernel, const KernelArgs &args) {
  State &s = state();
  {
    std::lock_guard<std::mutex> lock(s.mu);
    Stream &st = streamOf(s, stream);
    if (st.capturing) {
      st.capturing->tasks.push_back(Task{kernel, args});
      if (st.open)
        st.open->tasks.push_back(st.capturing->tasks.size() - 1);
      return ACL_SUCCESS;
    }
    if (st.updating) {
      Group &g = *st.updating;
      if (st.nextUpdate >= g.tasks.size())
        return ACL_ERROR_INVALID_PARAM; // more tasks than were captured
      Task &t = g.graph->tasks[g.tasks[st.nextUpdate++]];
      if (t.kernel != kernel)
        return ACL_ERROR_INVALID_PARAM; // an update keeps the task type
      t.args = args;
      return ACL_SUCCESS;
    }
  }
  kernel(args);
  return ACL_SUCCESS;
}

namespace detail {

uint64_t capturePoolOf(aclrtStream stream) {
  State &s = state();
  std::lock_guard<std::mutex> lock(s.mu);
  auto it = s.streams.find(stream);
  if (it == s.streams.end() || !it->second->capturing)
    return 0;
  return it->second->capturing->pool;
}

} // namespace detail
} // namespace aclsim

using namespace aclsim;

extern "C" {

aclError aclrtCreateStream(aclrtStream *stream) {
  if (!stream)
    return ACL_ERROR_INVALID_PARAM;
  State &s = state();
  std::lock_guard<std::mutex> lock(s.mu);
  auto st = std::make_unique<Stream>();
  *stream = st.get();
  s.streams[*stream] = std::move(st);
  return ACL_SUCCESS;
}

aclError aclrtDestroyStream(aclrtStream stream) {
  State &s = state();
  std::lock_guard<std::mutex> lock(s.mu);
  return s.streams.erase(stream) ? ACL_SUCCESS : ACL_ERROR_INVALID_PARAM;
}

aclError aclrtSynchronizeStream(aclrtStream) {
  return ACL_SUCCESS; // everything already ran on the host
}

aclError aclmdlRICaptureBegin(aclrtStream stream, aclmdlRICaptureMode) {
  State &s = state();
  std::lock_guard<std::mutex> lock(s.mu);
  Stream &st = streamOf(s, stream);
  if (st.capturing || st.updating)
    return ACL_ERROR_INVALID_PARAM;
  auto g = std::make_unique<Graph>();
  g->pool = s.nextPool++;
  st.capturing = g.get();
  s.graphs[g.get()] = std::move(g);
  return ACL_SUCCESS;
}

aclError aclmdlRICaptureEnd(aclrtStream stream, aclmdlRI *modelRI) {
  State &s = state();
  std::lock_guard<std::mutex> lock(s.mu);
  Stream &st = streamOf(s, stream);
  if (!st.capturing || st.open || !modelRI)
    return ACL_ERROR_INVALID_PARAM;
  *modelRI = st.capturing;
  st.capturing = nullptr;
  return ACL_SUCCESS;
}

aclError aclmdlRICaptureTaskGrpBegin(aclrtStream stream) {
  State &s = state();
  std::lock_guard<std::mutex> lock(s.mu);
  Stream &st = streamOf(s, stream);
  if (!st.capturing || st.open)
    return ACL_ERROR_INVALID_PARAM;
  auto g = std::make_unique<Group>();
  g->graph = st.capturing;
  st.open = g.get();
  s.groups[g.get()] = std::move(g);
  return ACL_SUCCESS;
}

aclError aclmdlRICaptureTaskGrpEnd(aclrtStream stream, aclrtTaskGrp *handle) {
  State &s = state();
  std::lock_guard<std::mutex> lock(s.mu);
  Stream &st = streamOf(s, stream);
  if (!st.open || !handle)
    return ACL_ERROR_INVALID_PARAM;
  *handle = st.open;
  st.open = nullptr;
  return ACL_SUCCESS;
}

aclError aclmdlRICaptureTaskUpdateBegin(aclrtStream stream,
                                        aclrtTaskGrp handle) {
  State &s = state();
  std::lock_guard<std::mutex> lock(s.mu);
  Stream &st = streamOf(s, stream);
  auto g = s.groups.find(static_cast<Group *>(handle));
  // As documented for CANN: the update stream must not be capturing.
  if (g == s.groups.end() || st.capturing || st.updating)
    return ACL_ERROR_INVALID_PARAM;
  st.updating = g->second.get();
  st.nextUpdate = 0;
  return ACL_SUCCESS;
}

aclError aclmdlRICaptureTaskUpdateEnd(aclrtStream stream) {
  State &s = state();
  std::lock_guard<std::mutex> lock(s.mu);
  Stream &st = streamOf(s, stream);
  if (!st.updating)
    return ACL_ERROR_INVALID_PARAM;
  // Same task count as captured, or the group is left half-updated.
  bool complete = st.nextUpdate == st.updating->tasks.size();
  st.updating = nullptr;
  return complete ? ACL_SUCCESS : ACL_ERROR_INVALID_PARAM;
}

aclError aclmdlRIExecuteAsync(aclmdlRI modelRI, aclrtStream) {
  State &s = state();
  std::lock_guard<std::mutex> lock(s.mu);
  Graph *g = graphOf(s, modelRI);
  if (!g)
    return ACL_ERROR_INVALID_PARAM;
  for (const Task &t : g->tasks)
    t.kernel(t.args);
  return ACL_SUCCESS;
}

aclError aclmdlRIDestroy(aclmdlRI modelRI) {
  State &s = state();
  uint64_t pool;
  {
    std::lock_guard<std::mutex> lock(s.mu);
    Graph *g = graphOf(s, modelRI);
    if (!g)
      return ACL_ERROR_INVALID_PARAM;
    for (auto it = s.groups.begin(); it != s.groups.end();)
      it = it->second->graph == g ? s.groups.erase(it) : std::next(it);
    pool = g->pool;
    s.graphs.erase(g);
  }
  detail::releasePool(pool);
  return ACL_SUCCESS;
}

} // extern "C"
