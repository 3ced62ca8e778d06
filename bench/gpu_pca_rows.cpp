// GPU table of PCA (with its goal rows): gpusvd dpca_gpu (device-resident data, k components,
// scores and mean) with each method against what a cuSOLVER user writes for the same outputs,
// same run. Both start with the column means by a cuBLAS GEMV and the centring by a copy and a
// rank-1 update. QR method: cusolverDnDgesvdj (economy, U and V) on the centred data; goal >= 5x
// at 1e6 samples x 64 features, k = 10. Covariance method: the Gram matrix by a cuBLAS GEMM
// (Xc^T Xc, as CuPy's matmul), cusolverDnDsyevd (CuPy's linalg.eigh) and the scores by a GEMM of
// the centred data and the top k eigenvectors; goal: faster (>= 1x).
//
// Check: gpusvd's info 0, its explained variances against the counterpart's sigma_j^2 / (m - 1)
// or lambda_j / (m - 1) (relative to the largest) and its components against the counterpart's
// vectors up to sign. Floor: X read once (gpusvd also writes and rereads a centred copy, and
// the QR or the Gram matrix reads it again).
#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <cusolverDn.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "bench.hpp"
#include "cuda_util.hpp"
#include "flops.hpp"

namespace bench {
namespace {

/// Columns with different means and scales: the centring matters.
std::vector<double> pca_data(int64_t m, int64_t n) {
    std::vector<double> X = random_vector<double>(sz(m * n), 7700 + m + n);
    for (int64_t j = 0; j < n; ++j)
        for (int64_t i = 0; i < m; ++i)
            X[sz(i + j * m)] = 3.0 * double(j % 5) + X[sz(i + j * m)] * (1.0 + 0.1 * double(j));
    return X;
}

Row pca_row(Gpu &c, int64_t m, int64_t n, int64_t k, double goal) {
    Row r;
    r.table = "gpu:pca";
    r.name = "dpca_gpu(QR,+scores,mean) vs mean GEMV + centring + cusolverDnDgesvdj(econ)";
    r.size = dims(m, n) + " k=" + std::to_string(k);
    const size_t mn = sz(m * n);
    const std::vector<double> X = pca_data(m, n);
    Dev<double> dX(mn), dXc(mn), ones(sz(m)), mean(sz(n)), S(sz(n)), U(mn), V(sz(n * n));
    Dev<double> C(sz(n * k)), var(sz(k)), scores(sz(m * k)), gmean(sz(n));
    Dev<int> info(1), ginfo(1);
    dX.upload(X.data(), mn);
    const std::vector<double> h1(sz(m), 1.0);
    ones.upload(h1.data(), sz(m));
    const int mi = int(m), ni = int(n);
    GesvdjParams params;
    int lwork = 0;
    CS(cusolverDnDgesvdj_bufferSize(c.sol, CUSOLVER_EIG_MODE_VECTOR, 1, mi, ni, dXc.get(), mi,
                                    S.get(), U.get(), mi, V.get(), ni, &lwork, params.get()));
    Dev<double> work(sz(std::max(lwork, 1)));
    Check ck;
    r.b = time_gpu(
        c, gpu_budget(c), [] {},
        [&] {
            const double inv = 1.0 / double(m), zero = 0, minus = -1;
            CB(cublasDgemv(c.blas, CUBLAS_OP_T, mi, ni, &inv, dX.get(), mi, ones.get(), 1, &zero,
                           mean.get(), 1));
            CU(cudaMemcpyAsync(dXc.get(), dX.get(), mn * sizeof(double), cudaMemcpyDeviceToDevice,
                               c.s));
            CB(cublasDger(c.blas, mi, ni, &minus, ones.get(), 1, mean.get(), 1, dXc.get(), mi));
            CS(cusolverDnDgesvdj(c.sol, CUSOLVER_EIG_MODE_VECTOR, 1, mi, ni, dXc.get(), mi, S.get(),
                                 U.get(), mi, V.get(), ni, work.get(), lwork, info.get(),
                                 params.get()));
            return true;
        },
        nullptr);
    ck.info("cuSOLVER", info, 1, false);
    gpusvdSetPcaMethod(c.g, GPUSVD_PCA_QR);
    r.a = time_gpusvd(
        c, [] {},
        [&] {
            return Api<double>::pca_gpu(c.g, m, n, dX.get(), m, k, C.get(), n, var.get(),
                                        scores.get(), m, gmean.get(), ginfo.get());
        },
        r);
    gpusvdSetPcaMethod(c.g, GPUSVD_PCA_AUTO);
    if (r.a.ok() && r.b.ok()) {
        ck.info("gpusvd", ginfo, 1, true);
        const auto s = S.download(sz(k)), v = var.download(sz(k));
        std::vector<double> want(sz(k));
        for (int64_t j = 0; j < k; ++j) want[sz(j)] = s[sz(j)] * s[sz(j)] / double(m - 1);
        ck.diff(max_rel_diff(sz(k), v.data(), want.data()));
        const auto vc = V.download(sz(n * k)), gc = C.download(sz(n * k));
        double worst = 0;
        for (int64_t j = 0; j < k; ++j) {
            double dot = 0;
            for (int64_t i = 0; i < n; ++i) dot += vc[sz(i + j * n)] * gc[sz(i + j * n)];
            worst = std::max(worst, 1.0 - std::fabs(dot));
        }
        ck.bound("1-|cos| components", worst, 1e-8);
    }
    r.c = note_only("-");
    r.flops = tall_svd_flops(double(m), double(n), 1);
    r.bytes = double(mn + sz(m * k) + sz(n * k)) * sizeof(double);
    if (goal > 0) r.goals = {{Goal::CusolverRatio, goal}};
    ck.finish(r, 1e-9);
    return r;
}

Row pca_covariance_row(Gpu &c, int64_t m, int64_t n, int64_t k, double goal) {
    Row r;
    r.table = "gpu:pca";
    r.name = "dpca_gpu(covariance,+scores,mean) vs mean GEMV + centring + GEMM Xc^T Xc + "
             "cusolverDnDsyevd + GEMM scores";
    r.size = dims(m, n) + " k=" + std::to_string(k);
    const size_t mn = sz(m * n);
    const std::vector<double> X = pca_data(m, n);
    Dev<double> dX(mn), dXc(mn), ones(sz(m)), mean(sz(n)), G(sz(n * n)), W(sz(n)),
        rscores(sz(m * k));
    Dev<double> C(sz(n * k)), var(sz(k)), scores(sz(m * k)), gmean(sz(n));
    Dev<int> info(1), ginfo(1);
    dX.upload(X.data(), mn);
    const std::vector<double> h1(sz(m), 1.0);
    ones.upload(h1.data(), sz(m));
    const int mi = int(m), ni = int(n), ki = int(k);
    int lwork = 0;
    CS(cusolverDnDsyevd_bufferSize(c.sol, CUSOLVER_EIG_MODE_VECTOR, CUBLAS_FILL_MODE_UPPER, ni,
                                   G.get(), ni, W.get(), &lwork));
    Dev<double> work(sz(std::max(lwork, 1)));
    Check ck;
    r.b = time_gpu(
        c, gpu_budget(c), [] {},
        [&] {
            const double inv = 1.0 / double(m), zero = 0, one = 1, minus = -1;
            CB(cublasDgemv(c.blas, CUBLAS_OP_T, mi, ni, &inv, dX.get(), mi, ones.get(), 1, &zero,
                           mean.get(), 1));
            CU(cudaMemcpyAsync(dXc.get(), dX.get(), mn * sizeof(double), cudaMemcpyDeviceToDevice,
                               c.s));
            CB(cublasDger(c.blas, mi, ni, &minus, ones.get(), 1, mean.get(), 1, dXc.get(), mi));
            CB(cublasDgemm(c.blas, CUBLAS_OP_T, CUBLAS_OP_N, ni, ni, mi, &one, dXc.get(), mi,
                           dXc.get(), mi, &zero, G.get(), ni));
            CS(cusolverDnDsyevd(c.sol, CUSOLVER_EIG_MODE_VECTOR, CUBLAS_FILL_MODE_UPPER, ni,
                                G.get(), ni, W.get(), work.get(), lwork, info.get()));
            // eigenvalues ascending: the top k vectors are the last k columns
            CB(cublasDgemm(c.blas, CUBLAS_OP_N, CUBLAS_OP_N, mi, ki, ni, &one, dXc.get(), mi,
                           G.get() + sz((n - k) * n), ni, &zero, rscores.get(), mi));
            return true;
        },
        nullptr);
    ck.info("cuSOLVER", info, 1, false);
    gpusvdSetPcaMethod(c.g, GPUSVD_PCA_COVARIANCE);
    r.a = time_gpusvd(
        c, [] {},
        [&] {
            return Api<double>::pca_gpu(c.g, m, n, dX.get(), m, k, C.get(), n, var.get(),
                                        scores.get(), m, gmean.get(), ginfo.get());
        },
        r);
    gpusvdSetPcaMethod(c.g, GPUSVD_PCA_AUTO);
    if (r.a.ok() && r.b.ok()) {
        ck.info("gpusvd", ginfo, 1, true);
        const auto w = W.download(sz(n)), v = var.download(sz(k));
        std::vector<double> want(sz(k));
        for (int64_t j = 0; j < k; ++j) want[sz(j)] = w[sz(n - 1 - j)] / double(m - 1);
        ck.diff(max_rel_diff(sz(k), v.data(), want.data()));
        const auto vc = G.download(sz(n * n)), gc = C.download(sz(n * k));
        double worst = 0;
        for (int64_t j = 0; j < k; ++j) {
            double dot = 0;
            for (int64_t i = 0; i < n; ++i) dot += vc[sz(i + (n - 1 - j) * n)] * gc[sz(i + j * n)];
            worst = std::max(worst, 1.0 - std::fabs(dot));
        }
        ck.bound("1-|cos| components", worst, 1e-8);
    }
    r.c = note_only("-");
    r.flops = 4 * double(m) * double(n) + double(m) * double(n) * double(n) +
              9 * double(n) * double(n) * double(n) + 2 * double(m) * double(n) * double(k);
    r.bytes = double(mn + sz(m * k) + sz(n * k)) * sizeof(double);
    if (goal > 0) r.goals = {{Goal::CusolverRatio, goal}};
    ck.finish(r, 1e-9);
    return r;
}

}  // namespace

void pca_tables(Gpu &c) {
    std::vector<Row> rows;
    const int64_t m = c.o.quick ? 20000 : 1000000;
    guarded(c, rows, "gpu:pca", "dpca_gpu(QR", dims(m, 64) + " k=10",
            [&] { return pca_row(c, m, 64, 10, c.o.quick ? 0.0 : 5.0); });
    guarded(c, rows, "gpu:pca", "dpca_gpu(covariance", dims(m, 64) + " k=10",
            [&] { return pca_covariance_row(c, m, 64, 10, c.o.quick ? 0.0 : 1.0); });
    c.rep.gpu_table(
        "pca, k components with scores and mean (gpusvd QR method: centre + tall QR + Jacobi SVD "
        "of R, against mean GEMV + centring + cuSOLVER Dgesvdj economy, U and V; gpusvd "
        "covariance method: centre + Gram matrix + Jacobi SVD of it, against mean GEMV + "
        "centring + GEMM Xc^T Xc + cuSOLVER Dsyevd + GEMM scores, what CuPy's matmul and "
        "linalg.eigh run)",
        rows, c.dev);
}

}  // namespace bench
