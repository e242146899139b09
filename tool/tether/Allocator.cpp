//===- Allocator.cpp - jemalloc's configuration for the tether executable -===//
//
// Linked only when TETHER_JEMALLOC is on. jemalloc reads this string before
// the first allocation (the environment's MALLOC_CONF still overrides it).
//
// Why huge pages: a run over a real package grows the heap by ~100 MB that is
// mostly kept to the end (syntax trees, the IR, summaries). In 4 KiB pages
// that was ~21,000 first-touch faults, a quarter of the run's CPU on a
// virtual machine, where a fault is expensive. With transparent huge pages
// (the kernel's common "madvise" mode honours jemalloc's request) the same
// heap costs a few hundred faults. Metadata gets huge pages too.
//
// Why one arena: by default jemalloc gives each thread its own arena (up to
// four per core), and memory freed in one arena is reused only by it. A run
// parses and lowers on the pool's threads, then frees those trees and lets
// the engine allocate on the main thread: with an arena per thread the
// engine faulted in fresh huge pages while the trees' pages sat free in the
// workers' arenas. One arena serves the engine from them (docs/architecture.md,
// *Memory*: 0.94x wall on the corpus tree, 118 -> 104 MB, 45% fewer page
// faults). Small
// allocations still go through each thread's cache, which takes the arena's
// lock once per batch.
//
//===----------------------------------------------------------------------===//

extern "C" {
// The symbol name is jemalloc's documented compile-time configuration hook.
extern const char *malloc_conf;
const char *malloc_conf = "thp:always,metadata_thp:always,narenas:1";
}
