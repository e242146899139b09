"""What the benchmark scripts share: how one process is measured, and the
flags that compile a libtorch translation unit on this machine."""
import os
import subprocess
import time

TORCH_FLAGS = ["-std=c++17", "-I/usr/include/torch/csrc/api/include",
               "-I/usr/include/python3.11"]


def run(cmd):
    """(wall s, cpu s, peak RSS MiB, exit code) of one command, from wait4."""
    start = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - start
    return (wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024.0,
            os.waitstatus_to_exitcode(status))
