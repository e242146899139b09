"""Starts two child interpreters, as a serving stack starts its engine:
one by subprocess, one by multiprocessing's spawn. Each weak-refs None
through the catalog's helper (vllm_ascend.utils.weak_ref_tensors)."""
import multiprocessing
import subprocess
import sys


def child(tag):
    from vllm_ascend.utils import weak_ref_tensors

    weak_ref_tensors(None)
    print("child", tag, "done", flush=True)


if __name__ == "__main__":
    if len(sys.argv) > 1:
        child(sys.argv[1])
        sys.exit(0)
    subprocess.run([sys.executable, __file__, "subprocess"], check=True)
    p = multiprocessing.get_context("spawn").Process(target=child, args=("spawn",))
    p.start()
    p.join()
    print("parent done, spawn child exited", p.exitcode)
