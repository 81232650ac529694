//! AdamW with its state in tensors this crate owns, so that it can be saved in a checkpoint
//! and restored exactly (tch's optimizers cannot save their state).

use std::path::Path;

use tch::{nn::VarStore, Kind, Tensor};

use crate::net::NetError;

/// AdamW (Loshchilov & Hutter): Adam moments plus decoupled weight decay, which is applied
/// to weight matrices and kernels only (not to biases or batch-norm parameters).
#[derive(Debug)]
pub struct AdamW {
    /// Step size.
    pub learning_rate: f64,
    /// Decoupled weight decay.
    pub weight_decay: f64,
    beta1: f64,
    beta2: f64,
    eps: f64,
    /// Steps taken (for bias correction).
    steps: i64,
    /// Trainable variables by name, with their first and second moments.
    slots: Vec<(String, Tensor, Tensor, Tensor)>,
}

impl AdamW {
    /// An optimizer over the trainable variables of `vs`.
    pub fn new(vs: &VarStore, learning_rate: f64, weight_decay: f64) -> AdamW {
        let mut variables: Vec<(String, Tensor)> = vs
            .variables()
            .into_iter()
            .filter(|(_, t)| t.requires_grad())
            .collect();
        variables.sort_by(|a, b| a.0.cmp(&b.0));
        let slots = variables
            .into_iter()
            .map(|(name, var)| {
                let m = var.zeros_like();
                let v = var.zeros_like();
                (name, var, m, v)
            })
            .collect();
        AdamW {
            learning_rate,
            weight_decay,
            beta1: 0.9,
            beta2: 0.999,
            eps: 1e-8,
            steps: 0,
            slots,
        }
    }

    /// Clears the gradients.
    pub fn zero_grad(&mut self) {
        for (_, var, _, _) in &mut self.slots {
            var.zero_grad();
        }
    }

    /// One update from the current gradients.
    pub fn step(&mut self) {
        self.steps += 1;
        let (b1, b2) = (self.beta1, self.beta2);
        let correction1 = 1.0 - b1.powi(self.steps as i32);
        let correction2 = 1.0 - b2.powi(self.steps as i32);
        let step_size = self.learning_rate / correction1;
        tch::no_grad(|| {
            for (_, var, m, v) in &mut self.slots {
                let grad = var.grad();
                if !grad.defined() {
                    continue;
                }
                let _ = m.g_mul_scalar_(b1).g_add_(&(&grad * (1.0 - b1)));
                let _ = v.g_mul_scalar_(b2).g_add_(&(&grad * &grad * (1.0 - b2)));
                if self.weight_decay > 0.0 && var.dim() > 1 {
                    let _ = var.g_mul_scalar_(1.0 - self.learning_rate * self.weight_decay);
                }
                let denom = (&*v / correction2).sqrt() + self.eps;
                let update = &*m / denom * step_size;
                let _ = var.g_sub_(&update);
            }
        });
    }

    /// Steps taken.
    pub fn steps(&self) -> i64 {
        self.steps
    }

    /// Saves the moments and the step count (safetensors).
    pub fn save(&self, path: &Path) -> Result<(), NetError> {
        let mut tensors: Vec<(String, Tensor)> = Vec::with_capacity(2 * self.slots.len() + 1);
        tensors.push(("steps".into(), Tensor::from_slice(&[self.steps])));
        for (name, _, m, v) in &self.slots {
            tensors.push((format!("m.{name}"), m.shallow_clone()));
            tensors.push((format!("v.{name}"), v.shallow_clone()));
        }
        Tensor::write_safetensors(&tensors, path).map_err(|e| NetError::Weights {
            path: path.to_path_buf(),
            reason: e.to_string(),
        })
    }

    /// Restores the state saved by [`AdamW::save`]; every variable must be present with its
    /// shape.
    pub fn load(&mut self, path: &Path) -> Result<(), NetError> {
        let bad = |reason: String| NetError::Weights {
            path: path.to_path_buf(),
            reason,
        };
        let tensors = Tensor::read_safetensors(path).map_err(|e| bad(e.to_string()))?;
        let find = |name: &str| tensors.iter().find(|(n, _)| n == name).map(|(_, t)| t);
        let steps = find("steps").ok_or_else(|| bad("no `steps` entry".into()))?;
        if steps.numel() != 1 || steps.kind() != Kind::Int64 {
            return Err(bad("`steps` is not one integer".into()));
        }
        let steps = steps.int64_value(&[0]);
        tch::no_grad(|| -> Result<(), NetError> {
            for (name, _, m, v) in &mut self.slots {
                for (prefix, moment) in [("m", &mut *m), ("v", &mut *v)] {
                    let key = format!("{prefix}.{name}");
                    let saved = find(&key).ok_or_else(|| bad(format!("no `{key}` entry")))?;
                    if saved.size() != moment.size() {
                        return Err(bad(format!(
                            "`{key}` has shape {:?}, expected {:?}",
                            saved.size(),
                            moment.size()
                        )));
                    }
                    moment.copy_(saved);
                }
            }
            Ok(())
        })?;
        self.steps = steps;
        Ok(())
    }
}
