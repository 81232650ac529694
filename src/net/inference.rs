//! The inference form of the net: what the batcher's streams run. Built from a model's
//! training weights whenever weights are loaded, it is numerically the same net (within the
//! precision's rounding) with less work a pass:
//!
//! - batch norm folded into the convolution before it (weight scaled per output channel,
//!   a bias added), so a layer is one fused convolution with bias;
//! - the board mask applied only where off-board padding would leak into a later 3x3
//!   convolution; the heads' mask is folded into their first linear layer (its columns of
//!   off-board cells zeroed), and a board without off-board cells is never masked;
//! - the convolutional policy head (`net.conv_policy`) reads each action off its 1x1
//!   convolution through the policy map, rewritten for the form's memory order;
//! - optionally channels-last memory (NHWC strides), which oneDNN's convolutions prefer on
//!   some CPUs and not on others, so the precision probe measures it ([`Form`]);
//! - fp32 or bf16 weights, as the probe decides per batch band.
//!
//! [`Form::Training`] runs the training form itself (the model's own forward pass in eval
//! mode): the reference the tests and `bench` compare the folded forms with.

use tch::{Device, Kind, Tensor};

use super::model::{board_mask_tensor, hex_kernel_mask, Model, ModelMeta, NetShape};
use super::NetError;
use crate::config::batching::Form;

/// Batch norm's epsilon (tch's default, which the model's norms use).
const BN_EPS: f64 = 1e-5;

/// A convolution with batch norm folded in: weight and bias.
#[derive(Debug)]
struct Conv {
    weight: Tensor,
    bias: Tensor,
}

/// A linear layer.
#[derive(Debug)]
struct Linear {
    weight: Tensor,
    bias: Tensor,
}

impl Linear {
    fn apply(&self, x: &Tensor) -> Tensor {
        x.linear(&self.weight, Some(&self.bias))
    }
}

/// The policy head's last layer, folded.
#[derive(Debug)]
enum PolicyOut {
    /// One linear layer over the head's flat activations.
    Linear(Linear),
    /// A 1x1 convolution; each action's logit read at its place in the output as
    /// [`Folded::flat`] orders it (the game's policy map, in that order).
    Map { conv: Conv, map: Tensor },
}

/// One residual block, folded.
#[derive(Debug)]
struct Block {
    conv1: Conv,
    conv2: Conv,
    pool_fc: Option<Linear>,
}

/// The folded layers.
#[derive(Debug)]
struct Folded {
    stem: Conv,
    blocks: Vec<Block>,
    policy_conv: Conv,
    policy_out: PolicyOut,
    value_conv: Conv,
    value_fc1: Linear,
    value_fc2: Linear,
    /// The board mask `[1, 1, H, W]`, where the board has off-board cells.
    mask: Option<Tensor>,
    board_cells: f64,
    channels_last: bool,
}

/// What an inference net computes with.
#[derive(Debug)]
enum Body {
    Training(Box<Model>),
    Folded(Box<Folded>),
}

/// The net as a batcher's stream runs it: one form, one precision, one device. Not `Sync`
/// (tensors are not); one thread owns it.
#[derive(Debug)]
pub struct InferenceNet {
    shape: NetShape,
    kind: Kind,
    form: Form,
    device: Device,
    body: Body,
}

impl InferenceNet {
    /// The inference form `form` of `model`'s current weights in `kind` (Float or
    /// BFloat16), on the model's device.
    pub fn build(model: &Model, kind: Kind, form: Form) -> Result<InferenceNet, NetError> {
        let device = model.var_store().device();
        let body = match form {
            Form::Training | Form::TrainingChannelsLast => {
                let mut copy = model.try_clone()?;
                copy.set_kind(kind);
                Body::Training(Box::new(copy))
            }
            Form::Folded | Form::FoldedChannelsLast => {
                Body::Folded(Box::new(tch::no_grad(|| {
                    fold(model, kind, form == Form::FoldedChannelsLast)
                })?))
            }
        };
        Ok(InferenceNet {
            shape: model.meta().shape.clone(),
            kind,
            form,
            device,
            body,
        })
    }

    /// Inputs and outputs.
    pub fn shape(&self) -> &NetShape {
        &self.shape
    }

    /// The precision of the weights.
    pub fn kind(&self) -> Kind {
        self.kind
    }

    /// The form.
    pub fn form(&self) -> Form {
        self.form
    }

    /// Where it runs.
    pub fn device(&self) -> Device {
        self.device
    }

    /// The answers to `x` (`[N, planes, H, W]`, any float kind, on the net's device): policy
    /// logits then W/D/L logits side by side, `[N, actions + 3]`, in f32. Call without grad.
    pub fn answers(&self, x: &Tensor) -> Result<Tensor, NetError> {
        let x = x.f_to_kind(self.kind)?;
        let (policy, value) = match &self.body {
            Body::Training(model) => model.forward_t(&laid_out(&x, self.form), false),
            Body::Folded(folded) => folded.forward(&x),
        };
        Ok(Tensor::f_cat(&[policy, value], 1)?.f_to_kind(Kind::Float)?)
    }
}

/// `t` (4-d) with channels-last strides, the same values.
pub fn channels_last(t: &Tensor) -> Tensor {
    t.permute([0, 2, 3, 1]).contiguous().permute([0, 3, 1, 2])
}

/// `input` in the memory layout `form` computes in: channels-last strides for the
/// channels-last forms (convolutions and batch norm then keep that layout), else as it is.
pub fn laid_out(input: &Tensor, form: Form) -> Tensor {
    match form.channels_last() {
        true => channels_last(input),
        false => input.shallow_clone(),
    }
}

impl Folded {
    fn conv3(&self, x: &Tensor, conv: &Conv) -> Tensor {
        x.conv2d(&conv.weight, Some(&conv.bias), [1, 1], [1, 1], [1, 1], 1)
    }

    fn conv1(&self, x: &Tensor, conv: &Conv) -> Tensor {
        x.conv2d(&conv.weight, Some(&conv.bias), [1, 1], [0, 0], [1, 1], 1)
    }

    /// `x` zeroed off the board (in place), where the board has off-board cells.
    fn masked(&self, mut x: Tensor) -> Tensor {
        if let Some(mask) = &self.mask {
            let _ = x.g_mul_(mask);
        }
        x
    }

    /// A head's activations as its linear layer reads them, `[N, C*H*W]`: in NCHW order, or
    /// in NHWC order (a view of channels-last memory; the layer's columns were permuted to
    /// match).
    fn flat(&self, x: &Tensor) -> Tensor {
        match self.channels_last {
            true => x.permute([0, 2, 3, 1]).reshape([x.size()[0], -1]),
            false => x.flatten(1, -1),
        }
    }

    fn forward(&self, input: &Tensor) -> (Tensor, Tensor) {
        let input = match self.channels_last {
            true => channels_last(input),
            false => input.shallow_clone(),
        };
        let mut x = self.masked(self.conv3(&input, &self.stem).relu_());
        for block in &self.blocks {
            let mut a = self.conv3(&x, &block.conv1);
            let y = match &block.pool_fc {
                Some(fc) => {
                    let pooled = self.masked(a.relu());
                    let mean = pooled.sum_dim_intlist([2i64, 3].as_slice(), false, a.kind())
                        / self.board_cells;
                    let max = pooled.amax([2i64, 3].as_slice(), false);
                    let bias = fc.apply(&Tensor::cat(&[mean, max], 1));
                    (a + bias.unsqueeze(-1).unsqueeze(-1)).relu_()
                }
                None => a.relu_(),
            };
            let y = self.masked(y);
            let mut sum = self.conv3(&y, &block.conv2);
            let _ = sum.g_add_(&x);
            x = self.masked(sum.relu_());
        }
        let p = self.conv1(&x, &self.policy_conv).relu_();
        let policy = match &self.policy_out {
            PolicyOut::Linear(fc) => fc.apply(&self.flat(&p)),
            PolicyOut::Map { conv, map } => self.flat(&self.conv1(&p, conv)).index_select(1, map),
        };
        let v = self.conv1(&x, &self.value_conv).relu_();
        let hidden = self.value_fc1.apply(&self.flat(&v)).relu_();
        (policy, self.value_fc2.apply(&hidden))
    }
}

/// The model's variables by name, in fp32.
struct Vars(std::collections::HashMap<String, Tensor>);

impl Vars {
    fn get(&self, name: &str) -> Result<Tensor, NetError> {
        self.0
            .get(name)
            // A copy: the form never shares storage with the weights it was built from.
            .map(|t| t.to_kind(Kind::Float).copy())
            .ok_or_else(|| NetError::Shape(format!("the net has no variable `{name}`")))
    }

    /// Convolution `conv` (bias-free) with batch norm `bn` folded in; `kernel_mask` zeroes
    /// the taps the training form masks.
    fn conv_bn(
        &self,
        conv: &str,
        bn: &str,
        kernel_mask: Option<&Tensor>,
    ) -> Result<Conv, NetError> {
        let mut weight = self.get(&format!("{conv}.weight"))?;
        if let (Some(mask), 4) = (kernel_mask, weight.dim()) {
            if weight.size()[2] == 3 {
                weight *= mask;
            }
        }
        let gamma = self.get(&format!("{bn}.weight"))?;
        let beta = self.get(&format!("{bn}.bias"))?;
        let mean = self.get(&format!("{bn}.running_mean"))?;
        let var = self.get(&format!("{bn}.running_var"))?;
        let scale = gamma / (var + BN_EPS).sqrt();
        let bias = beta - &mean * &scale;
        let weight = weight * scale.reshape([-1, 1, 1, 1]);
        Ok(Conv { weight, bias })
    }

    fn linear(&self, name: &str) -> Result<Linear, NetError> {
        Ok(Linear {
            weight: self.get(&format!("{name}.weight"))?,
            bias: self.get(&format!("{name}.bias"))?,
        })
    }
}

/// `fc` (reading a head's `[C, H, W]` activations) with the columns of off-board cells
/// zeroed and, for channels-last, its columns in NHWC order.
fn head_fc(fc: Linear, shape: &NetShape, mask: Option<&Tensor>, nhwc: bool) -> Linear {
    let out = fc.weight.size()[0];
    let mut w = fc.weight.reshape([out, -1, shape.height, shape.width]);
    if let Some(mask) = mask {
        w *= mask;
    }
    let w = match nhwc {
        true => w.permute([0, 2, 3, 1]).reshape([out, -1]),
        false => w.reshape([out, -1]),
    };
    Linear {
        weight: w.contiguous(),
        bias: fc.bias,
    }
}

/// The policy head's last layer of a model with `meta`: its linear layer as [`head_fc`]
/// folds it, or its 1x1 convolution with the policy map in [`Folded::flat`]'s order.
fn policy_out(
    vars: &Vars,
    meta: &ModelMeta,
    mask: Option<&Tensor>,
    nhwc: bool,
    device: Device,
) -> Result<PolicyOut, NetError> {
    let shape = &meta.shape;
    if !meta.config.conv_policy {
        return Ok(PolicyOut::Linear(head_fc(
            vars.linear("policy_fc")?,
            shape,
            mask,
            nhwc,
        )));
    }
    let (squares, per) = (shape.height * shape.width, shape.policy_per_square);
    let map: Vec<i64> = shape
        .policy_map
        .iter()
        .map(|&place| match nhwc {
            true => place % squares * per + place / squares,
            false => place,
        })
        .collect();
    let conv = Conv {
        weight: vars.get("policy_out.weight")?,
        bias: vars.get("policy_out.bias")?,
    };
    Ok(PolicyOut::Map {
        conv,
        map: Tensor::from_slice(&map).to_device(device),
    })
}

/// The folded form of `model`'s weights in `kind`.
fn fold(model: &Model, kind: Kind, nhwc: bool) -> Result<Folded, NetError> {
    let vars = Vars(model.var_store().variables());
    let meta = model.meta();
    let shape = &meta.shape;
    let device = model.var_store().device();
    let kernel_mask = shape.hex.then(|| hex_kernel_mask(device));
    let km = kernel_mask.as_ref();
    let board = board_mask_tensor(shape, device);
    let board_cells = board.sum(Kind::Float).double_value(&[]);
    let mask = shape.board_mask.contains(&false).then_some(board);
    let blocks = (0..meta.config.blocks)
        .map(|i| {
            let p = format!("block{i}");
            Ok(Block {
                conv1: vars.conv_bn(&format!("{p}.conv1"), &format!("{p}.bn1"), km)?,
                conv2: vars.conv_bn(&format!("{p}.conv2"), &format!("{p}.bn2"), km)?,
                pool_fc: match meta.config.global_pool {
                    true => Some(vars.linear(&format!("{p}.pool_fc"))?),
                    false => None,
                },
            })
        })
        .collect::<Result<Vec<Block>, NetError>>()?;
    let folded = Folded {
        stem: vars.conv_bn("stem", "stem_bn", km)?,
        blocks,
        policy_conv: vars.conv_bn("policy_conv", "policy_bn", None)?,
        policy_out: policy_out(&vars, meta, mask.as_ref(), nhwc, device)?,
        value_conv: vars.conv_bn("value_conv", "value_bn", None)?,
        value_fc1: head_fc(vars.linear("value_fc1")?, shape, mask.as_ref(), nhwc),
        value_fc2: vars.linear("value_fc2")?,
        mask,
        board_cells,
        channels_last: nhwc,
    };
    Ok(folded.to(kind))
}

impl Folded {
    /// Every weight in `kind`, convolution weights channels-last where the form says.
    fn to(self, kind: Kind) -> Folded {
        let nhwc = self.channels_last;
        let conv = |c: Conv| {
            let weight = c.weight.to_kind(kind);
            Conv {
                weight: match nhwc {
                    true => channels_last(&weight),
                    false => weight.contiguous(),
                },
                bias: c.bias.to_kind(kind),
            }
        };
        let linear = |l: Linear| Linear {
            weight: l.weight.to_kind(kind),
            bias: l.bias.to_kind(kind),
        };
        Folded {
            stem: conv(self.stem),
            blocks: self
                .blocks
                .into_iter()
                .map(|b| Block {
                    conv1: conv(b.conv1),
                    conv2: conv(b.conv2),
                    pool_fc: b.pool_fc.map(linear),
                })
                .collect(),
            policy_conv: conv(self.policy_conv),
            policy_out: match self.policy_out {
                PolicyOut::Linear(fc) => PolicyOut::Linear(linear(fc)),
                PolicyOut::Map { conv: c, map } => PolicyOut::Map { conv: conv(c), map },
            },
            value_conv: conv(self.value_conv),
            value_fc1: linear(self.value_fc1),
            value_fc2: linear(self.value_fc2),
            mask: self.mask.map(|m| m.to_kind(kind)),
            board_cells: self.board_cells,
            channels_last: nhwc,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::net::NetConfig;
    use crate::game::GameKind;
    use crate::net::encode::Encode;
    use crate::with_game;

    /// A model of `kind`'s standard net (global pooling on where `pool`, the convolutional
    /// policy head where `conv_policy`) whose batch norms hold trained-looking statistics,
    /// so that folding them changes the weights.
    fn trained_looking(kind: GameKind, pool: bool, conv_policy: bool) -> Model {
        tch::manual_seed(5);
        let shape = with_game!(kind, S => S::net_shape(kind));
        let config = NetConfig {
            global_pool: pool,
            conv_policy,
            ..NetConfig::default_for(kind)
        };
        let model = Model::new(shape, config, Device::Cpu).unwrap();
        tch::no_grad(|| {
            for (name, mut t) in model.var_store().variables() {
                let size = t.size();
                let noise = Tensor::randn(size.as_slice(), (Kind::Float, Device::Cpu));
                let value = match name.rsplit('.').next() {
                    Some("running_var") => noise.abs() * 0.5 + 0.5,
                    Some("running_mean") => noise * 0.2,
                    Some("weight") if name.contains("bn") => noise * 0.1 + 1.0,
                    Some("bias") if name.contains("bn") => noise * 0.1,
                    _ => continue,
                };
                t.copy_(&value);
            }
        });
        model
    }

    /// Largest difference of `a` and `b` over the largest magnitude of `b`.
    fn relative(a: &Tensor, b: &Tensor) -> f64 {
        let diff = (a - b).abs().max().double_value(&[]);
        diff / b.abs().max().double_value(&[]).max(1e-6)
    }

    #[test]
    fn every_folded_form_answers_as_the_training_form_for_every_game() {
        let _guard = tch::no_grad_guard();
        for kind in [
            GameKind::Rematch,
            GameKind::Rematch3,
            GameKind::Hexdame,
            GameKind::Eximo,
        ] {
            for (pool, conv_policy) in [(false, false), (true, false), (false, true)] {
                let model = trained_looking(kind, pool, conv_policy);
                let s = &model.meta().shape;
                let x = Tensor::rand([9, s.planes, s.height, s.width], (Kind::Float, Device::Cpu))
                    .gt(0.7)
                    .to_kind(Kind::Float);
                let reference = InferenceNet::build(&model, Kind::Float, Form::Training)
                    .unwrap()
                    .answers(&x)
                    .unwrap();
                for form in [
                    Form::Folded,
                    Form::FoldedChannelsLast,
                    Form::TrainingChannelsLast,
                ] {
                    for (kind_, tolerance) in [(Kind::Float, 1e-4), (Kind::BFloat16, 6e-2)] {
                        let net = InferenceNet::build(&model, kind_, form).unwrap();
                        let got = net.answers(&x).unwrap();
                        assert_eq!(got.size(), reference.size());
                        let r = relative(&got, &reference);
                        assert!(
                            r < tolerance,
                            "{kind:?} pool {pool} conv policy {conv_policy} {form} {kind_:?}: off by \
                             {r:.2e} (allowed {tolerance:.0e})"
                        );
                    }
                }
            }
        }
    }

    #[test]
    fn a_form_owns_its_weights() {
        let _guard = tch::no_grad_guard();
        let model = trained_looking(GameKind::Eximo, false, false);
        let s = model.meta().shape.clone();
        let x = Tensor::ones([2, s.planes, s.height, s.width], (Kind::Float, Device::Cpu));
        let net = InferenceNet::build(&model, Kind::Float, Form::Folded).unwrap();
        let before = net.answers(&x).unwrap();
        for (_, mut t) in model.var_store().variables() {
            let _ = t.fill_(0.5);
        }
        assert_eq!(relative(&net.answers(&x).unwrap(), &before), 0.0);
    }
}
