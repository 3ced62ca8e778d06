"""gpusvd inside a torch CUDA graph (torch.cuda.graph): capture once, replay on new data.
    python3 examples/python/graph_torch.py
Needs a GPU and PyTorch. The handle's stream is the capture stream; one call before the capture
lets the handle allocate its workspace. The tall QR's CholeskyQR steps are a loop decided on the
device inside the graph, so data needing more steps than the captured data replays correctly.
Exits 1 unless every replay factors its data."""
import sys

import torch

import gpusvd

torch.manual_seed(0)
m, n = 200000, 32
a = torch.randn(m, n, dtype=torch.float64, device="cuda")  # the graph's input buffer
stream = torch.cuda.Stream()
h = gpusvd.Handle()
h.stream = stream.cuda_stream
with torch.cuda.stream(stream):
    gpusvd.qr(a, mode="economic", handle=h)  # warm-up: allocates outside the capture
stream.synchronize()
graph = torch.cuda.CUDAGraph()
with torch.cuda.graph(graph, stream=stream):
    q, r = gpusvd.qr(a, mode="economic", handle=h)

worst = 0.0
for cond in (1.0, 1e6, 1e12):  # 1, 2 and 3+ CholeskyQR steps
    u, _ = torch.linalg.qr(torch.randn(m, n, dtype=torch.float64, device="cuda"))
    v, _ = torch.linalg.qr(torch.randn(n, n, dtype=torch.float64, device="cuda"))
    s = torch.logspace(0, -torch.log10(torch.tensor(cond)).item(), n, dtype=torch.float64,
                       device="cuda")
    data = (u * s) @ v.T
    stream.wait_stream(torch.cuda.current_stream())  # data was made on the default stream
    with torch.cuda.stream(stream):  # replay() runs on the current stream: keep it ordered
        a.copy_(data)
        graph.replay()
    stream.synchronize()
    resid = float(torch.linalg.norm(data - q @ r) / torch.linalg.norm(data))
    orth = float(torch.linalg.norm(q.T @ q - torch.eye(n, dtype=torch.float64, device="cuda")))
    worst = max(worst, resid, orth)
print(f"gpusvd {gpusvd.version()}: QR of {m} x {n} in a torch CUDA graph, replayed at condition "
      f"1, 1e6, 1e12: worst of |A - QR|/|A| and |Q^T Q - I| = {worst:.1e}")
sys.exit(0 if worst < 1e-12 else 1)
