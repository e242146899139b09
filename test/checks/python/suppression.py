# RUN: not %tether check %s | FileCheck %s --implicit-check-not=warning:
from vllm.utils import weak_ref_tensors


def nolint(x):
    return weak_ref_tensors(weak_ref_tensors(x))  # NOLINT(tether-double-weak-ref)


def noqa(x):
    return weak_ref_tensors(weak_ref_tensors(x))  # noqa: tether-double-weak-ref


def nolint_bare(x):
    return weak_ref_tensors(weak_ref_tensors(x))  # NOLINT


def noqa_bare(x):
    return weak_ref_tensors(weak_ref_tensors(x))  # noqa


def nolint_next(x):
    # NOLINTNEXTLINE(tether-*)
    return weak_ref_tensors(weak_ref_tensors(x))


# Suppressing another check leaves this one reported.
def other_check(x):
    return weak_ref_tensors(weak_ref_tensors(x))  # noqa: E501, tether-weak-ref-of-maybe-null
# CHECK: suppression.py:28:12: warning: weak-ref conversion of a value that is already a weak reference [tether-double-weak-ref]
