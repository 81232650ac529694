//! The network: a residual tower of 3x3 convolutions (hex-masked on hex boards), a policy
//! head with one logit per step action, and a win/draw/loss value head from the view of the
//! side to move. Saved as safetensors plus a JSON metadata file (`model.json`) that loading
//! checks.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use tch::nn::{self, ModuleT};
use tch::{Device, Kind, Tensor};

use super::NetError;
use crate::config::net::NetConfig;
use crate::game::RulesConfig;

/// Version of the on-disk model format (metadata layout and tensor names).
pub const MODEL_FORMAT_VERSION: u32 = 1;

/// The moves-left head's unit: it predicts steps left divided by this.
pub const MOVES_LEFT_UNIT: f32 = 20.0;

/// Everything one forward pass gives.
#[derive(Debug)]
pub struct Outputs {
    /// Policy logits `[N, num_actions]`.
    pub policy: Tensor,
    /// W/D/L logits `[N, 3]`.
    pub value: Tensor,
    /// Predicted steps left in [`MOVES_LEFT_UNIT`]s, `[N]`, when the net has the head.
    pub moves_left: Option<Tensor>,
}

/// What the net reads and writes, fixed by the game and its encoding.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NetShape {
    /// Game name (`rematch`, `rematch3`, `hexdame`, `eximo`).
    pub game: String,
    /// Version of the input encoding; a model only loads with the encoding it was trained on.
    pub encoding_version: u32,
    /// Input planes.
    pub planes: i64,
    /// Grid height.
    pub height: i64,
    /// Grid width.
    pub width: i64,
    /// Policy outputs (the game's action-space size).
    pub num_actions: i64,
    /// Board cells of the grid, row-major (`height * width`); false cells are off the board.
    /// Empty means every square is a cell.
    pub board_mask: Vec<bool>,
    /// Whether the 3x3 kernels drop the two corners that are not hex neighbours.
    pub hex: bool,
    /// The convolutional policy head's map, from the game's encoder (never saved: it follows
    /// from the game and its encoding): each policy index's place in the head's output
    /// `[policy_per_square, height, width]`, flattened. Empty where the shape was read from
    /// a file; [`Model::load`] takes it from the shape it expects.
    #[serde(skip)]
    pub policy_map: Vec<i64>,
    /// Logits per grid square of the convolutional policy head (0 with no map).
    #[serde(skip)]
    pub policy_per_square: i64,
}

/// The metadata (`model.json`) saved beside the weights.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ModelMeta {
    /// [`MODEL_FORMAT_VERSION`] at save time.
    pub format_version: u32,
    /// Inputs and outputs.
    pub shape: NetShape,
    /// Tower and head sizes.
    pub config: NetConfig,
    /// The rules the model was trained under (its self-play's ply cap): what `match`,
    /// `play` and `engine` default to. `None` for a model made outside training.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rules: Option<RulesConfig>,
}

/// A 3x3 convolution whose kernel may be masked to the hex neighbourhood.
#[derive(Debug)]
struct Conv3 {
    weight: Tensor,
    kernel_mask: Option<Tensor>,
}

impl Conv3 {
    fn new(path: &nn::Path, in_channels: i64, out_channels: i64, hex: bool) -> Conv3 {
        let weight = path.var(
            "weight",
            &[out_channels, in_channels, 3, 3],
            nn::init::DEFAULT_KAIMING_UNIFORM,
        );
        let kernel_mask = hex.then(|| hex_kernel_mask(path.device()));
        let mut conv = Conv3 {
            weight,
            kernel_mask,
        };
        conv.zero_masked_taps();
        conv
    }

    /// Sets the masked taps of the stored weights to zero. Training multiplies by the mask in
    /// the forward pass, so those taps get no gradient and stay zero; inference can then use
    /// the weights as they are.
    fn zero_masked_taps(&mut self) {
        if let Some(mask) = &self.kernel_mask {
            tch::no_grad(|| {
                let masked = &self.weight * mask.to_kind(self.weight.kind());
                self.weight.copy_(&masked);
            });
        }
    }

    fn forward(&self, x: &Tensor, train: bool) -> Tensor {
        let weight = match (&self.kernel_mask, train) {
            (Some(mask), true) => &self.weight * mask.to_kind(self.weight.kind()),
            _ => self.weight.shallow_clone(),
        };
        x.conv2d(
            &weight.to_kind(x.kind()),
            None::<Tensor>,
            [1, 1],
            [1, 1],
            [1, 1],
            1,
        )
    }
}

/// `fc` applied to `x` in `x`'s kind (the weights cast to it where they differ).
fn linear(x: &Tensor, fc: &nn::Linear) -> Tensor {
    let kind = x.kind();
    let bias = fc.bs.as_ref().map(|b| b.to_kind(kind));
    x.linear(&fc.ws.to_kind(kind), bias.as_ref())
}

/// A 1x1 convolution applied to `x` in `x`'s kind.
fn conv1x1(x: &Tensor, conv: &nn::Conv2D) -> Tensor {
    let kind = x.kind();
    let bias = conv.bs.as_ref().map(|b| b.to_kind(kind));
    x.conv2d(
        &conv.ws.to_kind(kind),
        bias.as_ref(),
        [1, 1],
        [0, 0],
        [1, 1],
        1,
    )
}

/// The hex kernel mask `[1, 1, 3, 3]` on `device`. Axial neighbours are (±1,0), (0,±1),
/// ±(1,1) in (file, rank) = (x, y): the kernel taps at (dx, dy) = (1, -1) and (-1, 1) are
/// not neighbours.
pub(crate) fn hex_kernel_mask(device: Device) -> Tensor {
    let mut m = [1.0f32; 9];
    m[2] = 0.0; // dy = -1, dx = +1
    m[6] = 0.0; // dy = +1, dx = -1
    Tensor::from_slice(&m)
        .reshape([1, 1, 3, 3])
        .to_device(device)
}

#[derive(Debug)]
struct ResBlock {
    conv1: Conv3,
    bn1: nn::BatchNorm,
    conv2: Conv3,
    bn2: nn::BatchNorm,
    /// Global pooling: (mean, max) of the first convolution's channels -> a bias per channel.
    pool_fc: Option<nn::Linear>,
}

/// The network and its variables. One thread owns a model (tensors are not `Sync`).
#[derive(Debug)]
pub struct Model {
    vs: nn::VarStore,
    meta: ModelMeta,
    board_mask: Tensor,
    /// Board cells of the grid (the denominator of global pooling's mean).
    board_cells: f64,
    stem: Conv3,
    stem_bn: nn::BatchNorm,
    blocks: Vec<ResBlock>,
    policy_conv: nn::Conv2D,
    policy_bn: nn::BatchNorm,
    policy_out: PolicyOut,
    value_conv: nn::Conv2D,
    value_bn: nn::BatchNorm,
    value_fc1: nn::Linear,
    value_fc2: nn::Linear,
    moves_left_fc: Option<nn::Linear>,
}

/// The policy head's last layer.
#[derive(Debug)]
enum PolicyOut {
    /// One linear layer from every square's channels to every action (`policy_fc`).
    Linear(nn::Linear),
    /// A 1x1 convolution to `policy_per_square` logits a square (`policy_out`), each action
    /// read off its place by `map` (the shape's `policy_map`, on the model's device).
    Map { conv: nn::Conv2D, map: Tensor },
}

impl Model {
    /// A freshly initialised model (weights from the global torch seed, drawn on the CPU
    /// whatever the device: the same seed gives the same net everywhere, and no random
    /// numbers are drawn on a GPU, where they would break another thread's CUDA graph
    /// capture), then moved to `device`.
    pub fn new(shape: NetShape, config: NetConfig, device: Device) -> Result<Model, NetError> {
        check_sizes(&shape, &config)?;
        let mut vs = nn::VarStore::new(Device::Cpu);
        let root = vs.root();
        let (stem, stem_bn, blocks) = tower(&root, &shape, &config);
        let (policy_conv, policy_bn, policy_out) = policy_head(&root, &shape, &config, device);
        let (value_conv, value_bn, value_fc1, value_fc2) = value_head(&root, &shape, &config);
        let moves_left_fc = config.moves_left.then(|| {
            nn::linear(
                &root / "moves_left_fc",
                config.value_hidden,
                1,
                Default::default(),
            )
        });
        if device != Device::Cpu {
            vs.set_device(device);
        }
        let board_mask = board_mask_tensor(&shape, device);
        let board_cells = board_mask.sum(Kind::Float).double_value(&[]);
        Ok(Model {
            vs,
            meta: ModelMeta {
                format_version: MODEL_FORMAT_VERSION,
                shape,
                config,
                rules: None,
            },
            board_mask,
            board_cells,
            stem,
            stem_bn,
            blocks,
            policy_conv,
            policy_bn,
            policy_out,
            value_conv,
            value_bn,
            value_fc1,
            value_fc2,
            moves_left_fc,
        })
    }

    /// The metadata this model was built with.
    pub fn meta(&self) -> &ModelMeta {
        &self.meta
    }

    /// Records the rules the model is trained under (saved with it).
    pub fn set_rules(&mut self, rules: RulesConfig) {
        self.meta.rules = Some(rules);
    }

    /// Multiply-adds ×2 of one forward pass for one position (convolutions and linear layers;
    /// normalisation and activations left out), for GFLOP/s figures.
    pub fn flops_per_position(&self) -> f64 {
        let shape = &self.meta.shape;
        let config = &self.meta.config;
        let cells = (shape.height * shape.width) as f64;
        let c = config.channels as f64;
        let conv3 = |cin: f64, cout: f64| 2.0 * cin * cout * 9.0 * cells;
        let stem = conv3(shape.planes as f64, c);
        let pool = if config.global_pool {
            2.0 * 2.0 * c * c
        } else {
            0.0
        };
        let tower = config.blocks as f64 * (2.0 * conv3(c, c) + pool);
        let pc = config.policy_channels as f64;
        let out = match config.conv_policy {
            true => shape.policy_per_square as f64,
            false => cells * shape.num_actions as f64,
        };
        let policy = 2.0 * c * pc * cells + 2.0 * pc * cells * out;
        let hidden = config.value_hidden as f64;
        let heads = if config.moves_left { 4.0 } else { 3.0 };
        let value = 2.0 * c * 4.0 * cells + 2.0 * 4.0 * cells * hidden + 2.0 * hidden * heads;
        stem + tower + policy + value
    }

    /// The variables (for optimizers and checkpoints).
    pub fn var_store(&self) -> &nn::VarStore {
        &self.vs
    }

    /// The variables, mutably (kind and device changes, loading).
    pub fn var_store_mut(&mut self) -> &mut nn::VarStore {
        &mut self.vs
    }

    /// The floating-point kind of the weights (Float or BFloat16).
    pub fn kind(&self) -> Kind {
        self.vs.kind()
    }

    /// Switches the weights to `kind` (e.g. BFloat16 for fast CPU inference).
    pub fn set_kind(&mut self, kind: Kind) {
        self.vs.set_kind(kind);
    }

    /// Policy logits `[N, num_actions]` and W/D/L logits `[N, 3]` for inputs
    /// `[N, planes, height, width]`. `train` selects batch statistics in batch norm.
    pub fn forward_t(&self, input: &Tensor, train: bool) -> (Tensor, Tensor) {
        let out = self.forward_outputs(input, train);
        (out.policy, out.value)
    }

    /// The forward pass with every head (training reads the auxiliary ones), computed in
    /// `input`'s kind: with fp32 weights and a bf16 input, each weight is cast to bf16 on
    /// its way into its layer (mixed precision: gradients reach the fp32 weights in fp32;
    /// batch norm keeps fp32 parameters and statistics).
    pub fn forward_outputs(&self, input: &Tensor, train: bool) -> Outputs {
        let mask = self.board_mask.to_kind(input.kind());
        let mut x = self
            .stem_bn
            .forward_t(&self.stem.forward(input, train), train)
            .relu()
            * &mask;
        for block in &self.blocks {
            let a = block.bn1.forward_t(&block.conv1.forward(&x, train), train);
            let y = match &block.pool_fc {
                Some(fc) => (&a + self.pool_bias(&(a.relu() * &mask), fc)).relu() * &mask,
                None => a.relu() * &mask,
            };
            let y = block.bn2.forward_t(&block.conv2.forward(&y, train), train) * &mask;
            x = (x + y).relu();
        }
        let p = self
            .policy_bn
            .forward_t(&conv1x1(&x, &self.policy_conv), train)
            .relu()
            * &mask;
        let policy = match &self.policy_out {
            PolicyOut::Linear(fc) => linear(&p.flatten(1, -1), fc),
            PolicyOut::Map { conv, map } => conv1x1(&p, conv).flatten(1, -1).index_select(1, map),
        };
        let v = self
            .value_bn
            .forward_t(&conv1x1(&x, &self.value_conv), train)
            .relu()
            * &mask;
        let hidden = linear(&v.flatten(1, -1), &self.value_fc1).relu();
        Outputs {
            policy,
            value: linear(&hidden, &self.value_fc2),
            moves_left: self
                .moves_left_fc
                .as_ref()
                .map(|fc| linear(&hidden, fc).squeeze_dim(-1)),
        }
    }

    /// Global pooling's bias `[N, C, 1, 1]` from activations `y` `[N, C, H, W]` (zero off
    /// the board and non-negative, so the plain max is the max over the board's cells).
    fn pool_bias(&self, y: &Tensor, fc: &nn::Linear) -> Tensor {
        let mean = y.sum_dim_intlist([2i64, 3].as_slice(), false, y.kind()) / self.board_cells;
        let max = y.amax([2i64, 3].as_slice(), false);
        linear(&Tensor::cat(&[mean, max], 1), fc)
            .unsqueeze(-1)
            .unsqueeze(-1)
    }

    /// Writes the weights to `path` (a `.safetensors` file) and the metadata beside it
    /// (`path` with extension `.json`), each atomically (temp file + rename).
    pub fn save(&self, path: &Path) -> Result<(), NetError> {
        let meta_path = meta_path(path);
        let tmp_weights = tmp_path(path);
        self.vs.save(&tmp_weights).map_err(|e| NetError::Weights {
            path: tmp_weights.clone(),
            reason: e.to_string(),
        })?;
        let json = serde_json::to_string_pretty(&self.meta).map_err(|e| NetError::Metadata {
            path: meta_path.clone(),
            reason: e.to_string(),
        })?;
        crate::util::write_atomic(&meta_path, json.as_bytes())
            .map_err(|e| NetError::io(&meta_path, e))?;
        std::fs::rename(&tmp_weights, path).map_err(|e| NetError::io(path, e))?;
        Ok(())
    }

    /// A copy with its own variables (same shape, config, weights and kind): how a trainer
    /// hands its current weights to a batcher thread.
    pub fn try_clone(&self) -> Result<Model, NetError> {
        self.copy_to(self.vs.device())
    }

    /// A copy on `device` (same shape, config, weights and kind): how a model read on the
    /// CPU goes to a GPU.
    pub fn copy_to(&self, device: Device) -> Result<Model, NetError> {
        let mut copy = Model::new(self.meta.shape.clone(), self.meta.config.clone(), device)?;
        copy.vs.set_kind(self.vs.kind());
        copy.vs.copy(&self.vs)?;
        copy.meta.rules = self.meta.rules;
        Ok(copy)
    }

    /// Reads the metadata saved beside `path`.
    pub fn read_meta(path: &Path) -> Result<ModelMeta, NetError> {
        let meta_path = meta_path(path);
        let text = std::fs::read_to_string(&meta_path).map_err(|e| match e.kind() {
            std::io::ErrorKind::NotFound => NetError::Metadata {
                path: meta_path.clone(),
                reason: format!(
                    "it is missing: the weights {} need their metadata file beside them, \
                     named as they are with .json",
                    path.display()
                ),
            },
            _ => NetError::io(&meta_path, e),
        })?;
        let meta: ModelMeta = serde_json::from_str(&text).map_err(|e| NetError::Metadata {
            path: meta_path.clone(),
            reason: e.to_string(),
        })?;
        if meta.format_version != MODEL_FORMAT_VERSION {
            return Err(NetError::Mismatch {
                what: "model format version",
                expected: MODEL_FORMAT_VERSION.to_string(),
                found: meta.format_version.to_string(),
            });
        }
        Ok(meta)
    }

    /// Loads a model saved by [`Model::save`], checking that it was made for `expected`
    /// (same game, encoding version and input/output shape).
    pub fn load(path: &Path, expected: &NetShape, device: Device) -> Result<Model, NetError> {
        let mut meta = Model::read_meta(path)?;
        check_shape(expected, &meta.shape)?;
        meta.shape.policy_map = expected.policy_map.clone();
        meta.shape.policy_per_square = expected.policy_per_square;
        let mut model = Model::new(meta.shape, meta.config, device)?;
        model.meta.rules = meta.rules;
        model.vs.load(path).map_err(|e| NetError::Weights {
            path: path.to_path_buf(),
            reason: e.to_string(),
        })?;
        // Weights from elsewhere may carry values in the masked taps.
        model.stem.zero_masked_taps();
        for block in &mut model.blocks {
            block.conv1.zero_masked_taps();
            block.conv2.zero_masked_taps();
        }
        Ok(model)
    }
}

/// Checks that the board mask fits the grid and every size is positive.
fn check_sizes(shape: &NetShape, config: &NetConfig) -> Result<(), NetError> {
    let cells = (shape.height * shape.width) as usize;
    if !shape.board_mask.is_empty() && shape.board_mask.len() != cells {
        return Err(NetError::Shape(format!(
            "board mask has {} entries for a {}x{} grid",
            shape.board_mask.len(),
            shape.height,
            shape.width
        )));
    }
    let map_fits = shape.policy_map.len() as i64 == shape.num_actions
        && shape.policy_per_square > 0
        && shape
            .policy_map
            .iter()
            .all(|&i| (0..shape.policy_per_square * cells as i64).contains(&i));
    if config.conv_policy && !map_fits {
        return Err(NetError::Shape(format!(
            "the convolutional policy head needs the game's policy map, one place for each of \
             the {} actions; this {} shape has {}",
            shape.num_actions,
            shape.game,
            shape.policy_map.len()
        )));
    }
    if config.blocks == 0
        || config.channels <= 0
        || config.policy_channels <= 0
        || config.value_hidden <= 0
    {
        return Err(NetError::Shape(format!(
            "net sizes must be positive: {config:?}"
        )));
    }
    Ok(())
}

fn batch_norm(path: nn::Path, channels: i64) -> nn::BatchNorm {
    nn::batch_norm2d(path, channels, Default::default())
}

fn no_bias() -> nn::ConvConfig {
    nn::ConvConfig {
        bias: false,
        ..Default::default()
    }
}

/// The stem convolution and its norm, and the residual blocks.
fn tower(
    root: &nn::Path,
    shape: &NetShape,
    config: &NetConfig,
) -> (Conv3, nn::BatchNorm, Vec<ResBlock>) {
    let c = config.channels;
    let stem = Conv3::new(&(root / "stem"), shape.planes, c, shape.hex);
    let stem_bn = batch_norm(root / "stem_bn", c);
    let blocks = (0..config.blocks)
        .map(|i| {
            let p = root / format!("block{i}");
            ResBlock {
                conv1: Conv3::new(&(&p / "conv1"), c, c, shape.hex),
                bn1: batch_norm(&p / "bn1", c),
                conv2: Conv3::new(&(&p / "conv2"), c, c, shape.hex),
                bn2: batch_norm(&p / "bn2", c),
                pool_fc: config
                    .global_pool
                    .then(|| nn::linear(&p / "pool_fc", 2 * c, c, Default::default())),
            }
        })
        .collect();
    (stem, stem_bn, blocks)
}

/// The policy head: 1x1 convolution, norm, then one linear layer to the action logits or,
/// with `conv_policy`, a 1x1 convolution read through the game's policy map.
fn policy_head(
    root: &nn::Path,
    shape: &NetShape,
    config: &NetConfig,
    device: Device,
) -> (nn::Conv2D, nn::BatchNorm, PolicyOut) {
    let (c, pc) = (config.channels, config.policy_channels);
    let cells = shape.height * shape.width;
    let conv = nn::conv2d(root / "policy_conv", c, pc, 1, no_bias());
    let bn = batch_norm(root / "policy_bn", pc);
    let out = match config.conv_policy {
        true => PolicyOut::Map {
            conv: nn::conv2d(
                root / "policy_out",
                pc,
                shape.policy_per_square,
                1,
                Default::default(),
            ),
            map: Tensor::from_slice(&shape.policy_map).to_device(device),
        },
        false => PolicyOut::Linear(nn::linear(
            root / "policy_fc",
            pc * cells,
            shape.num_actions,
            Default::default(),
        )),
    };
    (conv, bn, out)
}

/// The W/D/L head: 1x1 convolution to 4 planes, norm, two linear layers.
fn value_head(
    root: &nn::Path,
    shape: &NetShape,
    config: &NetConfig,
) -> (nn::Conv2D, nn::BatchNorm, nn::Linear, nn::Linear) {
    let cells = shape.height * shape.width;
    let conv = nn::conv2d(root / "value_conv", config.channels, 4, 1, no_bias());
    let bn = batch_norm(root / "value_bn", 4);
    let fc1 = nn::linear(
        root / "value_fc1",
        4 * cells,
        config.value_hidden,
        Default::default(),
    );
    let fc2 = nn::linear(
        root / "value_fc2",
        config.value_hidden,
        3,
        Default::default(),
    );
    (conv, bn, fc1, fc2)
}

/// The board cells as a `[1, 1, height, width]` 0/1 tensor on `device`.
pub(crate) fn board_mask_tensor(shape: &NetShape, device: Device) -> Tensor {
    let cells = (shape.height * shape.width) as usize;
    let mask: Vec<f32> = if shape.board_mask.is_empty() {
        vec![1.0; cells]
    } else {
        shape
            .board_mask
            .iter()
            .map(|&b| if b { 1.0 } else { 0.0 })
            .collect()
    };
    Tensor::from_slice(&mask)
        .reshape([1, 1, shape.height, shape.width])
        .to_device(device)
}

/// Checks that a saved model's shape is the one a caller needs, naming the first difference.
pub fn check_shape(expected: &NetShape, found: &NetShape) -> Result<(), NetError> {
    if expected.game == found.game && expected.encoding_version != found.encoding_version {
        return Err(NetError::Encoding {
            expected: expected.encoding_version,
            found: found.encoding_version,
        });
    }
    let fields: [(&'static str, String, String); 5] = [
        ("game", expected.game.clone(), found.game.clone()),
        (
            "input planes",
            expected.planes.to_string(),
            found.planes.to_string(),
        ),
        (
            "board grid",
            format!("{}x{}", expected.height, expected.width),
            format!("{}x{}", found.height, found.width),
        ),
        (
            "action space",
            expected.num_actions.to_string(),
            found.num_actions.to_string(),
        ),
        (
            "board mask",
            format!("{:?}", expected.board_mask),
            format!("{:?}", found.board_mask),
        ),
    ];
    for (what, e, f) in fields {
        if e != f {
            return Err(NetError::Mismatch {
                what,
                expected: e,
                found: f,
            });
        }
    }
    Ok(())
}

/// The metadata file that belongs to a weights file.
pub fn meta_path(weights: &Path) -> PathBuf {
    weights.with_extension("json")
}

fn tmp_path(path: &Path) -> PathBuf {
    let mut name = path.file_name().unwrap_or_default().to_os_string();
    name.push(format!(".{}.tmp.safetensors", std::process::id()));
    path.with_file_name(name)
}
