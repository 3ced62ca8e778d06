// What the CPU backend needs from OpenBLAS beyond LAPACK: control of its threads, and its
// work buffers, and its threads. The first time a thread runs a blocked BLAS kernel, OpenBLAS maps a
// buffer of 128 MiB (its BUFFER_SIZE on x86-64) and, when the system refuses the mapping,
// retries forever: a call would hang instead of failing. Before LAPACK runs, the CPU backend
// therefore checks that the address space for one buffer per concurrent BLAS thread can be had
// now, and uses fewer threads (or reports ALLOC_FAILED) when it cannot.
#pragma once

namespace gpusvd::cpu {

/// How many of `users` BLAS threads running at once could each map a work buffer now
/// (0..users). `users` itself when the BLAS is not OpenBLAS.
int blas_buffers_available(int users);

/// False when OpenBLAS would have to start its threads and the system refuses new threads.
/// A pthread OpenBLAS starts them lazily after a fork, at its next call (even the call that
/// sets its thread count), and when it cannot, it raises SIGINT: the process dies. So while its
/// threads are down, this starts and joins as many threads of its own first, as a test.
bool blas_threads_startable();

/// OpenBLAS's thread count for one call (1 with another BLAS).
int blas_threads();

/// While alive, a pthread OpenBLAS runs single-threaded (process-wide, reference counted so
/// concurrent batched calls from several handles restore the user's setting only when the last
/// one ends). A no-op with OpenBLAS's OpenMP build or another BLAS.
class BlasSingleThreaded {
public:
    explicit BlasSingleThreaded(bool active);
    ~BlasSingleThreaded();
    BlasSingleThreaded(const BlasSingleThreaded &) = delete;
    BlasSingleThreaded &operator=(const BlasSingleThreaded &) = delete;

private:
    bool active_;
};

}  // namespace gpusvd::cpu
