// Bidiagonal SVD through the Golub-Kahan form (GPU bdsvd; the CPU test runs the same functions).
//
// An upper bidiagonal B (diagonal d, superdiagonal e) of order n has the same singular values,
// with signs, as the eigenvalues of the 2n x 2n symmetric tridiagonal T with zero diagonal and
// off-diagonal t = (d_0, e_0, d_1, e_1, ..., d_{n-1}): T's eigenvalues are +-sigma_i, and the
// eigenvector of +sigma_i interleaves the singular vectors, z = (v_0, u_0, v_1, u_1, ...) / sqrt 2.
// A lower bidiagonal is the transpose of an upper one: same T, U and V swap roles.
//
// Values: bisection with Sturm counts on T. Chosen over dqds because every value is computed
// independently (one GPU thread each, no communication), and because the count recurrence on a
// zero-diagonal tridiagonal gives the exact count of a matrix whose off-diagonals are perturbed by
// a few ulps each (Demmel and Kahan, 1990), so every value, tiny ones included, comes out with
// high relative accuracy; bisection then converges to a relative width of 2 ulp.
//
// Vectors: a twisted factorization (Fernando; Parlett and Dhillon) of T - sigma I at each value
// solves for the eigenvector in five O(n) passes with no workspace beyond the vector itself
// (stored straight into U's column and VT's row). Values that are close to each other (small
// absolute and relative gap, see bdsvd_plan.hpp) are refined as a group by inverse iteration with
// Gram-Schmidt against the group's earlier vectors, LAPACK dstein's remedy; exactly zero values
// get an orthonormal completion of their split block instead.
#pragma once

#include <cstdint>

#include "kernels/team.hpp"

namespace gpusvd {
namespace kernels {
namespace bd {

/// The interleaved vector z of one value inside the output: slot k is v_(k/2) for even k and
/// u_(k/2) for odd k (of the upper problem), at stride `us` / `vs` elements. Rows are block-local.
template <class T>
struct Slots {
    T *u, *v;
    int64_t us, vs;
    GPUSVD_HD T &operator[](int64_t k) const {
        return (k & 1) ? u[(k >> 1) * us] : v[(k >> 1) * vs];
    }
};

/// Sturm count: how many eigenvalues of the zero-diagonal tridiagonal of order N with squared
/// off-diagonals t2 (N - 1 of them) are < x. Pivots smaller than pivmin are replaced by -pivmin
/// (LAPACK dstebz), which perturbs T by less than the rounding of its entries.
template <class T>
GPUSVD_HD int64_t sturm_count(const T *t2, int64_t N, T x, T pivmin) {
    T q = -x;
    if (Real<T>::abs(q) < pivmin) q = -pivmin;
    int64_t c = q < T(0);
    for (int64_t k = 0; k + 1 < N; ++k) {
        q = -x - t2[k] / q;
        if (Real<T>::abs(q) < pivmin) q = -pivmin;
        c += q < T(0);
    }
    return c;
}

/// Smallest positive value bisection resolves, in units of the scaled matrix (largest entry in
/// [1/2, 1)): values below it are reported as 0 (exactly zero values: B has a zero diagonal
/// entry; see null_vector).
template <class T>
GPUSVD_HD T tiny_value() {
    return T(4) * Real<T>::safe_min();
}

/// The j-th largest (j = 0 first) singular value of the upper bidiagonal of order nb whose
/// squared Golub-Kahan off-diagonals are t2 (2 nb - 1 entries), scaled so that every entry is at
/// most 1 in magnitude. Geometric bisection while the bracket spans more than a factor 2 (a few
/// steps from the tiny floor to the top), arithmetic after; stops at a relative width of 2 ulp.
template <class T>
GPUSVD_HD T bisect_value(const T *t2, int64_t nb, int64_t j, T pivmin) {
    const int64_t N = 2 * nb, want = nb - j;  // need #{sigma < x} >= nb - j to be above it
    // #{sigma < x} = count(x) - nb for x > 0: the nb eigenvalues -sigma_i are all below x.
    T lo = tiny_value<T>(), hi = T(2) * (T(1) + T(4) * Real<T>::eps());  // |T| <= 2
    if (sturm_count(t2, N, lo, pivmin) - nb >= want) return T(0);
    for (int it = 0; it < 4 * Real<T>::max_exp() && hi - lo > Real<T>::ulp() * hi; ++it) {
        const T mid =
            hi > T(2) * lo ? Real<T>::sqrt(lo) * Real<T>::sqrt(hi) : lo + (hi - lo) / T(2);
        if (sturm_count(t2, N, mid, pivmin) - nb >= want)
            hi = mid;
        else
            lo = mid;
    }
    return lo + (hi - lo) / T(2);
}

/// -num / den for the recurrences that build a vector entry by entry (|num| below overflow,
/// den != 0): when the result would reach `limit`, scale(f) first scales the entries computed so
/// far by f = |den| / |num| and the result is +-1 (the same ratios, a smaller magnitude).
template <class T, class Scale>
GPUSVD_HD T next_entry(T num, T den, T limit, const Scale &scale) {
    if (Real<T>::abs(num) < Real<T>::abs(den) * limit) return -num / den;
    scale(Real<T>::abs(den) / Real<T>::abs(num));
    return (num < T(0)) == (den < T(0)) ? T(-1) : T(1);
}

/// Eigenvector of T (order N = 2 nb, signed off-diagonals t) for the eigenvalue s > 0 by the
/// twisted factorization T - s I = N_r diag(gamma_r) N_r^T at the index r of smallest |gamma_r|:
/// z_r = 1 and the two bidiagonal solves outward from r. The stationary pivots D+ are kept in
/// z's own slots until the solve overwrites them; the progressive pivots D- are recomputed.
/// z is left unnormalised (|z|_inf about 1).
template <class T, class V>
GPUSVD_HD void twisted_vector(const T *t, const T *t2, int64_t N, T s, T pivmin, const V &z) {
    auto guard = [&](T q) { return Real<T>::abs(q) < pivmin ? -pivmin : q; };
    T dp = guard(-s);  // D+_0
    z[0] = dp;
    for (int64_t k = 0; k + 1 < N; ++k) {
        dp = guard(-s - t2[k] / dp);
        z[k + 1] = dp;
    }
    // gamma_k = -s - t2[k-1] / D+_{k-1} - t2[k] / D-_{k+1}, the twist at k.
    // Loads of z are issued a step ahead of their use (and of the stores in between, which the
    // compiler must assume may alias them): one memory latency per pass, not per step.
    T dm = guard(-s);  // D-_{N-1}
    int64_t r = N - 1;
    T best = Real<T>::abs(N > 1 ? -s - t2[N - 2] / z[N - 2] : -s);
    T dp_prev = N > 2 ? z[N - 3] : T(1);
    for (int64_t k = N - 2; k >= 0; --k) {
        const T dpk = dp_prev;
        if (k > 1) dp_prev = z[k - 2];
        const T g = -s - (k > 0 ? t2[k - 1] / dpk : T(0)) - t2[k] / dm;
        if (Real<T>::abs(g) < best) {
            best = Real<T>::abs(g);
            r = k;
        }
        dm = guard(-s - t2[k] / dm);
    }
    // D-_k for k > r into the slots (D+ is not needed there), then the solves.
    dm = guard(-s);
    for (int64_t k = N - 1; k > r; --k) {
        z[k] = dm;
        dm = guard(-s - t2[k - 1] / dm);
    }
    // Each entry is -t_k z / D: kept below `limit` by scaling the part already solved down when
    // the next one would pass it (rare; earlier entries may underflow, negligibly beside it).
    const T limit = Real<T>::ldexp(T(1), Real<T>::max_exp() / 4);
    T zk = T(1);
    T piv = r + 1 < N ? z[r + 1] : T(1);
    z[r] = zk;
    for (int64_t k = r; k + 1 < N; ++k) {
        const T dk = piv;
        if (k + 2 < N) piv = z[k + 2];
        zk = next_entry(t[k] * zk, dk, limit, [&](T f) {
            for (int64_t i = r; i <= k; ++i) z[i] *= f;
        });
        z[k + 1] = zk;
    }
    zk = z[r];  // 1, or less if the first solve scaled it
    piv = r > 0 ? z[r - 1] : T(1);
    for (int64_t k = r - 1; k >= 0; --k) {
        const T dk = piv;
        if (k > 0) piv = z[k - 1];
        zk = next_entry(t[k] * zk, dk, limit, [&](T f) {
            for (int64_t i = k + 1; i < N; ++i) z[i] *= f;
        });
        z[k] = zk;
    }
}

/// One step of inverse iteration: z <- (T - s I)^{-1} z by Gaussian elimination with partial
/// pivoting (rows of U in a, b, c: diagonal and two superdiagonals), pivots below tol raised to
/// tol (dlagtf/dlagts's perturbation). Returns |z|_inf afterwards, rescaled below overflow.
template <class T, class V, class W>
GPUSVD_HD T inverse_step(const T *t, int64_t N, T s, T tol, const V &z, const W &a, const W &b,
                         const W &c) {
    auto lift = [&](T p) { return Real<T>::abs(p) < tol ? (p < T(0) ? -tol : tol) : p; };
    T p0 = -s, p1 = N > 1 ? t[0] : T(0), r = z[0];  // the row carried down
    // z[k + 1] is loaded a step early: in program order before the stores of step k, which the
    // compiler must otherwise assume may alias it (a full memory latency per step).
    T rn_next = N > 1 ? z[1] : T(0);
    for (int64_t k = 0; k + 1 < N; ++k) {
        const T sub = t[k], dg = -s, sup = k + 2 < N ? t[k + 1] : T(0), rn = rn_next;
        if (k + 2 < N) rn_next = z[k + 2];
        if (Real<T>::abs(p0) >= Real<T>::abs(sub)) {
            p0 = lift(p0);
            const T m = sub / p0;
            a[k] = p0, b[k] = p1, c[k] = T(0), z[k] = r;
            p0 = dg - m * p1, p1 = sup, r = rn - m * r;
        } else {
            const T m = p0 / sub;
            a[k] = sub, b[k] = dg, c[k] = sup, z[k] = rn;
            p0 = p1 - m * dg, p1 = -m * sup, r = r - m * rn;
        }
    }
    a[N - 1] = lift(p0), z[N - 1] = r;
    // Back substitution with the solved x_k+1, x_k+2 in registers and row k's entries loaded a
    // step ahead (before the store of x_k+1, which the compiler must assume may alias them).
    const T limit = Real<T>::ldexp(T(1), Real<T>::max_exp() - 8);
    T big = T(0), x1 = T(0), x2 = T(0);
    T ak = a[N - 1], bk = T(0), ck = T(0), yk = z[N - 1];
    for (int64_t k = N - 1; k >= 0; --k) {
        T an = T(1), bn = T(0), cn = T(0), yn = T(0);
        if (k > 0) an = a[k - 1], bn = b[k - 1], cn = c[k - 1], yn = z[k - 1];
        T x = (yk - bk * x1 - ck * x2) / ak;
        if (!(Real<T>::abs(x) < limit)) {  // scale what is solved and what is left alike
            const T f = Real<T>::ldexp(T(1), -(Real<T>::max_exp() / 2));
            for (int64_t i = 0; i < N; ++i) z[i] *= f;
            big *= f, x1 *= f, x2 *= f, yk *= f, yn *= f;
            x = (yk - bk * x1 - ck * x2) / ak;
        }
        z[k] = x;
        if (Real<T>::abs(x) > big) big = Real<T>::abs(x);
        x2 = x1, x1 = x;
        ak = an, bk = bn, ck = cn, yk = yn;
    }
    return big;
}

/// The null vector of the odd-order piece [a, b] of T (slots a..b, joined by non-zero t, cut off
/// by zero t at both ends): every other entry, z_a = 1, z_k+2 = -t_k z_k / t_k+1, exactly the
/// singular vector of a zero value (a zero d splits T into pieces; each zero value of B is a
/// pair of odd pieces, one of u slots and one of v slots). Other slots are left alone.
template <class T, class V>
GPUSVD_HD void null_vector(const T *t, int64_t a, int64_t b, const V &z) {
    const T big = Real<T>::ldexp(T(1), Real<T>::max_exp() / 4);
    T zk = T(1);
    z[a] = zk;
    for (int64_t k = a; k + 2 <= b; k += 2) {
        zk = next_entry(t[k] * zk, t[k + 1], big, [&](T f) {
            for (int64_t i = a; i <= k; i += 2) z[i] *= f;
        });
        z[k + 2] = zk;
    }
}

/// Euclidean norms of the odd (u) and even (v) slots, scaled safely. Team code (team.hpp): the
/// members split the slots; every member gets the norms.
template <class T, class Team, class V>
GPUSVD_HD void part_norms(const Team &tm, const V &z, int64_t N, T &nu, T &nv) {
    T mu = T(0), mv = T(0);
    for (int64_t k = tm.rank(); k < N; k += tm.size()) {
        const T x = Real<T>::abs(z[k]);
        if (k & 1)
            mu = x > mu ? x : mu;
        else
            mv = x > mv ? x : mv;
    }
    mu = tm.max(mu), mv = tm.max(mv);
    T su = T(0), sv = T(0);
    for (int64_t k = tm.rank(); k < N; k += tm.size()) {
        const T m = (k & 1) ? mu : mv;
        if (m == T(0)) continue;
        const T x = z[k] / m;
        ((k & 1) ? su : sv) += x * x;
    }
    nu = mu * Real<T>::sqrt(tm.sum(su));
    nv = mv * Real<T>::sqrt(tm.sum(sv));
}

/// Scales the u slots and the v slots of z to unit length each (a part that vanished stays 0).
template <class T, class Team, class V>
GPUSVD_HD void normalise_parts(const Team &tm, const V &z, int64_t N) {
    T nu, nv;
    part_norms(tm, z, N, nu, nv);
    const T fu = nu > T(0) ? T(1) / nu : T(0), fv = nv > T(0) ? T(1) / nv : T(0);
    for (int64_t k = tm.rank(); k < N; k += tm.size()) z[k] *= (k & 1) ? fu : fv;
    tm.sync();
}

/// Removes from z's u part and v part their components along the (unit) parts of q: the
/// projection onto span{q, J q} with J = diag(1, -1, 1, ...), the eigenvectors of +-sigma_q.
template <class T, class Team, class V>
GPUSVD_HD void project_out(const Team &tm, const V &z, const V &q, int64_t N) {
    T du = T(0), dv = T(0);
    for (int64_t k = tm.rank(); k < N; k += tm.size()) ((k & 1) ? du : dv) += q[k] * z[k];
    du = tm.sum(du), dv = tm.sum(dv);
    for (int64_t k = tm.rank(); k < N; k += tm.size()) z[k] -= ((k & 1) ? du : dv) * q[k];
    tm.sync();
}

/// A pseudo-random entry in [-1, 1) for slot m of restart `seed` (a hash: any member, any order).
template <class T>
GPUSVD_HD T restart_entry(int64_t m, uint32_t seed) {
    uint32_t x = static_cast<uint32_t>(m) * 2654435761u ^ (seed * 2246822519u + 0x9e3779b9u);
    x ^= x >> 15, x *= 2246822519u, x ^= x >> 13, x *= 3266489917u, x ^= x >> 16;
    return T(static_cast<int32_t>(x)) * T(4.656612873077393e-10);
}

/// Refines the vectors of one group of close values (members in descending order, each vector
/// already holding its twisted solution): member i is orthogonalised against members 0..i-1
/// (u and v parts separately), improved by `steps` inverse-iteration steps at its own value with
/// orthogonalisation before each, and orthogonalised twice more at the end (dstein's scheme,
/// which converges to the member's own vector because its value is accurate). Every member's
/// parts come out unit length. vec(i) gives member i's slots; a, b, c: N-element scratch.
/// Team code: the members share the projections; one member runs the (serial) inverse steps.
template <class T, class Team, class VecOf, class W>
GPUSVD_HD void refine_group(const Team &tm, const T *t, int64_t N, const T *sig, int k, T tol,
                            int steps, const VecOf &vec, const W &a, const W &b, const W &c) {
    // steps == 0: Gram-Schmidt of the twisted solutions only. Inverse iteration with a pivoted
    // LU is backward stable in the absolute sense (an error of a few eps |T|), so it would mix
    // the group with every value within that distance: the plan asks for it only where the
    // group is that far from every other value (tiny graded values are not).
    for (int i = 0; i < k; ++i) {
        const auto z = vec(i);
        normalise_parts<T>(tm, z, N);
        if (i == 0) continue;
        for (int s = 0; s < steps; ++s) {
            for (int j = 0; j < i; ++j) project_out<T>(tm, z, vec(j), N);
            T nu, nv;
            part_norms(tm, z, N, nu, nv);
            if (nu + nv < T(0.01)) {
                // Equal values give equal twisted solutions: restart from a pseudo-random vector
                // (the inverse step then finds the rest of the group's subspace).
                for (int64_t m = tm.rank(); m < N; m += tm.size())
                    z[m] = restart_entry<T>(m, uint32_t(i * 8 + s));
                tm.sync();
                for (int j = 0; j < i; ++j) project_out<T>(tm, z, vec(j), N);
            }
            normalise_parts<T>(tm, z, N);
            if (tm.rank() == 0) inverse_step<T>(t, N, sig[i], tol, z, a, b, c);
            tm.sync();
            normalise_parts<T>(tm, z, N);
        }
        for (int pass = 0; pass < 2; ++pass) {
            for (int j = 0; j < i; ++j) project_out<T>(tm, z, vec(j), N);
            normalise_parts<T>(tm, z, N);
        }
    }
}

/// Sets column `self` of the nb-row block Q (column j at q(j), rows stride 1 through the
/// accessor) to a unit vector orthogonal to the columns listed in cols[0..ncols): the first unit
/// vector e_r that keeps more than half its length after two rounds of projection.
template <class T, class Col>
GPUSVD_HD void complete_column(int64_t nb, const int64_t *cols, int64_t ncols, int64_t self,
                               const Col &q) {
    const auto x = q(self);
    for (int64_t r = 0; r < nb; ++r) {
        for (int64_t i = 0; i < nb; ++i) x[i] = i == r ? T(1) : T(0);
        for (int pass = 0; pass < 2; ++pass)
            for (int64_t j = 0; j < ncols; ++j) {
                const auto y = q(cols[j]);
                T dot = T(0);
                for (int64_t i = 0; i < nb; ++i) dot += y[i] * x[i];
                for (int64_t i = 0; i < nb; ++i) x[i] -= dot * y[i];
            }
        T ss = T(0);
        for (int64_t i = 0; i < nb; ++i) ss += x[i] * x[i];
        if (ss > T(0.25) || r + 1 == nb) {
            const T f = ss > T(0) ? T(1) / Real<T>::sqrt(ss) : T(0);
            for (int64_t i = 0; i < nb; ++i) x[i] *= f;
            return;
        }
    }
}

}  // namespace bd
}  // namespace kernels
}  // namespace gpusvd
