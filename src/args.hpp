// Argument validation shared by every entry point: the first failing check records a message
// "routine: argument NAME = VALUE is invalid: REASON" and later checks become no-ops, so an
// entry point reads as a flat list of rules and returns args.status().
#pragma once

#include <cstdint>
#include <cstdio>
#include <limits>

#include "context.hpp"

namespace gpusvd {

class Args {
public:
    Args(gpusvdHandle_t h, const char *routine) : h_(h), routine_(routine) {
        if (!h) {
            status_ = fail(nullptr, GPUSVD_STATUS_INVALID_VALUE,
                           "%s: argument handle = NULL is invalid: create one with gpusvdCreate",
                           routine);
        } else {
            begin_call(h);
        }
    }

    bool ok() const { return status_ == GPUSVD_STATUS_SUCCESS; }
    gpusvdStatus_t status() const { return status_; }
    gpusvdHandle_t handle() const { return h_; }
    const char *routine() const { return routine_; }

    Args &nonneg(const char *name, int64_t v) {
        if (ok() && v < 0) invalid(name, v, "must be >= 0");
        return *this;
    }
    /// lo <= v <= hi
    Args &range(const char *name, int64_t v, int64_t lo, int64_t hi, const char *why) {
        if (ok() && (v < lo || v > hi)) invalid(name, v, why);
        return *this;
    }
    /// Leading dimension: ld >= max(1, rows).
    Args &ld(const char *name, int64_t ld, int64_t rows, const char *rows_name) {
        if (ok() && ld < (rows > 1 ? rows : 1)) {
            char why[96];
            std::snprintf(why, sizeof why, "must be >= max(1, %s) = %lld", rows_name,
                          static_cast<long long>(rows > 1 ? rows : 1));
            invalid(name, ld, why);
        }
        return *this;
    }
    /// Whether the handle's matrix layout is row-major (gpusvdSetMatrixLayout).
    bool row_major() const { return h_ && h_->layout == GPUSVD_LAYOUT_ROW_MAJOR; }
    /// Leading dimension of a rows x cols matrix in the handle's layout: ld >= max(1, rows)
    /// column-major, ld >= max(1, cols) row-major.
    Args &ld(const char *name, int64_t ld, int64_t rows, const char *rows_name, int64_t cols,
             const char *cols_name) {
        return row_major() ? this->ld(name, ld, cols, cols_name) : this->ld(name, ld, rows, rows_name);
    }
    /// extent() of a rows x cols matrix in the handle's layout.
    Args &extent_in_layout(const char *name, int64_t rows, int64_t cols, int64_t ld,
                           size_t elem_size) {
        return row_major() ? extent(name, cols, rows, ld, 0, 1, elem_size)
                           : extent(name, rows, cols, ld, 0, 1, elem_size);
    }
    /// Routines that take column-major matrices only: NOT_SUPPORTED under a row-major layout,
    /// before anything is read (never a silent misread).
    Args &column_major_only() {
        if (ok() && row_major())
            status_ = fail(h_, GPUSVD_STATUS_NOT_SUPPORTED,
                           "%s: the handle's matrix layout GPUSVD_LAYOUT_ROW_MAJOR is not "
                           "supported by this routine (it takes column-major matrices): set "
                           "GPUSVD_LAYOUT_COL_MAJOR with gpusvdSetMatrixLayout",
                           routine_);
        return *this;
    }
    /// Batch stride: stride >= min_stride (only checked for batches of more than one matrix).
    Args &stride(const char *name, int64_t stride, int64_t min_stride, int64_t batch,
                 const char *rule) {
        if (ok() && batch > 1 && stride < min_stride) {
            char why[128];
            std::snprintf(why, sizeof why, "must be >= %s = %lld so matrices do not overlap", rule,
                          static_cast<long long>(min_stride));
            invalid(name, stride, why);
        }
        return *this;
    }
    Args &job(const char *name, gpusvdJob_t v) {
        return enumeration(name, v, GPUSVD_JOB_NOVEC, GPUSVD_JOB_VEC,
                           "must be GPUSVD_JOB_NOVEC or GPUSVD_JOB_VEC");
    }
    Args &uplo(const char *name, gpusvdUplo_t v) {
        return enumeration(name, v, GPUSVD_UPPER, GPUSVD_LOWER,
                           "must be GPUSVD_UPPER or GPUSVD_LOWER");
    }
    Args &orth(const char *name, gpusvdOrth_t v) {
        return enumeration(name, v, GPUSVD_ORTH_MGS, GPUSVD_ORTH_MGS2,
                           "must be GPUSVD_ORTH_MGS or GPUSVD_ORTH_MGS2");
    }
    /// A pointer that the call will dereference must not be NULL.
    Args &ptr(const char *name, const void *p, bool needed) {
        if (ok() && needed && !p)
            status_ = fail(h_, GPUSVD_STATUS_INVALID_VALUE,
                           "%s: argument %s = NULL is invalid: the array is referenced", routine_,
                           name);
        return *this;
    }
    /// The memory a (batched) rows x cols array spans must be addressable: elements and bytes
    /// of (batch-1)*stride + (cols-1)*ld + rows fit int64_t and size_t.
    Args &extent(const char *name, int64_t rows, int64_t cols, int64_t ld, int64_t stride,
                 int64_t batch, size_t elem_size) {
        if (!ok() || rows <= 0 || cols <= 0 || batch <= 0) return *this;
        int64_t a, b, total;
        bool over = __builtin_mul_overflow(cols - 1, ld, &a) ||
                    __builtin_mul_overflow(batch - 1, stride, &b) ||
                    __builtin_add_overflow(a, b, &total) ||
                    __builtin_add_overflow(total, rows, &total);
        size_t bytes;
        over = over || __builtin_mul_overflow(static_cast<size_t>(total), elem_size, &bytes);
        if (over)
            status_ = fail(h_, GPUSVD_STATUS_INVALID_VALUE,
                           "%s: argument %s is invalid: %lld x %lld (ld %lld) x %lld matrices "
                           "overflow the addressable size",
                           routine_, name, static_cast<long long>(rows),
                           static_cast<long long>(cols), static_cast<long long>(ld),
                           static_cast<long long>(batch));
        return *this;
    }
    /// The CPU backend calls LAPACK with 32-bit integers.
    Args &lapack_int(const char *name, int64_t v) {
        if (ok() && v > std::numeric_limits<int32_t>::max())
            status_ = fail(h_, GPUSVD_STATUS_NOT_SUPPORTED,
                           "%s: argument %s = %lld is not supported on the CPU backend: LAPACK "
                           "takes 32-bit integers (limit 2147483647)",
                           routine_, name, static_cast<long long>(v));
        return *this;
    }
    Args &set(gpusvdStatus_t s) {
        if (ok()) status_ = s;
        return *this;
    }

private:
    template <class E>
    Args &enumeration(const char *name, E v, E lo, E hi, const char *why) {
        if (ok() && (static_cast<int>(v) < static_cast<int>(lo) ||
                     static_cast<int>(v) > static_cast<int>(hi)))
            invalid(name, static_cast<int>(v), why);  // as the caller's int, sign included
        return *this;
    }
    void invalid(const char *name, int64_t v, const char *why) {
        status_ = fail(h_, GPUSVD_STATUS_INVALID_VALUE, "%s: argument %s = %lld is invalid: %s",
                       routine_, name, static_cast<long long>(v), why);
    }

    gpusvdHandle_t h_;
    const char *routine_;
    gpusvdStatus_t status_ = GPUSVD_STATUS_SUCCESS;
};

}  // namespace gpusvd
