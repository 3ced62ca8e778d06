// Device probe when the library is built without the CUDA backend.
#include "backend.hpp"

namespace gpusvd {

const DeviceStatus &device_status() {
    static const DeviceStatus s{false, "this build of gpusvd has no CUDA backend"};
    return s;
}

}  // namespace gpusvd
