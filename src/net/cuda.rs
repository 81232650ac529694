//! What tch does not wrap of libtorch's CUDA, through `cuda_shim.cpp` (compiled by build.rs
//! when this libtorch has CUDA and its headers are found): a stream of each batcher
//! thread's own, so that their forward passes overlap on the GPU instead of queueing on the
//! default stream, and CUDA graphs, which replay a forward pass's hundred kernel launches
//! as one. Without the shim every call says so in words, and the GPU runs as before.

use super::NetError;

/// Whether this build has the shim.
pub fn available() -> bool {
    cfg!(cuda_shim)
}

#[cfg(cuda_shim)]
mod ffi {
    use std::ffi::{c_char, c_int, c_void};
    /// Where a call writes its error's words.
    type Words = *mut c_char;
    extern "C" {
        pub fn cz_use_pool_stream(device: c_int, err: Words, len: usize) -> c_int;
        pub fn cz_sync_stream(device: c_int, err: Words, len: usize) -> c_int;
        pub fn cz_graph_pool(a: *mut u64, b: *mut u64, err: Words, len: usize) -> c_int;
        pub fn cz_graph_new(err: Words, len: usize) -> *mut c_void;
        pub fn cz_graph_begin(g: *mut c_void, a: u64, b: u64, err: Words, n: usize) -> c_int;
        pub fn cz_graph_end(graph: *mut c_void, err: Words, len: usize) -> c_int;
        pub fn cz_graph_replay(graph: *mut c_void, err: Words, len: usize) -> c_int;
        pub fn cz_graph_free(graph: *mut c_void);
    }
}

/// Runs a shim call that writes its error's words into a buffer; `what` names the call.
#[cfg(cuda_shim)]
fn call(
    what: &str,
    f: impl FnOnce(*mut std::ffi::c_char, usize) -> std::ffi::c_int,
) -> Result<(), NetError> {
    let mut buffer = vec![0 as std::ffi::c_char; 1024];
    if f(buffer.as_mut_ptr(), buffer.len()) == 0 {
        return Ok(());
    }
    // SAFETY: the shim writes a NUL-terminated string within the buffer.
    let words = unsafe { std::ffi::CStr::from_ptr(buffer.as_ptr()) };
    Err(NetError::Device(format!(
        "CUDA {what} failed: {}",
        words.to_string_lossy()
    )))
}

#[cfg(not(cuda_shim))]
fn missing(what: &str) -> NetError {
    NetError::Device(format!(
        "CUDA {what} needs the CUDA shim, which this build lacks (libtorch without CUDA, or no CUDA headers when it was built)"
    ))
}

/// Device index of a CUDA device (0 for anything else).
fn index(device: tch::Device) -> i32 {
    match device {
        tch::Device::Cuda(i) => i as i32,
        _ => 0,
    }
}

/// Streams libtorch's pool holds per device, handed out in turn.
pub const POOL_STREAMS: usize = 32;

/// Makes a stream from libtorch's pool this thread's current stream on `device`: what the
/// thread runs there from now on no longer queues behind other threads' work. True when
/// no other thread of this process can have been handed the same stream (the pool's
/// streams are handed out in turn, so from the 33rd on they are shared): only then may the
/// thread capture CUDA graphs, since a capture takes in whatever is queued on its stream.
pub fn use_own_stream(device: tch::Device) -> Result<bool, NetError> {
    #[cfg(cuda_shim)]
    {
        use std::sync::atomic::{AtomicUsize, Ordering};
        static HANDED_OUT: AtomicUsize = AtomicUsize::new(0);
        // SAFETY: the shim catches every C++ exception; the buffer outlives the call.
        call("stream", |e, n| unsafe {
            ffi::cz_use_pool_stream(index(device), e, n)
        })?;
        Ok(HANDED_OUT.fetch_add(1, Ordering::Relaxed) < POOL_STREAMS)
    }
    #[cfg(not(cuda_shim))]
    {
        let _ = (index(device), POOL_STREAMS);
        Err(missing("stream"))
    }
}

/// Waits for what this thread queued on its current stream of `device`.
pub fn sync_own_stream(device: tch::Device) -> Result<(), NetError> {
    #[cfg(cuda_shim)]
    {
        // SAFETY: as in `use_own_stream`.
        call("stream synchronisation", |e, n| unsafe {
            ffi::cz_sync_stream(index(device), e, n)
        })
    }
    #[cfg(not(cuda_shim))]
    {
        let _ = index(device);
        Err(missing("stream synchronisation"))
    }
}

/// A memory pool that graphs captured and replayed one after another on one thread share.
#[derive(Clone, Copy, Debug)]
#[cfg_attr(not(cuda_shim), allow(dead_code))]
pub struct GraphPool(u64, u64);

impl GraphPool {
    /// A new pool.
    pub fn new() -> Result<GraphPool, NetError> {
        #[cfg(cuda_shim)]
        {
            let (mut first, mut second) = (0u64, 0u64);
            // SAFETY: as in `use_own_stream`; the two outputs outlive the call.
            call("graph pool", |e, n| unsafe {
                ffi::cz_graph_pool(&mut first, &mut second, e, n)
            })?;
            Ok(GraphPool(first, second))
        }
        #[cfg(not(cuda_shim))]
        Err(missing("graph pool"))
    }
}

/// A CUDA graph: the work one thread queued on its own stream between
/// [`Graph::begin`] and [`Graph::end`], replayed as one launch.
pub struct Graph {
    #[cfg(cuda_shim)]
    raw: *mut std::ffi::c_void,
}

impl Graph {
    /// Starts capturing this thread's work on its own stream (see [`use_own_stream`]) into
    /// a new graph, its memory from `pool`. Other threads' CUDA work goes on meanwhile.
    pub fn begin(pool: GraphPool) -> Result<Graph, NetError> {
        #[cfg(cuda_shim)]
        {
            let mut raw = std::ptr::null_mut();
            // SAFETY: as in `use_own_stream`.
            call("graph", |e, n| {
                raw = unsafe { ffi::cz_graph_new(e, n) };
                i32::from(raw.is_null())
            })?;
            let graph = Graph { raw };
            // SAFETY: `raw` is a live graph of the shim's.
            call("graph capture", |e, n| unsafe {
                ffi::cz_graph_begin(graph.raw, pool.0, pool.1, e, n)
            })?;
            Ok(graph)
        }
        #[cfg(not(cuda_shim))]
        {
            let _ = pool;
            Err(missing("graph capture"))
        }
    }

    /// Ends the capture; the graph is then ready to replay.
    pub fn end(&mut self) -> Result<(), NetError> {
        #[cfg(cuda_shim)]
        {
            // SAFETY: `raw` is a live graph of the shim's.
            call("graph capture", |e, n| unsafe {
                ffi::cz_graph_end(self.raw, e, n)
            })
        }
        #[cfg(not(cuda_shim))]
        Err(missing("graph capture"))
    }

    /// Queues the captured work again on this thread's current stream.
    pub fn replay(&self) -> Result<(), NetError> {
        #[cfg(cuda_shim)]
        {
            // SAFETY: `raw` is a live graph of the shim's.
            call("graph replay", |e, n| unsafe {
                ffi::cz_graph_replay(self.raw, e, n)
            })
        }
        #[cfg(not(cuda_shim))]
        Err(missing("graph replay"))
    }
}

impl Drop for Graph {
    fn drop(&mut self) {
        // SAFETY: `raw` came from `cz_graph_new` and is freed once.
        #[cfg(cuda_shim)]
        unsafe {
            ffi::cz_graph_free(self.raw)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn without_a_gpu_the_shims_calls_fail_in_words() {
        if tch::Cuda::is_available() {
            return; // the GPU check covers a machine with one (scripts/check-gpu)
        }
        let error = use_own_stream(tch::Device::Cuda(0))
            .unwrap_err()
            .to_string();
        assert!(error.starts_with("CUDA stream"), "{error}");
    }
}
