// Device teams for the algorithms in src/kernels/ (see team.hpp): lanes of a warp, or a whole block.
#pragma once

#include "kernels/team.hpp"

namespace gpusvd {
namespace kernels {

/// W consecutive lanes of a warp (W a power of two <= 32) that run their own control flow: the
/// warp's other groups may be anywhere else in the code (sm_70+ independent thread scheduling),
/// so syncs and shuffles name only this group's lanes. Several small matrices per warp, each
/// with its own scalar work.
template <int W>
struct TileTeam {
    static_assert(W > 0 && W <= 32 && (W & (W - 1)) == 0, "a power of two up to 32");
    __device__ static unsigned mask() {
        return W == 32 ? 0xffffffffu : ((1u << W) - 1u) << (threadIdx.x & 31 & ~(W - 1));
    }
    __device__ int rank() const { return threadIdx.x & (W - 1); }
    __device__ int size() const { return W; }
    __device__ void sync() const { __syncwarp(mask()); }
    template <class T>
    __device__ T sum(T v) const {
        for (int o = W >> 1; o > 0; o >>= 1) v += __shfl_xor_sync(mask(), v, o, W);
        return v;
    }
    template <class T>
    __device__ T max(T v) const {
        for (int o = W >> 1; o > 0; o >>= 1) {
            const T w = __shfl_xor_sync(mask(), v, o, W);
            v = w > v ? w : v;
        }
        return v;
    }
};

/// The 32 lanes of one warp (blockDim.x a multiple of 32; warp w of the block).
using WarpTeam = TileTeam<32>;

/// `width` consecutive lanes of a warp (width a power of two <= 32, lane group
/// threadIdx.x / width): the pair team inside a WarpTeam or BlockTeam. Its reductions shuffle
/// with the whole warp's mask, so all 32 lanes must reach each one together (team code keeps its
/// loops' trip counts uniform for this).
struct LaneTeam {
    int width;
    __device__ explicit LaneTeam(int w) : width(w) {}
    __device__ int rank() const { return threadIdx.x & (width - 1); }
    __device__ int size() const { return width; }
    __device__ void sync() const { __syncwarp(); }
    template <class T>
    __device__ T sum(T v) const {
        for (int o = width >> 1; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
        return v;
    }
    template <class T>
    __device__ T max(T v) const {
        for (int o = width >> 1; o > 0; o >>= 1) {
            const T w = __shfl_xor_sync(0xffffffffu, v, o);
            v = w > v ? w : v;
        }
        return v;
    }
};

/// All threads of a block (1-D, blockDim.x a multiple of 32, at most 1024). Reductions use
/// `scratch`: 32 slots of T in shared memory, owned by the team.
template <class S>
struct BlockTeam {
    S *scratch;
    __device__ int rank() const { return threadIdx.x; }
    __device__ int size() const { return blockDim.x; }
    __device__ void sync() const { __syncthreads(); }
    template <class T, class Op>
    __device__ T reduce(T v, Op op) const {
        for (int o = 16; o > 0; o >>= 1) v = op(v, __shfl_xor_sync(0xffffffffu, v, o));
        const int warps = blockDim.x >> 5;
        __syncthreads();  // previous users of scratch are done
        if ((threadIdx.x & 31) == 0) scratch[threadIdx.x >> 5] = static_cast<S>(v);
        __syncthreads();
        T r = static_cast<T>(scratch[0]);
        for (int w = 1; w < warps; ++w) r = op(r, static_cast<T>(scratch[w]));
        return r;
    }
    template <class T>
    __device__ T sum(T v) const {
        return reduce(v, [](T a, T b) { return a + b; });
    }
    template <class T>
    __device__ T max(T v) const {
        return reduce(v, [](T a, T b) { return a > b ? a : b; });
    }
};

}  // namespace kernels
}  // namespace gpusvd
