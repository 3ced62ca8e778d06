// Workspace layout shared by the CPU routines (host workspace) and the GPU dispatch (device
// workspace): one layout function serves both the _bufferSize answer and the pointers.
#pragma once

#include <cstddef>
#include <cstdint>

namespace gpusvd {

/// Carves typed, 64-byte aligned arrays out of one workspace. With base == nullptr it only
/// counts, so the same layout code gives both the _bufferSize answer and the pointers.
class Bump {
public:
    explicit Bump(void *base = nullptr) : base_(static_cast<char *>(base)) {}
    template <class T>
    T *take(int64_t count) {
        off_ = align(off_);
        T *p = base_ ? reinterpret_cast<T *>(base_ + off_) : nullptr;
        size_t add;
        // Saturates: an absurd size then fails as an allocation, never wraps around.
        if (__builtin_mul_overflow(static_cast<size_t>(count > 0 ? count : 0), sizeof(T), &add) ||
            __builtin_add_overflow(off_, add, &off_))
            off_ = kHuge;
        return p;
    }
    /// An untyped region of `bytes` bytes (another routine's workspace inside this one).
    void *take_bytes(size_t bytes) {
        return take<char>(bytes > size_t(INT64_MAX) ? INT64_MAX : static_cast<int64_t>(bytes));
    }
    size_t bytes() const { return align(off_); }

private:
    static constexpr size_t kHuge = ~size_t(0) / 2;
    static size_t align(size_t v) { return v >= kHuge ? kHuge : (v + 63) & ~size_t(63); }
    char *base_;
    size_t off_ = 0;
};

}  // namespace gpusvd
