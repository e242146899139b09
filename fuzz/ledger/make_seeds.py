#!/usr/bin/env python3
"""Writes the `ledger` fuzz target's seeds: the event sequences of the
ledger tests in test/runtime/ (one file per test, named after it), encoded
in the input format described at the top of ledger_fuzzer.cpp.

    python3 fuzz/ledger/make_seeds.py fuzz/ledger/seeds

Addresses are the harness's (block i of the small region is 0x100000 +
i * 4 KiB), so a test's W, In and friends become blocks 0, 8, ...; streams
S and S2 are stream 0 and 1, the graph pool 7 is pool 1.
"""
import os
import sys

ALLOC, FREE, SEGMENT, CBEGIN, CEND, GBEGIN, GEND, USE, WEAK, WORKSPACE, \
    WAIT, REPLAY, UBEGIN, UEND, DESTROY, TENSOR, AUDIT, RAW = range(18)
SIZES = [0, 1, 48, 256, 512, 1000, 1024, 2048, 4096, 4096, 4097, 12288,
         32768, 32769, 262145, (128 << 20) + 1]
KB = 1024
S, S2 = 0, 1          # stream indices (0x5000, 0x6000)
POOL = 1              # pool index of 7


class Seed:
    """Mirrors the harness's choices: blocks by position in address order,
    tensors in creation order, graphs and tasks in the order they appear."""

    def __init__(self, history=6, emit=False):
        self.out = bytearray([history | (16 if emit else 0)])
        self.live = {}      # address -> size
        self.tensors = 0
        self.graphs = 0
        self.tasks = 0

    def _block(self, addr):
        return sorted(self.live).index(addr)

    def alloc(self, unit, size, layer=-1, stream=S, pool=POOL):
        # unit: 4 KiB steps in the small region
        self.out += bytes([ALLOC, stream, pool, layer + 1, SIZES.index(size),
                           unit * 16, 0, 0])
        self.live[unit] = size
        return unit

    def free(self, unit, layer=-1):
        self.out += bytes([FREE, self._block(unit), (layer + 1) << 2])
        del self.live[unit]

    def begin(self, stream=S):
        self.out += bytes([CBEGIN, stream, 0])
        self.graphs += 1
        return self.graphs - 1

    def end(self, stream=S):
        self.out += bytes([CEND, stream, 0])

    def tensor(self, unit):
        self.out += bytes([TENSOR, self._block(unit), 0])
        self.tensors += 1
        return self.tensors - 1

    def weak(self, tensor, layer=-1, undefined=False):
        self.out += bytes([WEAK, tensor, 3 if undefined else 0, layer + 1])
        if not undefined:
            self.tensors += 1
        return self.tensors - 1

    def uses(self, unit=None, layer=-1, tensor=None, stream=S):
        which, mode = (tensor, 0) if tensor is not None else (self._block(unit), 1)
        self.out += bytes([USE, stream, layer + 1, which, 0, mode])

    def group(self, unit=None, layer=-1, tensor=None, stream=S):
        self.out += bytes([GBEGIN, stream])
        self.uses(unit, layer, tensor, stream)
        self.out += bytes([GEND, stream])
        self.tasks += 1
        return self.tasks - 1

    def workspace(self, layer, key, unit=None, needed=0, stream=S):
        # needed: 0 the slot's size, 2 one byte more
        if unit is None:
            self.out += bytes([WORKSPACE, stream, layer + 1, key, 0, 0, 2])
        else:
            self.out += bytes([WORKSPACE, stream, layer + 1, key,
                               self._block(unit), needed, 1])

    def wait(self, waiter, signaler):
        self.out += bytes([WAIT, waiter, signaler])

    def replay(self, graph):
        self.out += bytes([REPLAY, graph])

    def update(self, task, stream=S2):
        self.out += bytes([UBEGIN, stream, task])

    def update_end(self, stream=S2):
        self.out += bytes([UEND, stream])

    def destroy(self, graph):
        self.out += bytes([DESTROY, graph])

    def audit(self):
        self.out += bytes([AUDIT])


def seeds():
    W, W2, In, Eager = 0, 1, 8, 12
    s = Seed(emit=True)  # SharedWorkspaceFreedAndReusedInCapture...
    s.begin(); s.alloc(W, 4 * KB, 0); s.workspace(0, 8, W)
    t = s.tensor(W); s.weak(t, 0); s.group(layer=0, tensor=t)
    s.free(W, 0); s.alloc(W, 4 * KB, 1); s.workspace(1, 8, W)
    s.end(); s.audit()
    yield "shared_workspace_reused_in_capture", s

    s = Seed()  # BlocksAllocatedBeforeTheCaptureAreKnownToIt
    s.alloc(In, KB, 3, S2, 0); s.free(In); s.alloc(W, 4 * KB, 0)
    s.begin(); s.workspace(0, 8, W); t = s.tensor(W); s.weak(t, 0)
    s.group(layer=0, tensor=t); s.free(W, 0); s.alloc(W, 4 * KB, 1)
    yield "blocks_allocated_before_capture", s

    s = Seed()  # WorkspaceHeldUntilCaptureEndIsClean
    s.begin(); s.alloc(W, 4 * KB, 0); s.workspace(0, 8, W); s.group(W, 0)
    s.alloc(W2, 4 * KB, 1); s.workspace(1, 8, W); s.group(W, 1); s.end()
    t = s.tensor(W); s.weak(t); s.free(W); s.audit()
    yield "workspace_held_until_capture_end", s

    s = Seed()  # ActivationReuseInsideCaptureIsClean
    s.begin(); s.alloc(W, KB, 0); s.group(W, 0); s.free(W, 0)
    s.alloc(W, KB, 1); s.group(W, 1); s.free(W, 1); s.end()
    yield "activation_reuse_in_capture", s

    s = Seed()  # SlotBackedBlockFreedWithoutReuse...
    s.begin(); s.alloc(W, KB, 0); s.workspace(0, 3, W); s.group(W, 0)
    s.free(W, 0); s.end()
    yield "slot_block_freed_before_capture_end", s

    s = Seed()  # WeakAliasUsedByLaterTaskAfterFreeIsReported
    s.begin(); s.alloc(W, KB, 0); t = s.tensor(W); a = s.weak(t, 0)
    s.group(layer=0, tensor=t); s.free(W, 0); s.alloc(W, KB, 1)
    s.group(layer=2, tensor=a)
    yield "weak_alias_used_after_free", s

    s = Seed()  # AliasUsedOnlyByItsTaskUpdateAfterCaptureIsClean
    g = s.begin(); s.alloc(W, KB, 0); t = s.tensor(W); a = s.weak(t, 0)
    task = s.group(layer=0, tensor=t); s.free(W, 0); s.alloc(W, KB, 1)
    s.free(W, 1); s.end(); s.update(task); s.uses(layer=0, tensor=a, stream=S2)
    s.update_end(); s.replay(g)
    yield "alias_used_by_task_update", s

    s = Seed()  # DoubleWeakRefIsReported / undefined source
    s.alloc(W, KB, 0, S, 0); t = s.tensor(W); a = s.weak(t, 0); s.weak(a, 0)
    s.weak(t, 4, undefined=True)
    yield "double_weak_ref_and_undefined", s

    s = Seed()  # NestedCaptureOnOneStreamIsRefused
    s.begin(); s.begin(); s.end(); s.end()
    yield "nested_capture_refused", s

    s = Seed(history=4)  # HistoryIsBoundedAndReportsKeepTheirSites
    s.begin(); s.alloc(W, KB, 0); s.workspace(0, 1, W); s.group(W, 0)
    s.free(W, 0)
    for i in range(4):
        s.alloc(In + i, KB, 0, S2, 0); s.free(In + i)
    s.audit(); s.alloc(W, KB, 1)
    yield "small_history", s

    s = Seed()  # PinnedRangeTakenByEagerBlockIsReportedAtReplay
    s.alloc(In, KB, -1, S, 0); g = s.begin(); s.group(In, 0); s.end()
    s.replay(g); s.free(In); s.alloc(In, KB, 7, S2, 0); s.replay(g)
    s.replay(g)
    yield "pinned_range_taken_at_replay", s

    s = Seed()  # RangeTakenAfterACleanTaskUpdateIsReportedAtReplay
    s.alloc(In, KB, -1, S, 0); g = s.begin(); task = s.group(In, 0); s.end()
    s.update(task); s.uses(In, 0, stream=S2); s.update_end(); s.replay(g)
    s.free(In); s.replay(g); s.alloc(In, KB, 7, S2, 0); s.replay(g)
    yield "range_taken_after_clean_update", s

    s = Seed()  # TaskUpdateThatRepointsTheArgumentIsClean + destroy
    s.alloc(In, KB, -1, S, 0); g = s.begin(); task = s.group(In, 0); s.end()
    s.free(In); s.alloc(In, KB, 7, S2, 0); s.alloc(Eager, KB, 7, S2, 0)
    s.update(task); s.uses(Eager, 0, stream=S2); s.update_end(); s.replay(g)
    s.destroy(g); s.replay(g)
    yield "task_update_repoints_argument", s

    s = Seed()  # PinnedRangeTaken...: the capture's own memory, taken
    g = s.begin(); s.alloc(W, KB, 0, S, 0); s.group(W, 0); s.end()
    s.replay(g); s.free(W); s.alloc(W, KB, 7, S2, 0); s.replay(g)
    yield "capture_block_taken_at_replay", s

    U, U2 = 4, 5
    s = Seed()  # BufferReusedByTheNextUpdateIsReportedOncePerTask
    g = s.begin(); s.alloc(W, KB, 0); t0 = s.group(W, 0); t1 = s.group(W, 1)
    s.end()
    for _ in range(2):
        s.alloc(U, KB, 0, S2, 0); s.update(t0); s.uses(U, 0, stream=S2)
        s.update_end(); s.free(U, 0)
        s.alloc(U, KB, 1, S2, 0); s.update(t1); s.uses(U, 1, stream=S2)
        s.update_end(); s.free(U, 1)
        s.replay(g)
    yield "update_buffer_reused_by_next_update", s

    s = Seed()  # BufferKeptWithTheGraphIsSilent, then dropped
    g = s.begin(); s.alloc(W, KB, 0); t = s.group(W, 0); s.end()
    s.alloc(U, KB, 0, S2, 0); s.update(t); s.uses(U, 0, stream=S2)
    s.update_end(); s.replay(g)
    s.alloc(U2, KB, 0, S2, 0); s.update(t); s.uses(U2, 0, stream=S2)
    s.update_end(); s.free(U); s.replay(g); s.free(U2); s.replay(g)
    s.destroy(g)
    yield "update_buffer_kept_then_dropped", s

    s = Seed()  # OutOfPoolInputFreedDuringTheCaptureIsReportedAtReplay
    s.alloc(In, KB, -1, S, 0); g = s.begin(); s.group(In, 0); s.free(In)
    s.alloc(W, KB, 0); s.group(W, 1); s.end(); s.replay(g)
    yield "out_of_pool_input_freed_in_capture", s

    s = Seed()  # SlotReplacedWhilePinned / too small / cleared
    s.begin(); s.alloc(W, KB, 0); s.workspace(0, 5, W); s.group(W, 0)
    s.workspace(1, 5, W, needed=2); s.alloc(W2, 2 * KB, 1)
    s.workspace(1, 5, W2); s.workspace(2, 5, None)
    yield "slot_too_small_replaced_cleared", s

    s = Seed()  # SlotUsedOnTwoStreams with and without a wait
    s.begin(); s.wait(S2, S); s.alloc(W, KB, 0); s.workspace(0, 5, W)
    s.workspace(1, 5, W, stream=S2); s.wait(S, S2); s.workspace(2, 5, W)
    yield "slot_on_two_streams", s

    s = Seed()  # SlotWhoseBlockDiedIsReportedWhenTaken
    s.begin(); s.alloc(W, KB, 0); s.workspace(0, 5, W); s.free(W, 0)
    s.alloc(W, KB, 1); s.workspace(1, 5, W); s.workspace(2, 5, W)
    yield "slot_block_died", s

    s = Seed()  # BlockPinnedByTwoRunningCapturesIsAHazardForBoth
    s.alloc(W, KB, -1, S, 0); s.begin(); s.begin(S2); s.workspace(0, 1, W)
    s.uses(W, 0); s.workspace(0, 1, W, stream=S2); s.uses(W, 0, stream=S2)
    s.free(W, 0); s.alloc(W, KB, 1, S, 0)
    yield "block_pinned_by_two_captures", s


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(
        os.path.dirname(__file__), "seeds")
    os.makedirs(out, exist_ok=True)
    for name, seed in seeds():
        with open(os.path.join(out, name + ".bin"), "wb") as f:
            f.write(seed.out)


if __name__ == "__main__":
    main()
