"""gpusvd inside a torch CUDA graph (torch.cuda.graph): capture once, replay on new data.
    python3 examples/python/graph_torch.py
Needs a GPU and PyTorch. The handle's stream is the capture stream; one call before the capture
lets the handle allocate its workspace. The tall QR's CholeskyQR steps are a loop decided on the
device inside the graph, so data needing more steps than the captured data replays correctly.
Exits 1 unless every replay passes LAPACK's QR test ratios (|A - QR|_1 / (m |A|_1 eps) and
|I - Q^T Q|_1 / (m eps) below 30, as LAPACK's dqrt01 checks)."""
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
    eps_m = torch.finfo(torch.float64).eps * m
    resid = float(torch.linalg.matrix_norm(data - q @ r, 1) / torch.linalg.matrix_norm(data, 1))
    orth = float(torch.linalg.matrix_norm(
        q.T @ q - torch.eye(n, dtype=torch.float64, device="cuda"), 1))
    worst = max(worst, resid / eps_m, orth / eps_m)
print(f"gpusvd {gpusvd.version()}: QR of {m} x {n} in a torch CUDA graph, replayed at condition "
      f"1, 1e6, 1e12: worst LAPACK test ratio {worst:.2g} (passes below 30)")
sys.exit(0 if worst < 30 else 1)
