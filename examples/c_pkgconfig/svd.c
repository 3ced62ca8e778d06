/* Economy SVD of a small matrix through the installed library, found with pkg-config:
 *   cc svd.c $(pkg-config --cflags --libs gpusvd) -o svd && ./svd
 * Prints the singular values and the residual |A - U S V^T|_max; exits 1 if it is not tiny. */
#include <gpusvd.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

int main(void) {
    enum { M = 4, N = 3 };
    const double A0[M * N] = {4, 2, 0, 1, 1, 3, 2, 0, 0, 1, 5, 2}; /* column-major */
    double A[M * N], S[N], U[M * N], V[N * N];
    int info = 0;
    memcpy(A, A0, sizeof A);

    gpusvdHandle_t h;
    if (gpusvdCreate(&h) != GPUSVD_STATUS_SUCCESS) return 1;
    gpusvdStatus_t st = gpusvd_dgesvj(h, GPUSVD_JOB_VEC, GPUSVD_JOB_VEC, M, N, A, M, S, U, M, V,
                                      N, &info);
    if (st != GPUSVD_STATUS_SUCCESS || info != 0) {
        fprintf(stderr, "gpusvd_dgesvj: %s (info %d): %s\n", gpusvdGetStatusName(st), info,
                gpusvdGetErrorMessage(h));
        return 1;
    }
    double err = 0;
    for (int i = 0; i < M; ++i)
        for (int j = 0; j < N; ++j) {
            double a = 0;
            for (int l = 0; l < N; ++l) a += U[i + l * M] * S[l] * V[j + l * N];
            err = fmax(err, fabs(a - A0[i + j * M]));
        }
    printf("gpusvd %s: S = %.6f %.6f %.6f, max |A - U S V^T| = %.2e\n",
           gpusvdGetVersionString(), S[0], S[1], S[2], err);
    gpusvdDestroy(h);
    return err < 1e-12 ? 0 : 1;
}
