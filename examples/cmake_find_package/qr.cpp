// QR with explicit Q of a batch of small matrices through find_package(gpusvd).
// Exits 1 unless every Q is orthonormal and Q R reproduces A.
#include <gpusvd.h>

#include <cmath>
#include <cstdio>
#include <vector>

int main() {
    const int64_t m = 6, n = 4, batch = 100;
    std::vector<double> A(m * n * batch), A0, R(n * n * batch);
    std::vector<int> info(batch);
    uint64_t state = 42;  // small LCG: reproducible, full-rank data
    for (double &a : A) {
        state = state * 6364136223846793005ULL + 1442695040888963407ULL;
        a = double(state >> 11) / double(1ULL << 53) - 0.5;
    }
    A0 = A;
    gpusvdHandle_t h;
    gpusvdCreate(&h);
    gpusvdStatus_t st = gpusvd_dgeqrf_mgs_batched(h, GPUSVD_ORTH_MGS2, m, n, A.data(), m, m * n,
                                                  R.data(), n, n * n, batch, info.data());
    if (st != GPUSVD_STATUS_SUCCESS) {
        std::fprintf(stderr, "%s\n", gpusvdGetErrorMessage(h));
        return 1;
    }
    double worst = 0;
    for (int64_t b = 0; b < batch; ++b) {
        const double *Q = &A[b * m * n], *Rb = &R[b * n * n], *Ab = &A0[b * m * n];
        for (int64_t i = 0; i < m; ++i)
            for (int64_t j = 0; j < n; ++j) {
                double qr = 0;
                for (int64_t l = 0; l <= j; ++l) qr += Q[i + l * m] * Rb[l + j * n];
                worst = std::fmax(worst, std::fabs(qr - Ab[i + j * m]));
            }
        for (int64_t i = 0; i < n; ++i)
            for (int64_t j = 0; j < n; ++j) {
                double d = 0;
                for (int64_t l = 0; l < m; ++l) d += Q[l + i * m] * Q[l + j * m];
                worst = std::fmax(worst, std::fabs(d - (i == j ? 1.0 : 0.0)));
            }
        if (info[b] != 0) {
            std::fprintf(stderr, "matrix %lld: info %d\n", static_cast<long long>(b), info[b]);
            return 1;
        }
    }
    std::printf("gpusvd %s: %lld QRs, max error %.2e\n", gpusvdGetVersionString(),
                static_cast<long long>(batch), worst);
    gpusvdDestroy(h);
    return worst < 1e-12 ? 0 : 1;
}
