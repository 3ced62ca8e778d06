#include "pipeline.hpp"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "cpu/thread_pool.hpp"
#include "pipeline_plan.hpp"
#include "runtime.hpp"

namespace gpusvd {
namespace gpu {
namespace {

// Per slot: big enough that a chunk's kernel outlasts its launch and copy overheads, small
// enough that three slots of pinned memory are cheap to allocate and the first chunk's
// transfer, which nothing overlaps, stays short.
constexpr size_t kSlotTarget = size_t(32) << 20;

/// GPUSVD_PIPELINE_SLOT_BYTES (>= 1) caps the slot size (tests: many chunks of a small batch).
size_t slot_target() {
    const char *v = std::getenv("GPUSVD_PIPELINE_SLOT_BYTES");
    const long long cap = v ? std::atoll(v) : 0;
    return cap >= 1 && static_cast<size_t>(cap) < kSlotTarget ? static_cast<size_t>(cap)
                                                              : kSlotTarget;
}

size_t align_up(size_t x) { return (x + 255) & ~size_t(255); }

size_t op_bytes(const Operand &o, int64_t count) {
    return static_cast<size_t>(o.rows) * o.cols * o.elem * count;
}

/// Bytes of one slot holding `count` matrices (operands, info, workspace), and the offsets.
struct SlotLayout {
    size_t off[kMaxOperands], info_off, ws_off, ws, bytes;
    SlotLayout(const Operand *ops, int nops, int64_t count, size_t ws_bytes) {
        size_t at = 0;
        for (int i = 0; i < nops; ++i) {
            off[i] = at;
            at += align_up(op_bytes(ops[i], count));
        }
        info_off = at;
        at += align_up(sizeof(int) * count);
        ws_off = at;
        ws = ws_bytes;
        bytes = at + align_up(ws_bytes);
    }
};

/// The host copies of one pipeline step, between the user's arrays and the compact staging
/// layout, run as one job on all cores: the results of the chunk just finished and the inputs of
/// the next go together, in pieces of about kPiece bytes (contiguous runs split, strided
/// matrices as runs of columns), so that every core takes part even when one operand of a chunk
/// is only a few megabytes. One job per step rather than one per operand: each job wakes the
/// pool's workers, which costs more than a megabyte's copy.
class HostCopies {
public:
    /// `count` matrices of o from matrix `first`, to (to_compact) or from `compact`.
    void add(const Operand &o, int64_t first, int64_t count, char *compact, bool to_compact) {
        const size_t col = static_cast<size_t>(o.rows) * o.elem;
        char *user = static_cast<char *>(o.host) + static_cast<size_t>(first * o.stride) * o.elem;
        if (o.ld == o.rows && (o.stride == o.rows * o.cols || count == 1)) {
            const size_t total = col * o.cols * count;
            for (size_t at = 0; at < total; at += kPiece)
                add_run(user + at, compact + at, std::min(kPiece, total - at), to_compact);
            return;
        }
        const int64_t cols = count * o.cols;
        if (col == 0) return;
        const int64_t per = std::max<int64_t>(1, static_cast<int64_t>(kPiece / col));
        for (int64_t j = 0; j < cols; j += per)
            push({&o, user, compact, j, std::min(cols, j + per), 0, to_compact});
    }
    /// `bytes` contiguous bytes.
    void add_run(void *user, void *compact, size_t bytes, bool to_compact) {
        push({nullptr, static_cast<char *>(user), static_cast<char *>(compact), 0, 0, bytes,
              to_compact});
    }
    void run() {
        const int64_t n = static_cast<int64_t>(pieces_.size());
        if (n == 0) return;
        size_t bytes = 0;
        for (const Piece &p : pieces_)
            bytes += p.o ? static_cast<size_t>(p.c1 - p.c0) * p.o->rows * p.o->elem : p.bytes;
        const int threads = bytes > (size_t(1) << 18) ? cpu::hardware_threads() : 1;
        auto one = [&](int64_t i, int) { pieces_[static_cast<size_t>(i)].copy(); };
        cpu::parallel_for(n, threads, 1, one);
        pieces_.clear();
    }

private:
    static constexpr size_t kPiece = size_t(256) << 10;
    struct Piece {
        const Operand *o;  // null: a contiguous run of `bytes`
        char *user, *compact;
        int64_t c0, c1;  // columns [c0, c1) of the strided operand o
        size_t bytes;
        bool to_compact;
        void copy() const {
            if (!o) {
                to_compact ? std::memcpy(compact, user, bytes) : std::memcpy(user, compact, bytes);
                return;
            }
            const size_t col = static_cast<size_t>(o->rows) * o->elem;
            for (int64_t j = c0; j < c1; ++j) {
                const int64_t b = j / o->cols, c = j % o->cols;
                char *u = user + static_cast<size_t>(b * o->stride + c * o->ld) * o->elem;
                char *k = compact + j * col;
                to_compact ? std::memcpy(k, u, col) : std::memcpy(u, k, col);
            }
        }
    };
    // Where the list cannot grow, the piece is copied at once, on this thread: the order of
    // the copies does not matter within a step.
    void push(const Piece &p) {
        try {
            pieces_.push_back(p);
        } catch (...) {
            p.copy();
        }
    }
    std::vector<Piece> pieces_;
};

/// Whether operand o's host array is page-locked memory (cudaHostAlloc, cudaHostRegister, CuPy's
/// or torch's pinned memory) laid out as one pitched 2-D array (stride = ld * cols): then each
/// chunk goes between it and the device by one DMA copy (linear or 2-D), without the staging
/// copy on the cores, whose memory bandwidth otherwise bounds a call over several GPUs. The first
/// and the last byte are checked; were a page between them pageable, the copy would still be
/// right (the runtime stages it), only slower.
bool page_locked(const Operand &o, int64_t batch) {
    if (batch > 1 && o.stride != o.ld * o.cols) return false;
    const char *first = static_cast<const char *>(o.host);
    const size_t span =
        static_cast<size_t>((batch - 1) * o.stride + (o.cols - 1) * o.ld + o.rows) * o.elem;
    for (const char *p : {first, first + span - 1}) {
        cudaPointerAttributes a{};
        if (cudaPointerGetAttributes(&a, p) != cudaSuccess) {
            (void)cudaGetLastError();
            return false;
        }
        if (a.type != cudaMemoryTypeHost) return false;
    }
    return true;
}

/// One 2-D copy of `count` matrices of a page-locked operand from `first` (page_locked(o)).
cudaError_t copy_direct(const Operand &o, int64_t first, int64_t count, void *dev, bool to_dev,
                        cudaStream_t st) {
    char *user = static_cast<char *>(o.host) + static_cast<size_t>(first * o.stride) * o.elem;
    const size_t width = static_cast<size_t>(o.rows) * o.elem, pitch = static_cast<size_t>(o.ld) * o.elem;
    const size_t height = static_cast<size_t>(o.cols * count);
    // A contiguous chunk as one linear copy: the 2-D copy of the same bytes, `height` rows of a
    // few hundred bytes, ran measurably slower over several devices at once.
    if (pitch == width)
        return to_dev ? cudaMemcpyAsync(dev, user, width * height, cudaMemcpyHostToDevice, st)
                      : cudaMemcpyAsync(user, dev, width * height, cudaMemcpyDeviceToHost, st);
    return to_dev ? cudaMemcpy2DAsync(dev, width, user, pitch, width, height,
                                      cudaMemcpyHostToDevice, st)
                  : cudaMemcpy2DAsync(user, pitch, dev, width, width, height,
                                      cudaMemcpyDeviceToHost, st);
}

}  // namespace

gpusvdStatus_t run_host_batched(gpusvdHandle_t h, const char *routine, int64_t batch,
                                const Operand *ops, int nops, int *info,
                                const std::function<size_t(int64_t)> &ws_bytes,
                                const std::function<cudaError_t(const Chunk &)> &launch) {
    cudaError_t e;
    Resources *r = resources(h, &e);
    if (!r) return cuda_fail(h, routine, "creating streams", e);
    // The staging slots live in the handle's device buffer, which a `_gpu` call still running on
    // the user's stream may be using as its workspace: wait for it (this form is synchronous).
    wait_last_use(*r);

    size_t per_matrix = sizeof(int);
    for (int i = 0; i < nops; ++i) per_matrix += op_bytes(ops[i], 1);
    int64_t chunk = std::max<int64_t>(1, std::min<int64_t>(batch, slot_target() / per_matrix));
    // Out of device or pinned memory: retry with smaller chunks before giving up.
    for (;;) {
        const int64_t chunks = PipelineChunks(batch, chunk).count();
        const int slots = static_cast<int>(std::min<int64_t>(kSlots, chunks));
        const SlotLayout L(ops, nops, chunk, ws_bytes(chunk));
        const SlotLayout H(ops, nops, chunk, 0);
        e = grow_device(*r, L.bytes * slots);
        if (e == cudaSuccess) e = grow_pinned(*r, H.bytes * slots);
        if (e == cudaSuccess) break;
        if (e != cudaErrorMemoryAllocation || chunk == 1)
            return cuda_fail(h, routine, "allocating staging buffers", e);
        cudaGetLastError();
        chunk = (chunk + 1) / 2;
    }
    const PipelineChunks plan(batch, chunk);
    const int64_t chunks = plan.count();
    const int slots = static_cast<int>(std::min<int64_t>(kSlots, chunks));
    const SlotLayout L(ops, nops, chunk, ws_bytes(chunk));
    const SlotLayout H(ops, nops, chunk, 0);
    bool direct[kMaxOperands];
    for (int i = 0; i < nops; ++i) direct[i] = page_locked(ops[i], batch);

    int64_t pending[kSlots];
    std::fill(pending, pending + kSlots, int64_t(-1));
    auto pinned = [&](int s) { return static_cast<char *>(r->pinned) + H.bytes * s; };
    auto device = [&](int s) { return static_cast<char *>(r->dev) + L.bytes * s; };
    HostCopies copies;
    bool inout = false;
    for (int i = 0; i < nops; ++i) inout = inout || (ops[i].in && ops[i].out && !direct[i]);
    // Waits for slot s and queues its chunk's results for the copy out to the user's arrays.
    auto finish = [&](int s) -> cudaError_t {
        if (pending[s] < 0) return cudaSuccess;
        const cudaError_t err = cudaStreamSynchronize(r->slot[s]);
        const int64_t c = pending[s], n = plan.size(c);
        pending[s] = -1;
        if (err != cudaSuccess) return err;
        for (int i = 0; i < nops; ++i)
            if (ops[i].out && !direct[i])
                copies.add(ops[i], plan.start(c), n, pinned(s) + H.off[i], false);
        copies.add_run(info + plan.start(c), pinned(s) + H.info_off, sizeof(int) * n, false);
        return cudaSuccess;
    };

    const char *step = "running the kernels";
    e = cudaSuccess;
    for (int64_t c = 0; c < chunks && e == cudaSuccess; ++c) {
        const int s = static_cast<int>(c % slots);
        const cudaStream_t st = r->slot[s];
        e = finish(s);
        if (e != cudaSuccess) break;
        const int64_t n = plan.size(c);
        Chunk k{plan.start(c), n, {}, reinterpret_cast<int *>(device(s) + L.info_off),
                device(s) + L.ws_off, L.ws, st};
        // The slot's previous results out and this chunk's inputs in, as one job; an operand
        // both read and written (geqrf's A) has one staging area per slot, emptied first.
        if (inout) copies.run();
        for (int i = 0; i < nops; ++i)
            if (ops[i].in && !direct[i])
                copies.add(ops[i], plan.start(c), n, pinned(s) + H.off[i], true);
        copies.run();
        for (int i = 0; i < nops; ++i) {
            k.dev[i] = device(s) + L.off[i];
            if (!ops[i].in || e != cudaSuccess) continue;
            e = direct[i] ? copy_direct(ops[i], plan.start(c), n, k.dev[i], true, st)
                          : cudaMemcpyAsync(k.dev[i], pinned(s) + H.off[i], op_bytes(ops[i], n),
                                            cudaMemcpyHostToDevice, st);
        }
        if (e == cudaSuccess) e = launch(k);
        for (int i = 0; i < nops && e == cudaSuccess; ++i)
            if (ops[i].out)
                e = direct[i] ? copy_direct(ops[i], plan.start(c), n, k.dev[i], false, st)
                              : cudaMemcpyAsync(pinned(s) + H.off[i], k.dev[i],
                                                op_bytes(ops[i], n), cudaMemcpyDeviceToHost, st);
        if (e == cudaSuccess)
            e = cudaMemcpyAsync(pinned(s) + H.info_off, k.info, sizeof(int) * n,
                                cudaMemcpyDeviceToHost, st);
        pending[s] = c;
    }
    for (int s = 0; s < slots; ++s) {
        if (e != cudaSuccess) {  // drain without copying results of a failed call
            cudaStreamSynchronize(r->slot[s]);
            pending[s] = -1;
            continue;
        }
        e = finish(s);
    }
    if (e == cudaSuccess) copies.run();
    return e == cudaSuccess ? GPUSVD_STATUS_SUCCESS : cuda_fail(h, routine, step, e);
}

gpusvdStatus_t run_host_batched_status(
    gpusvdHandle_t h, const char *routine, int64_t batch, const Operand *ops, int nops, int *info,
    const std::function<size_t(int64_t)> &ws_bytes,
    const std::function<gpusvdStatus_t(const Chunk &)> &launch) {
    gpusvdStatus_t inner = GPUSVD_STATUS_SUCCESS;
    std::string message;
    const gpusvdStatus_t st =
        run_host_batched(h, routine, batch, ops, nops, info, ws_bytes, [&](const Chunk &c) {
            inner = launch(c);
            if (inner == GPUSVD_STATUS_SUCCESS) return cudaSuccess;
            message = h->error;
            return cudaErrorUnknown;  // stops the pipeline; the message is restored below
        });
    if (inner != GPUSVD_STATUS_SUCCESS) return fail(h, inner, "%s", message.c_str());
    return st;
}

}  // namespace gpu
}  // namespace gpusvd
