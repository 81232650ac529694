//! How fast this machine multiplies matrices in each precision: the ceiling `bench` holds
//! the net's speed against, with a given number of libtorch threads (in a thread of its own
//! so the setting does not leak). Two kernels are timed, each repeated for a fraction of a
//! second: a 1024x1024 matmul (libtorch's BLAS) and a large 3x3 convolution (oneDNN, the
//! net's own kernels), since one library may use the core's widest units and the other not
//! (MKL's fp32 matmul on AMD cores runs at half their AVX-512 rate); the peak is the faster.

use std::time::{Duration, Instant};

use tch::{Device, Kind, Tensor};

use super::threads::on_torch_threads;
use super::NetError;

/// Side of the square matrices timed.
const SIDE: i64 = 1024;

/// Peak GFLOP/s in fp32 and bf16 (the faster of the two kernels), and the matmul's alone.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MatmulPeak {
    /// fp32 GFLOP/s.
    pub fp32: f64,
    /// bf16 GFLOP/s.
    pub bf16: f64,
    /// fp32 GFLOP/s of the matmul alone.
    pub matmul_fp32: f64,
    /// bf16 GFLOP/s of the matmul alone.
    pub matmul_bf16: f64,
}

impl MatmulPeak {
    /// The peak of `kind` (bf16 for BFloat16, else fp32).
    pub fn of(&self, kind: Kind) -> f64 {
        match kind {
            Kind::BFloat16 => self.bf16,
            _ => self.fp32,
        }
    }
}

/// Times `SIDE`-square matmuls on `device` with `threads` libtorch threads (0: libtorch's
/// default) for about `budget` in all, the best repetition of each precision counted.
pub fn matmul_peak(device: Device, threads: i32, budget: Duration) -> Result<MatmulPeak, NetError> {
    on_torch_threads(threads, "the peak's timing", move || {
        let _no_grad = tch::no_grad_guard();
        let quarter = budget / 4;
        let matmul_fp32 = gflops(Kernel::Matmul, Kind::Float, device, quarter)?;
        let matmul_bf16 = gflops(Kernel::Matmul, Kind::BFloat16, device, quarter)?;
        let conv_fp32 = gflops(Kernel::Conv, Kind::Float, device, quarter)?;
        let conv_bf16 = gflops(Kernel::Conv, Kind::BFloat16, device, quarter)?;
        Ok(MatmulPeak {
            fp32: matmul_fp32.max(conv_fp32),
            bf16: matmul_bf16.max(conv_bf16),
            matmul_fp32,
            matmul_bf16,
        })
    })
}

/// A kernel timed for the peak.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kernel {
    /// `SIDE`-square matmul.
    Matmul,
    /// 256 to 256 channels, 3x3, over 16x16 cells, 8 images, channels-last.
    Conv,
}

/// The best GFLOP/s of one `kind` kernel over repetitions within `budget` (at least 3).
fn gflops(kernel: Kernel, kind: Kind, device: Device, budget: Duration) -> Result<f64, NetError> {
    let rand = |size: &[i64]| -> Result<Tensor, NetError> {
        Ok(Tensor::f_rand(size, (Kind::Float, device))?.f_to_kind(kind)?)
    };
    let nhwc = |t: Tensor| t.permute([0, 2, 3, 1]).contiguous().permute([0, 3, 1, 2]);
    let (a, b, flops) = match kernel {
        Kernel::Matmul => (
            rand(&[SIDE, SIDE])?,
            rand(&[SIDE, SIDE])?,
            2.0 * (SIDE as f64).powi(3),
        ),
        Kernel::Conv => (
            nhwc(rand(&[8, 256, 16, 16])?),
            nhwc(rand(&[256, 256, 3, 3])?),
            2.0 * 256.0 * 256.0 * 9.0 * 256.0 * 8.0,
        ),
    };
    let run = || -> Result<Tensor, NetError> {
        Ok(match kernel {
            Kernel::Matmul => a.f_matmul(&b)?,
            Kernel::Conv => a.f_conv2d(&b, None::<Tensor>, [1, 1], [1, 1], [1, 1], 1)?,
        })
    };
    let _ = run()?;
    let started = Instant::now();
    let mut best = f64::INFINITY;
    let mut reps = 0;
    while reps < 3 || started.elapsed() < budget {
        let t = Instant::now();
        let c = run()?;
        if let Device::Cuda(index) = device {
            tch::Cuda::synchronize(index as i64);
        }
        drop(c);
        best = best.min(t.elapsed().as_secs_f64());
        reps += 1;
        if reps >= 1000 {
            break;
        }
    }
    Ok(flops / best / 1e9)
}
