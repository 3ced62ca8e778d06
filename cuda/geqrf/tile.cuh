// A 32 x 32 tile of a matrix in shared memory, loaded along the matrix's contiguous direction
// whatever its layout (geqrf/matrix_ld.hpp): the column passes over a row-major matrix (screen,
// PCA's column sums and centring) read it coalesced through the tile instead of a column at a
// time, which would touch every row's cache line once per column.
#pragma once

#include <cstdint>

#include "geqrf/matrix_ld.hpp"

namespace gpusvd {
namespace gpu {

constexpr int kTile = 32;
constexpr int kTileThreads = 256;  // 32 lanes x 8 groups

/// t[a][b] = A(r + a, c + b) for the tile at (r, c), `fill` outside rows x cols. A block of
/// kTileThreads threads; the caller synchronises before reading t.
template <class T>
__device__ void load_tile(const T *A, MatLd ld, int64_t rows, int64_t cols, int64_t r, int64_t c,
                          T (*t)[kTile + 1], T fill) {
    const int lane = threadIdx.x & 31, g = threadIdx.x >> 5;
    for (int q = g; q < kTile; q += kTileThreads / 32) {
        // the lanes walk the contiguous direction
        const int a = ld.row ? q : lane, b = ld.row ? lane : q;
        const int64_t i = r + a, j = c + b;
        t[a][b] = i < rows && j < cols ? A[ld.at(i, j)] : fill;
    }
}

/// The tile t (as load_tile left it) written to B at (r, c), clipped to rows x cols, along B's
/// contiguous direction.
template <class T>
__device__ void store_tile(T *B, MatLd ld, int64_t rows, int64_t cols, int64_t r, int64_t c,
                           const T (*t)[kTile + 1]) {
    const int lane = threadIdx.x & 31, g = threadIdx.x >> 5;
    for (int q = g; q < kTile; q += kTileThreads / 32) {
        const int a = ld.row ? q : lane, b = ld.row ? lane : q;
        const int64_t i = r + a, j = c + b;
        if (i < rows && j < cols) B[ld.at(i, j)] = t[a][b];
    }
}

}  // namespace gpu
}  // namespace gpusvd
