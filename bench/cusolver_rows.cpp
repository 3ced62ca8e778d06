// GPU tables: gpusvd's `_gpu` forms vs cuSOLVER vs LAPACK on the host CPUs, same data, same run.
// Device data is resident (no transfers timed); inputs are restored by a device-to-device copy
// before every run (untimed); device times are cudaEvent pairs on one stream, medians after a
// warm-up. Every CUDA/cuBLAS/cuSOLVER return code and every info array is checked. Results are
// compared with LAPACK on a sample of the same matrices (the "check" column).
//
// This file: the GPU set-up and ceilings, and the order of the tables; the gesvj tables are in
// gpu_gesvj_rows.cpp, the geqrf_mgs tables in gpu_geqrf_rows.cpp, the pca table in
// gpu_pca_rows.cpp, the bdsvd table (host LAPACK only: cuSOLVER has no bidiagonal SVD) in
// gpu_bdsvd_rows.cpp, the geev tables in gpu_geev_rows.cpp.
//
// Where gpusvd has no GPU kernel its `_gpu` forms return GPUSVD_STATUS_NOT_SUPPORTED and the
// gpusvd column reads "n/a (not supported yet)"; when they succeed, the same rows time them.
#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <cusolverDn.h>
#include <omp.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "bench.hpp"
#include "cuda_util.hpp"
#include "flops.hpp"
#include "lapack_ref.hpp"

namespace bench {

namespace {

/* ---- ceilings ------------------------------------------------------------------------------ */

Ceilings measure_device_ceilings(Gpu &c) {
    Ceilings d;
    const Budget b{5, 10.0};
    {
        const size_t bytes = sz(c.o.quick ? 64 : 1024) << 20, n = bytes / sizeof(double);
        Dev<double> x(n), y(n);
        const auto h = random_vector<double>(std::min<size_t>(n, 1 << 20), 11);
        for (size_t off = 0; off < n; off += h.size())
            CU(cudaMemcpy(x.get() + off, h.data(), std::min(h.size(), n - off) * sizeof(double),
                          cudaMemcpyHostToDevice));
        const Stat s = time_gpu(
            c, b, [] {},
            [&] {
                restore(c, y.get(), x.get(), n);
                return true;
            },
            nullptr);
        if (s.ok()) d.gbs = 2.0 * double(bytes) / (s.ms * 1e6);
    }
    {
        const int n = c.o.quick ? 2048 : 8192;
        const size_t nn = sz(n) * n;
        Dev<double> A(nn), C(nn);
        const auto h = random_vector<double>(nn, 12);
        A.upload(h.data(), nn);
        const double one = 1, zero = 0;
        const Stat s = time_gpu(
            c, Budget{3, 10.0}, [] {},
            [&] {
                CB(cublasDgemm(c.blas, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &one, A.get(), n, A.get(),
                               n, &zero, C.get(), n));
                return true;
            },
            nullptr);
        if (s.ok()) d.gflops = 2.0 * double(n) * n * n / (s.ms * 1e6);
    }
    {
        // PCIe: pinned host to device, one direction (the floor of the host-memory rows).
        const size_t bytes = sz(c.o.quick ? 64 : 256) << 20;
        Pinned h(bytes);
        Dev<char> x(bytes);
        std::memset(h.get(), 1, bytes);
        const Stat s = time_gpu(
            c, b, [] {},
            [&] {
                CU(cudaMemcpyAsync(x.get(), h.get(), bytes, cudaMemcpyHostToDevice, c.s));
                return true;
            },
            nullptr);
        if (s.ok()) d.pcie_gbs = double(bytes) / (s.ms * 1e6);
    }
    return d;
}

}  // namespace

bool gpu_present(std::string *description) {
    int count = 0;
    const cudaError_t e = cudaGetDeviceCount(&count);
    if (e != cudaSuccess || count == 0) {
        *description =
            std::string("none (") +
            (e != cudaSuccess ? std::string("cudaGetDeviceCount: ") + cudaGetErrorString(e)
                              : std::string("no CUDA device")) +
            "): cuSOLVER rows skipped";
        return false;
    }
    cudaDeviceProp p{};
    int drv = 0, rt = 0;
    if (cudaGetDeviceProperties(&p, 0) != cudaSuccess) {
        *description = "none (cudaGetDeviceProperties failed): cuSOLVER rows skipped";
        return false;
    }
    cudaDriverGetVersion(&drv);
    cudaRuntimeGetVersion(&rt);
    char buf[512];
    std::snprintf(buf, sizeof buf,
                  "%s (sm_%d%d, %d SMs, %.1f GiB), %d device(s), driver CUDA %d.%d, runtime %d.%d; "
                  "device 0 used",
                  p.name, p.major, p.minor, p.multiProcessorCount,
                  double(p.totalGlobalMem) / 1073741824.0, count, drv / 1000, (drv % 1000) / 10,
                  rt / 1000, (rt % 1000) / 10);
    *description = buf;
    return true;
}

int run_cusolver_rows(const Options &o, Report &rep, const Ceilings &host) {
    Gpu c{o, rep, host, {}};
    bool ready = false;
    try {
        CU(cudaSetDevice(0));
        CU(cudaStreamCreateWithFlags(&c.s, cudaStreamNonBlocking));
        CU(cudaEventCreate(&c.e0));
        CU(cudaEventCreate(&c.e1));
        CS(cusolverDnCreate(&c.sol));
        CS(cusolverDnSetStream(c.sol, c.s));
        CB(cublasCreate(&c.blas));
        CB(cublasSetStream(c.blas, c.s));
        const gpusvdStatus_t st = gpusvdCreate(&c.g);
        if (st != GPUSVD_STATUS_SUCCESS)
            throw GpuError("gpusvdCreate: " + status_text(nullptr, st));
        const gpusvdStatus_t st2 = gpusvdSetStream(c.g, c.s);
        if (st2 != GPUSVD_STATUS_SUCCESS)
            throw GpuError("gpusvdSetStream: " + status_text(c.g, st2));
        c.dev = measure_device_ceilings(c);
        ready = true;
    } catch (const std::exception &e) {
        std::printf("\nGPU setup failed: %s\n", e.what());
        rep.fail();
    }
    if (ready) {
        std::printf(
            "\nGPU ceilings (floor column of the GPU tables): DGEMM %.0f GFLOP/s (cuBLAS, "
            "n = %d), device copy %.0f GB/s (read + write), PCIe %.1f GB/s (pinned, host to "
            "device)\n",
            c.dev.gflops, o.quick ? 2048 : 8192, c.dev.gbs, c.dev.pcie_gbs);
        std::printf(
            "GPU tables: ms, medians of cudaEvent-timed runs on device-resident data (host->host "
            "rows: wall time); ratios > 1 mean the first-named is slower (cuSOLVER/gpusvd > 1: "
            "gpusvd faster). Host = LAPACK on %d CPU threads. \"(extrap. from N)\": N matrices "
            "timed, scaled to the batch. Goals: a goal not met is reported, not a failure.\n",
            omp_get_max_threads());
        gesvj_tables(c);

        geqrf_tables(c);
        pca_tables(c);
        bdsvd_tables(c);
        geev_tables(c);
    }
    if (c.g) gpusvdDestroy(c.g);
    if (c.blas) cublasDestroy(c.blas);
    if (c.sol) cusolverDnDestroy(c.sol);
    if (c.e0) cudaEventDestroy(c.e0);
    if (c.e1) cudaEventDestroy(c.e1);
    if (c.s) cudaStreamDestroy(c.s);
    std::fflush(stdout);
    return rep.any_failed() ? 1 : 0;
}

}  // namespace bench
