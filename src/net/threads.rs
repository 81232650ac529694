//! Thread counts that may be `auto`, and the plan `auto` means ([`ThreadPlan`]): self-play workers, batcher
//! instances and libtorch threads per instance for this machine's cores. The rule is one
//! worker per core and, on the CPU, one single-threaded batcher instance per worker (no
//! OpenMP team shared between workers); on a GPU one instance serves every worker.
//! `checkers-zero bench` measures this plan against the alternatives on the machine at
//! hand (`docs/benchmarks.md`).

use tch::Device;

use super::NetError;
use crate::config::RunConfig;

/// Self-play threads and batcher instances: a thread plan.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ThreadPlan {
    /// Self-play worker threads.
    pub workers: usize,
    /// Batcher instances (each with its own copy of the net).
    pub instances: usize,
    /// libtorch threads of each instance.
    pub torch_threads: usize,
}

impl ThreadPlan {
    /// Self-play's workers, batcher instances and their threads under a run's config, `auto`
    /// settled for this machine's cores and the batching device.
    pub fn of(config: &RunConfig) -> Result<ThreadPlan, NetError> {
        let b = &config.batching;
        let auto = auto_plan(cores(), b.device.resolve()?);
        Ok(ThreadPlan {
            workers: config.selfplay.workers.or(auto.workers),
            instances: b.instances.or(auto.instances),
            torch_threads: b.torch_threads.or(auto.torch_threads),
        })
    }
}

/// The plan `auto` stands for on `cores` cores with the net on `device`.
pub fn auto_plan(cores: usize, device: Device) -> ThreadPlan {
    let cores = cores.max(1);
    match device {
        Device::Cpu => ThreadPlan {
            workers: cores,
            instances: cores,
            torch_threads: 1,
        },
        _ => ThreadPlan {
            workers: cores,
            instances: 1,
            torch_threads: 1,
        },
    }
}

/// This machine's cores, as the OS reports them.
pub fn cores() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

/// Runs `work` on a thread of its own with `threads` libtorch threads (0: libtorch's
/// default), so that the setting does not leak into the caller's thread; a panic there
/// comes back as an error naming `what`.
pub fn on_torch_threads<T: Send, E: Send + From<NetError>>(
    threads: i32,
    what: &str,
    work: impl FnOnce() -> Result<T, E> + Send,
) -> Result<T, E> {
    std::thread::scope(|scope| {
        scope
            .spawn(move || {
                if threads > 0 {
                    tch::set_num_threads(threads);
                }
                work()
            })
            .join()
            .unwrap_or_else(|_| Err(NetError::Thread(format!("{what} panicked")).into()))
    })
}
