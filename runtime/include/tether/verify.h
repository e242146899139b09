/* tether runtime verifier: C ABI.
 *
 * Any caller (an allocator, a framework's op layer, the ACL interposer, a
 * Python binding) feeds events; the verifier keeps a per-device ledger and
 * reports violations of the capture-lifetime invariant under the same names
 * as the static checks. Every entry point is safe to call from any thread,
 * never fails the caller, and becomes a no-op once the verifier disabled
 * itself after an internal error.
 *
 * Pointers are addresses on the device named by `device`; `stream` is the
 * runtime's stream handle (aclrtStream, cudaStream_t) used only as an id.
 * `handle` arguments are opaque identities of tensor objects (a TensorImpl*,
 * a PyObject*): they let the verifier tell a weak alias from its source even
 * though both point at the same memory. 0/NULL means "unknown".
 */
#ifndef TETHER_VERIFY_H
#define TETHER_VERIFY_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Bumped on any incompatible change of this header. */
#define TETHER_VERIFY_API_VERSION 1

#if defined(__GNUC__)
#define TETHER_VERIFY_EXPORT __attribute__((visibility("default")))
#else
#define TETHER_VERIFY_EXPORT
#endif

typedef enum tether_verify_mode {
  TETHER_MODE_REPORT = 0, /* log, write JSON lines, keep running */
  TETHER_MODE_ABORT = 1   /* report the first violation, then abort() */
} tether_verify_mode;

/* One violation as passed to the callback. Strings live until it returns. */
typedef struct tether_violation {
  int api_version;     /* TETHER_VERIFY_API_VERSION */
  const char *check;   /* e.g. "tether-weak-ref-before-capture-end" */
  const char *kind;    /* finer cause within the check, e.g. "reused" */
  uint64_t graph;      /* verifier graph id, 0 if none */
  int32_t layer;       /* -1 if unknown */
  int64_t key;         /* workspace key, -1 if none */
  uintptr_t begin;     /* the range in question */
  size_t size;
  const char *message; /* one human-readable sentence */
  const char *json;    /* the full JSON line (without newline) */
} tether_violation;

typedef void (*tether_violation_fn)(const tether_violation *v, void *user);

TETHER_VERIFY_EXPORT int tether_verify_api_version(void);
/* 0 after an internal error turned the verifier off. */
TETHER_VERIFY_EXPORT int tether_verify_enabled(void);
TETHER_VERIFY_EXPORT void tether_verify_set_mode(tether_verify_mode mode);
/* Replaces the callback; NULL removes it. */
TETHER_VERIFY_EXPORT void tether_verify_set_callback(tether_violation_fn fn,
                                                     void *user);
TETHER_VERIFY_EXPORT uint64_t tether_verify_violation_count(void);

/* The calling thread's current layer; attached to the events it feeds. */
TETHER_VERIFY_EXPORT void tether_verify_set_layer(int32_t layer);

/* Allocator feed (the hot path). `pool` is the memory pool id (0: default;
 * a graph's private pool otherwise). */
TETHER_VERIFY_EXPORT void tether_verify_alloc(int device, const void *ptr,
                                              size_t size, const void *stream,
                                              uint64_t pool);
TETHER_VERIFY_EXPORT void tether_verify_free(int device, const void *ptr);
/* Backing store of a caching allocator: not a tensor. Drops any raw block
 * recorded there (the interposer sees the segment's aclrtMalloc first). */
TETHER_VERIFY_EXPORT void tether_verify_segment(int device, const void *ptr,
                                                size_t size);

/* Capture. Return the verifier's graph id (0 on misuse). */
TETHER_VERIFY_EXPORT uint64_t tether_verify_capture_begin(int device,
                                                          const void *stream);
TETHER_VERIFY_EXPORT uint64_t tether_verify_capture_end(int device,
                                                        const void *stream);
/* Task groups (updatable tasks). End returns the task id, 0 on misuse. */
TETHER_VERIFY_EXPORT void tether_verify_task_group_begin(int device,
                                                         const void *stream);
TETHER_VERIFY_EXPORT uint64_t tether_verify_task_group_end(int device,
                                                           const void *stream);

/* A captured task bakes [ptr, ptr+size) into its arguments, reached through
 * the tensor `handle`. Inside a task update it re-points the updated task. */
TETHER_VERIFY_EXPORT void tether_verify_task_uses(int device,
                                                  const void *stream,
                                                  const void *ptr, size_t size,
                                                  const void *handle);
/* `alias` was made as a weak reference (no ownership) of `src`. ptr NULL or
 * size 0 means the source was undefined/empty. */
TETHER_VERIFY_EXPORT void tether_verify_weak_ref(int device, const void *src,
                                                 const void *alias,
                                                 const void *ptr, size_t size);
/* Layer `layer` takes the shared workspace slot `key`, currently at
 * [ptr, ptr+size), and needs `needed` bytes of it. ptr NULL clears the slot. */
TETHER_VERIFY_EXPORT void tether_verify_workspace(int device,
                                                  const void *stream,
                                                  int32_t layer, int64_t key,
                                                  const void *ptr, size_t size,
                                                  size_t needed);
/* Work queued on `waiter` after this call is ordered after work queued on
 * `signaler` before it (an event record + stream wait). */
TETHER_VERIFY_EXPORT void tether_verify_stream_wait(int device,
                                                    const void *waiter,
                                                    const void *signaler);

TETHER_VERIFY_EXPORT void tether_verify_replay(int device, uint64_t graph);
TETHER_VERIFY_EXPORT void tether_verify_task_update_begin(int device,
                                                          const void *stream,
                                                          uint64_t task);
TETHER_VERIFY_EXPORT void tether_verify_task_update_end(int device,
                                                        const void *stream);
/* The graph was reset/destroyed: its pins and slots are released. */
TETHER_VERIFY_EXPORT void tether_verify_graph_destroy(int device,
                                                      uint64_t graph);

#ifdef __cplusplus
}
#endif
#endif /* TETHER_VERIFY_H */
