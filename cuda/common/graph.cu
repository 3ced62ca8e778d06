#include "common/graph.hpp"

#include "common/runtime.hpp"

namespace gpusvd {
namespace gpu {

namespace {

__global__ void set_condition_kernel(cudaGraphConditionalHandle c, const int *value) {
    cudaGraphSetConditional(c, *value != 0 ? 1u : 0u);
}

/// The graph being captured on `s` and the nodes the next one depends on.
struct CaptureState {
    cudaGraph_t graph = nullptr;
    const cudaGraphNode_t *deps = nullptr;
    const cudaGraphEdgeData *edges = nullptr;
    size_t ndeps = 0;
};

cudaError_t capture_state(cudaStream_t s, CaptureState *c) {
    cudaStreamCaptureStatus st;
    const cudaError_t e =
        cudaStreamGetCaptureInfo(s, &st, nullptr, &c->graph, &c->deps, &c->edges, &c->ndeps);
    if (e != cudaSuccess) return e;
    return st == cudaStreamCaptureStatusActive ? cudaSuccess : cudaErrorStreamCaptureInvalidated;
}

/// One of the handle's streams for capturing (created on first use; nullptr when that fails).
cudaError_t own_stream(gpusvdHandle_t h, cudaStream_t Resources::*which, cudaStream_t *out) {
    cudaError_t e;
    Resources *r = resources(h, &e);
    if (!r) return e;
    if (!(r->*which)) e = cudaStreamCreateWithFlags(&(r->*which), cudaStreamNonBlocking);
    *out = r->*which;
    return e;
}

cudaError_t body_stream(gpusvdHandle_t h, cudaStream_t *out) {
    return own_stream(h, &Resources::body, out);
}

/// Fills `g` (a conditional node's body) by capturing `body` on `bs`.
cudaError_t capture_body(cudaStream_t bs, cudaGraph_t g, const Enqueue &body,
                         cudaGraphConditionalHandle c, const int *cont) {
    cudaError_t e = cudaStreamBeginCaptureToGraph(bs, g, nullptr, nullptr, 0,
                                                  cudaStreamCaptureModeRelaxed);
    if (e != cudaSuccess) return e;
    if (body) e = body(bs);
    if (e == cudaSuccess && cont) {
        set_condition_kernel<<<1, 1, 0, bs>>>(c, cont);
        e = cudaGetLastError();
    }
    cudaGraph_t same = nullptr;
    const cudaError_t e2 = cudaStreamEndCapture(bs, &same);
    return e != cudaSuccess ? e : e2;
}

/// Adds a conditional node after the capture's current dependencies, fills its bodies and makes
/// it the capture's new dependency.
cudaError_t add_conditional(gpusvdHandle_t h, cudaStream_t s, cudaGraphConditionalNodeType type,
                            unsigned default_value, const int *flag, const Enqueue &first,
                            const Enqueue &second) {
    cudaStream_t bs = nullptr;
    cudaError_t e = body_stream(h, &bs);
    if (e != cudaSuccess) return e;
    CaptureState cs;
    if ((e = capture_state(s, &cs)) != cudaSuccess) return e;
    cudaGraphConditionalHandle c;
    e = cudaGraphConditionalHandleCreate(&c, cs.graph, default_value, cudaGraphCondAssignDefault);
    if (e != cudaSuccess) return e;
    if (type == cudaGraphCondTypeIf) {  // the branch is taken on the value *flag has now
        set_condition_kernel<<<1, 1, 0, s>>>(c, flag);
        if ((e = cudaGetLastError()) != cudaSuccess || (e = capture_state(s, &cs)) != cudaSuccess)
            return e;
    }
    cudaGraphNodeParams p = {};
    p.type = cudaGraphNodeTypeConditional;
    p.conditional.handle = c;
    p.conditional.type = type;
    p.conditional.size = second ? 2 : 1;
    cudaGraphNode_t node;
    e = cudaGraphAddNode(&node, cs.graph, cs.deps, cs.edges, cs.ndeps, &p);
    if (e != cudaSuccess) return e;
    const bool loop = type == cudaGraphCondTypeWhile;
    e = capture_body(bs, p.conditional.phGraph_out[0], first, c, loop ? flag : nullptr);
    if (e == cudaSuccess && second)
        e = capture_body(bs, p.conditional.phGraph_out[1], second, c, nullptr);
    if (e != cudaSuccess) return e;
    return cudaStreamUpdateCaptureDependencies(s, &node, nullptr, 1,
                                               cudaStreamSetCaptureDependencies);
}

}  // namespace

cudaError_t stream_capturing(cudaStream_t s, bool *capturing) {
    cudaStreamCaptureStatus st = cudaStreamCaptureStatusNone;
    const cudaError_t e = cudaStreamIsCapturing(s, &st);
    *capturing = e == cudaSuccess && st != cudaStreamCaptureStatusNone;
    return e;
}

gpusvdStatus_t refuse_capture(gpusvdHandle_t h, const char *routine, cudaStream_t s,
                              const char *what) {
    bool cap = false;
    const cudaError_t e = stream_capturing(s, &cap);
    if (e != cudaSuccess) return cuda_fail(h, routine, "querying the stream's capture state", e);
    if (!cap) return GPUSVD_STATUS_SUCCESS;
    return fail(h, GPUSVD_STATUS_NOT_SUPPORTED,
                "%s: %s cannot be captured in a CUDA graph (it plans on the host from device "
                "data); call it outside the capture",
                routine, what);
}

gpusvdStatus_t run_as_graph(gpusvdHandle_t h, const char *routine, cudaStream_t s,
                            const std::vector<uint64_t> &key,
                            const std::function<gpusvdStatus_t(cudaStream_t)> &enqueue) {
    cudaError_t e;
    Resources *r = resources(h, &e);
    if (!r) return cuda_fail(h, routine, "creating the handle's GPU resources", e);
    if (r->own_exec && r->own_key == key) {
        e = cudaGraphLaunch(r->own_exec, s);
        if (e == cudaSuccess) e = cudaEventRecord(r->own_done, s);
        return e == cudaSuccess ? GPUSVD_STATUS_SUCCESS
                                : cuda_fail(h, routine, "running the call's graph", e);
    }
    if (r->own_exec) {  // its conditional handles live with the graph: let it finish first
        cudaEventSynchronize(r->own_done);
        cudaGraphExecDestroy(r->own_exec);
        cudaGraphDestroy(r->own_graph);
        r->own_exec = nullptr, r->own_graph = nullptr;
        r->own_key.clear();
    }
    cudaStream_t cs = nullptr;
    e = own_stream(h, &Resources::capture, &cs);
    if (e == cudaSuccess && !r->own_done)
        e = cudaEventCreateWithFlags(&r->own_done, cudaEventDisableTiming);
    if (e == cudaSuccess) e = cudaStreamBeginCapture(cs, cudaStreamCaptureModeRelaxed);
    if (e != cudaSuccess) return cuda_fail(h, routine, "starting the call's graph", e);
    const gpusvdStatus_t st = enqueue(cs);
    cudaGraph_t g = nullptr;
    e = cudaStreamEndCapture(cs, &g);
    cudaGraphExec_t x = nullptr;
    if (st == GPUSVD_STATUS_SUCCESS && e == cudaSuccess) e = cudaGraphInstantiate(&x, g, 0);
    if (st != GPUSVD_STATUS_SUCCESS || e != cudaSuccess) {
        if (x) cudaGraphExecDestroy(x);
        if (g) cudaGraphDestroy(g);
        return st != GPUSVD_STATUS_SUCCESS ? st
                                           : cuda_fail(h, routine, "building the call's graph", e);
    }
    try {
        r->own_key = key;
    } catch (...) {
        cudaGraphExecDestroy(x);
        cudaGraphDestroy(g);
        return fail(h, GPUSVD_STATUS_ALLOC_FAILED, "%s: out of host memory", routine);
    }
    r->own_graph = g, r->own_exec = x;
    e = cudaGraphLaunch(x, s);
    if (e == cudaSuccess) e = cudaEventRecord(r->own_done, s);
    return e == cudaSuccess ? GPUSVD_STATUS_SUCCESS
                            : cuda_fail(h, routine, "running the call's graph", e);
}

gpusvdStatus_t captured_while(gpusvdHandle_t h, const char *routine, cudaStream_t s,
                              const int *cont, const Enqueue &body) {
    const cudaError_t e = add_conditional(h, s, cudaGraphCondTypeWhile, 1, cont, body, nullptr);
    return e == cudaSuccess ? GPUSVD_STATUS_SUCCESS
                            : cuda_fail(h, routine, "adding a device-decided loop to the graph", e);
}

gpusvdStatus_t captured_if(gpusvdHandle_t h, const char *routine, cudaStream_t s, const int *flag,
                           const Enqueue &then_body, const Enqueue &else_body) {
    const Enqueue nothing = [](cudaStream_t) { return cudaSuccess; };
    const cudaError_t e = add_conditional(h, s, cudaGraphCondTypeIf, 0, flag,
                                          then_body ? then_body : nothing, else_body);
    return e == cudaSuccess ? GPUSVD_STATUS_SUCCESS
                            : cuda_fail(h, routine, "adding a device-decided branch to the graph",
                                        e);
}

}  // namespace gpu
}  // namespace gpusvd
