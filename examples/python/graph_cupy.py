"""gpusvd inside a CuPy CUDA graph: capture once, replay on new data in the same buffers.
    python3 examples/python/graph_cupy.py
Needs a GPU and CuPy. The handle's stream is the capturing stream; one call before the capture
lets the handle allocate its workspace (allocation is not allowed inside a capture). Exits 1
unless every replay matches numpy on the same data."""
import sys

import cupy as cp
import numpy as np

import gpusvd

rng = np.random.default_rng(0)
batch, n = 10000, 12
x = cp.asarray(rng.standard_normal((batch, n, n)))  # the graph's input buffer
stream = cp.cuda.Stream(non_blocking=True)
h = gpusvd.Handle()
h.stream = stream.ptr
with stream:
    gpusvd.eigvals(x, handle=h)  # warm-up: allocates outside the capture
    stream.synchronize()
    stream.begin_capture()
    w = gpusvd.eigvals(x, handle=h)  # w: the graph's output buffer
    graph = stream.end_capture()

worst = 0.0
for trial in range(3):
    data = rng.standard_normal((batch, n, n))
    x.set(data, stream=stream)  # new data, same buffer, ordered before the replay
    graph.launch(stream=stream)
    stream.synchronize()
    got = np.sort_complex(cp.asnumpy(w))
    ref = np.sort_complex(np.linalg.eigvals(data))
    worst = max(worst, float(np.max(np.abs(got - ref) / np.max(np.abs(ref), axis=-1,
                                                                 keepdims=True))))
print(f"gpusvd {gpusvd.version()}: eigenvalues of {batch} {n}x{n} matrices, CuPy graph replayed "
      f"3 times on new data: max relative difference to numpy {worst:.1e}")
sys.exit(0 if worst < 1e-10 else 1)
