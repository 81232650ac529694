// The CUDA parts of libtorch that tch does not wrap, for src/net/cuda.rs: a stream of the
// calling thread's own from libtorch's pool, and CUDA graphs (capture, replay). Each call
// returns 0, or 1 with the C++ exception's words in `err`.
#include <ATen/cuda/CUDAGraph.h>
#include <c10/cuda/CUDAStream.h>

#include <cstring>
#include <exception>

namespace {

void say(const char* what, char* err, size_t len) {
  if (err != nullptr && len > 0) {
    std::strncpy(err, what, len - 1);
    err[len - 1] = '\0';
  }
}

template <class F>
int guarded(F f, char* err, size_t len) {
  try {
    f();
    return 0;
  } catch (const std::exception& e) {
    say(e.what(), err, len);
  } catch (...) {
    say("an unknown C++ exception", err, len);
  }
  return 1;
}

at::cuda::CUDAGraph* graph_of(void* graph) {
  return static_cast<at::cuda::CUDAGraph*>(graph);
}

}  // namespace

extern "C" {

// Makes a stream from libtorch's pool on `device` this thread's current one: the work this
// thread queues no longer waits behind other threads' on the default stream.
int cz_use_pool_stream(int device, char* err, size_t len) {
  return guarded(
      [&] {
        auto stream = c10::cuda::getStreamFromPool(false, static_cast<c10::DeviceIndex>(device));
        c10::cuda::setCurrentCUDAStream(stream);
      },
      err, len);
}

// Waits for the work queued on this thread's current stream of `device`.
int cz_sync_stream(int device, char* err, size_t len) {
  return guarded(
      [&] { c10::cuda::getCurrentCUDAStream(static_cast<c10::DeviceIndex>(device)).synchronize(); },
      err, len);
}

// A memory pool graphs can share (graphs replayed one after another on one stream).
int cz_graph_pool(unsigned long long* first, unsigned long long* second, char* err, size_t len) {
  return guarded(
      [&] {
        auto id = at::cuda::graph_pool_handle();
        *first = id.first;
        *second = id.second;
      },
      err, len);
}

void* cz_graph_new(char* err, size_t len) {
  at::cuda::CUDAGraph* graph = nullptr;
  guarded([&] { graph = new at::cuda::CUDAGraph(); }, err, len);
  return graph;
}

// Starts capturing the work this thread queues on its current (non-default) stream; other
// threads' CUDA calls go on meanwhile.
int cz_graph_begin(void* graph, unsigned long long first, unsigned long long second, char* err,
                   size_t len) {
  return guarded(
      [&] {
        graph_of(graph)->capture_begin({first, second}, cudaStreamCaptureModeThreadLocal);
      },
      err, len);
}

int cz_graph_end(void* graph, char* err, size_t len) {
  return guarded([&] { graph_of(graph)->capture_end(); }, err, len);
}

int cz_graph_replay(void* graph, char* err, size_t len) {
  return guarded([&] { graph_of(graph)->replay(); }, err, len);
}

void cz_graph_free(void* graph) {
  delete graph_of(graph);
}

}  // extern "C"
