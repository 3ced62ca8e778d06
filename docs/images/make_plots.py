"""Draws the example images of gpusvd.plot in this folder (spectrum.png, scree.png,
eigenvalues.png, eigenvalues_discrete.png).

Run from anywhere with the Python package importable and the library found, e.g.
    PYTHONPATH=bindings/python GPUSVD_LIBRARY=build/src/libgpusvd.so.0 \
        python docs/images/make_plots.py
"""
import os

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

import gpusvd  # noqa: E402
import gpusvd.plot  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
rng = np.random.default_rng(2024)


def save(fig, name):
    fig.tight_layout()
    fig.savefig(os.path.join(HERE, name), dpi=80)
    plt.close(fig)
    print("wrote", os.path.join(HERE, name))


# A 300 x 60 matrix of rank 40 whose singular values decay from 1 to 1e-6, plus noise at
# 1e-17: the rank tolerance separates the 40 from the rounding-level rest.
u, _ = np.linalg.qr(rng.standard_normal((300, 40)))
v, _ = np.linalg.qr(rng.standard_normal((60, 40)))
a = (u * np.geomspace(1, 1e-6, 40)) @ v.T + 1e-17 * rng.standard_normal((300, 60))
fig, ax = plt.subplots(figsize=(6, 4))
gpusvd.plot.spectrum(a, ax=ax)
save(fig, "spectrum.png")

# PCA of 2000 samples of 20 features driven by 4 latent factors plus noise.
latent = rng.standard_normal((2000, 4)) * [5.0, 3.0, 2.0, 1.0]
x = latent @ rng.standard_normal((4, 20)) + 0.8 * rng.standard_normal((2000, 20))
fig, ax = plt.subplots(figsize=(6, 4))
gpusvd.plot.scree(gpusvd.PCA(0.9).fit(x), ax=ax)
save(fig, "scree.png")

# 2000 random 8 x 8 system matrices, shifted towards stability: x' = A x, and the discrete
# x[k+1] = B x[k] with B scaled to spectral radius about 0.9.
systems = rng.standard_normal((2000, 8, 8)) / np.sqrt(8) - 0.8 * np.eye(8)
fig, ax = plt.subplots(figsize=(6, 4))
gpusvd.plot.eigenvalues(gpusvd.eigvals_batched(systems), ax=ax)
save(fig, "eigenvalues.png")

maps = rng.standard_normal((2000, 8, 8)) / np.sqrt(8) * 0.9
fig, ax = plt.subplots(figsize=(5, 5))
gpusvd.plot.eigenvalues(gpusvd.eigvals_batched(maps), ax=ax, system="discrete")
save(fig, "eigenvalues_discrete.png")
