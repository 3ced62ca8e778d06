// Binding the entry points of a library loaded with dlopen (cuBLAS, NCCL): each symbol into its
// function pointer; the first one missing marks the set unusable with the reason.
#pragma once

#include <dlfcn.h>

#include <cstdio>

namespace gpusvd {
namespace gpu {

/// f = lib's `name`; where it is missing, set.ok = false and set.why names it (first miss only).
/// Set: a struct with `bool ok` and `char why[N]`.
template <class F, class Set>
void bind_symbol(void *lib, const char *name, F &f, Set &set, const char *library) {
    f = reinterpret_cast<F>(dlsym(lib, name));
    if (!f && set.ok) {
        set.ok = false;
        std::snprintf(set.why, sizeof set.why, "%s has no symbol %s", library, name);
    }
}

}  // namespace gpu
}  // namespace gpusvd
