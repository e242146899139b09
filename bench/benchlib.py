"""What the benchmark scripts share: how one process is measured, and the
flags that compile a libtorch translation unit on this machine."""
import os
import subprocess
import threading
import time

TORCH_FLAGS = ["-std=c++17", "-I/usr/include/torch/csrc/api/include",
               "-I/usr/include/python3.11"]


def run(cmd, timeout=None):
    """(wall s, cpu s, peak RSS MiB, exit code) of one command, from wait4.
    With timeout (s), a command still running then is killed (its exit code
    is then -9 and its wall time the timeout's)."""
    start = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    timer = threading.Timer(timeout, proc.kill) if timeout else None
    if timer:
        timer.start()
    _, status, usage = os.wait4(proc.pid, 0)
    if timer:
        timer.cancel()
    wall = time.perf_counter() - start
    return (wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024.0,
            os.waitstatus_to_exitcode(status))
