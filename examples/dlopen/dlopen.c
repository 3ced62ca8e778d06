/* Load libgpusvd.so.0 at run time, as Python's ctypes or Julia's ccall do, and call through
 * dlsym: eigenvalues of a 2x2 rotation (expected +-i).
 *   cc dlopen.c -I<prefix>/include -ldl -o dlopen && LD_LIBRARY_PATH=<prefix>/lib ./dlopen */
#include <dlfcn.h>
#include <gpusvd.h>
#include <math.h>
#include <stdio.h>

typedef gpusvdStatus_t (*create_fn)(gpusvdHandle_t *);
typedef gpusvdStatus_t (*destroy_fn)(gpusvdHandle_t);
typedef const char *(*info_fn)(void);
typedef gpusvdStatus_t (*geev_fn)(gpusvdHandle_t, gpusvdJob_t, int64_t, double *, int64_t,
                                  int64_t, double *, double *, int64_t, double *, int64_t,
                                  int64_t, int64_t, int *);

int main(void) {
    void *lib = dlopen("libgpusvd.so.0", RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
        fprintf(stderr, "dlopen: %s\n", dlerror());
        return 1;
    }
    create_fn create = (create_fn)dlsym(lib, "gpusvdCreate");
    destroy_fn destroy = (destroy_fn)dlsym(lib, "gpusvdDestroy");
    info_fn build_info = (info_fn)dlsym(lib, "gpusvdGetBuildInfo");
    geev_fn geev = (geev_fn)dlsym(lib, "gpusvd_dgeev_batched");
    if (!create || !destroy || !build_info || !geev) {
        fprintf(stderr, "dlsym: missing symbol\n");
        return 1;
    }
    gpusvdHandle_t h;
    create(&h);
    double A[4] = {0, 1, -1, 0}, wr[2], wi[2];
    int info = -1;
    gpusvdStatus_t st = geev(h, GPUSVD_JOB_NOVEC, 2, A, 2, 4, wr, wi, 2, NULL, 1, 4, 1, &info);
    printf("%s\neigenvalues: %g%+gi, %g%+gi (status %d, info %d)\n", build_info(), wr[0], wi[0],
           wr[1], wi[1], (int)st, info);
    destroy(h);
    dlclose(lib);
    return st == 0 && info == 0 && fabs(wi[0] - 1) < 1e-14 && fabs(wi[1] + 1) < 1e-14 &&
                   fabs(wr[0]) < 1e-14
               ? 0
               : 1;
}
