# RUN: not %tether check %s | FileCheck %s --implicit-check-not=warning: --implicit-check-not=note:
# Recursive helpers: the summaries of a call cycle are iterated to a
# fixpoint, so what one member does through the other is known whichever
# member is walked first.
import torch
from vllm_ascend.utils import weak_ref_tensors

_CACHE = {}


# A pair that weak-refs through each other. weak_even is walked first,
# while weak_odd's summary is still empty: only a second round makes
# weak_odd a weak-ref function of its first parameter.
def weak_even(t, n):
    if n == 0:
        return torch.ops._C.weak_ref_tensor(t)
    return weak_odd(t, n - 1)


def weak_odd(t, n):
    return weak_even(t, n - 1)


def double_through_pair(x):
    return weak_odd(weak_odd(x, 1), 1)
# CHECK: recursion-fixpoint.py:[[@LINE-1]]:12: warning: weak-ref conversion of a value that is already a weak reference [tether-double-weak-ref]
# CHECK-NEXT: recursion-fixpoint.py:[[@LINE-2]]:21: note: first weak reference made here


# The same pair declared the other way round: the member walked first
# (hop_odd) needs the second's summary, so one round is not enough.
def hop_odd(t, n):
    return hop_even(t, n - 1)


def hop_even(t, n):
    if n == 0:
        return weak_ref_tensors(t)
    return hop_odd(t, n - 1)


def double_through_reversed_pair(x):
    return hop_odd(hop_odd(x, 3), 3)
# CHECK: recursion-fixpoint.py:[[@LINE-1]]:12: warning: weak-ref conversion of a value that is already a weak reference [tether-double-weak-ref]
# CHECK-NEXT: recursion-fixpoint.py:[[@LINE-2]]:20: note: first weak reference made here


# A pair of store helpers: put_first converts its parameter (after calling
# put_second), put_second only forwards it. Passing a weak reference to
# put_second converts it twice.
def put_first(key, value, depth):
    if depth > 0:
        put_second(key, value, depth - 1)
        return
    _CACHE[key] = weak_ref_tensors(value)


def put_second(key, value, depth):
    put_first(key, value, depth)


def store_weak_twice(x):
    put_second(0, weak_ref_tensors(x), 2)
# CHECK: recursion-fixpoint.py:[[@LINE-1]]:5: warning: weak-ref conversion of a value that is already a weak reference [tether-double-weak-ref]
# CHECK-NEXT: recursion-fixpoint.py:[[@LINE-2]]:19: note: first weak reference made here
# CHECK-NEXT: recursion-fixpoint.py:[[@LINE-3]]:19: note: the weak reference is passed to 'put_second' here
# CHECK-NEXT: recursion-fixpoint.py:[[@LINE-12]]:19: note: 'put_second' converts its parameter 'value' to a weak reference here


# A ring of twelve helpers; only the last one converts. What it returns
# travels back around the ring, one helper at a time, to ring_0.

def ring_0(t, n):
    return ring_1(t, n - 1)


def ring_1(t, n):
    return ring_2(t, n - 1)


def ring_2(t, n):
    return ring_3(t, n - 1)


def ring_3(t, n):
    return ring_4(t, n - 1)


def ring_4(t, n):
    return ring_5(t, n - 1)


def ring_5(t, n):
    return ring_6(t, n - 1)


def ring_6(t, n):
    return ring_7(t, n - 1)


def ring_7(t, n):
    return ring_8(t, n - 1)


def ring_8(t, n):
    return ring_9(t, n - 1)


def ring_9(t, n):
    return ring_10(t, n - 1)


def ring_10(t, n):
    return ring_11(t, n - 1)


def ring_11(t, n):
    if n <= 0:
        return weak_ref_tensors(t)
    return ring_0(t, n - 1)


def double_through_ring(x):
    return ring_0(ring_0(x, 30), 30)
# CHECK: recursion-fixpoint.py:[[@LINE-1]]:12: warning: weak-ref conversion of a value that is already a weak reference [tether-double-weak-ref]
# CHECK-NEXT: recursion-fixpoint.py:[[@LINE-2]]:19: note: first weak reference made here


# --- Not flagged ---------------------------------------------------------

# Strong values through the same cycles.
def single_through_pair(x):
    return weak_odd(x, 1)


def store_strong(x):
    put_second(0, x, 2)


# A recursive function that never converts: its cycle adds nothing.
def countdown(t, n):
    if n == 0:
        return t
    return countdown(t + 1, n - 1)


def strong_recursion(x):
    return weak_ref_tensors(countdown(x, 3))
