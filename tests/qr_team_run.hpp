// Runs the team QR of the GPU kernels (src/kernels/qr_team.hpp) on the host for the real and
// complex team tests: padded arrays with sentinels around the outputs, a NaN-filled workspace,
// SerialTeam or std::threads as team members.
#pragma once

#include <algorithm>
#include <complex>
#include <vector>

#include "kernels/qr_team.hpp"
#include "test_common.hpp"
#include "thread_team.hpp"

namespace gpusvd_test {

/// How the team runs: members == 0 is SerialTeam, else ThreadTeam with that many members.
/// in_place: the global path's layout (the team works on the caller's A and R, int64_t indices);
/// else the shared-memory layout (a copy, int indices).
struct QrTeamConfig {
    int members = 0;
    bool in_place = false;
};

template <typename T>
struct QrTeamRun {
    std::vector<T> Q, R;  // Q: m x k (ld m), R: k x n (ld k)
    int info = -777;
};

/// The kernels' element type of a test's T (std::complex<R> has Complex<R>'s layout), a NaN of
/// it (reads of unwritten workspace poison the results) and the sentinel around the outputs.
template <typename T>
struct QrTeamElem {
    using type = T;
    static T nan() { return nan_v<T>(); }
    static T pad() { return sentinel<T>(); }
};
template <typename R>
struct QrTeamElem<std::complex<R>> {
    using type = gpusvd::kernels::Complex<R>;
    static type nan() { return type(nan_v<R>(), nan_v<R>()); }
    static std::complex<R> pad() { return std::complex<R>(sentinel<R>(), -sentinel<R>() / 2); }
};

/// Runs qr_team on A0 (m x n, ld m) with padded leading dimensions and sentinels around the
/// outputs; checks that nothing outside them is written, that the shared-memory paths leave columns
/// k..n-1 of A alone, and that every member returns the same info.
template <typename T>
QrTeamRun<T> run_qr(int64_t m, int64_t n, const std::vector<T> &A0, bool reorth,
                    const QrTeamConfig &cfg = {}) {
    namespace gk = gpusvd::kernels;
    using K = typename QrTeamElem<T>::type;
    const int64_t k = std::min(m, n), lda = m + 2, ldr = k + 1;
    const T pad = QrTeamElem<T>::pad();
    std::vector<T> A = with_ld(m, n, A0.data(), m, lda, pad);
    A.push_back(pad);
    std::vector<T> R(sz(ldr * n + 1), pad);
    const gk::QrShape shape = gk::qr_shape(m, n, cfg.in_place);
    std::vector<K> ws(sz(shape.elems + 1), QrTeamElem<T>::nan());
    const gk::QrIO<K> io{
        m, n, reinterpret_cast<K *>(A.data()), lda, reinterpret_cast<K *>(R.data()), ldr};
    QrTeamRun<T> r;
    auto one = [&](const auto &team) {
        return cfg.in_place ? gk::qr_team<K, int64_t>(team, io, shape, ws.data(), reorth)
                            : gk::qr_team<K, int>(team, io, shape, ws.data(), reorth);
    };
    if (cfg.members == 0) {
        r.info = one(gk::SerialTeam{});
    } else {
        std::vector<int> all(sz(cfg.members), -777);
        run_thread_team(
            cfg.members, cfg.members,
            [&](const ThreadTeam &t, const ThreadTeam &, int rank) { all[sz(rank)] = one(t); });
        for (int i = 1; i < cfg.members; ++i) EXPECT_EQ(all[sz(i)], all[0]) << "member " << i;
        r.info = all[0];
    }
    EXPECT_EQ(A.back(), pad) << "A written past its end";
    EXPECT_EQ(R.back(), pad) << "R written past its end";
    EXPECT_TRUE(padding_intact(m, n, A.data(), lda, pad)) << "A written outside m x n";
    EXPECT_TRUE(padding_intact(k, n, R.data(), ldr, pad)) << "R written outside k x n";
    if (!cfg.in_place && m < n) {
        // The contract allows anything there; the shared-memory paths leave them alone.
        for (int64_t j = k; j < n; ++j)
            for (int64_t i = 0; i < m; ++i)
                EXPECT_EQ(A[sz(i + j * lda)], A0[sz(i + j * m)]) << "A(" << i << "," << j << ")";
    }
    r.Q = with_ld(m, k, A.data(), lda, m, T(0));
    r.R = with_ld(k, n, R.data(), ldr, k, T(0));
    return r;
}

}  // namespace gpusvd_test
