//! The net section (`[net]`): the size of the tower and heads. The net itself is
//! [`crate::net::model`].

use serde::{Deserialize, Serialize};

use crate::game::GameKind;

/// The size of the tower and heads; chosen per run in the config.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NetConfig {
    /// Residual blocks (two convolutions each).
    pub blocks: usize,
    /// Channels of the tower.
    pub channels: i64,
    /// Channels of the policy head's 1x1 convolution.
    pub policy_channels: i64,
    /// Hidden units of the value head.
    pub value_hidden: i64,
    /// Global pooling in the tower (KataGo's global pooling bias): each block adds to its
    /// first convolution's output a per-channel bias computed from that output's mean and
    /// max over the board. Off in models saved before it existed.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub global_pool: bool,
    /// A moves-left head (lc0's): one linear unit on the value head's hidden layer that
    /// predicts the steps left in the game, in units of [`crate::net::model::MOVES_LEFT_UNIT`] steps. An
    /// auxiliary training target only: search never reads it. Off in older models.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub moves_left: bool,
    /// A convolutional policy head (KataGo's, lc0's): a 1x1 convolution gives each board
    /// square the logits of the steps from it, and the game's policy map reads each action
    /// off its (channel, square), where the standard head has one linear layer from every
    /// square to every action. Off in older models.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub conv_policy: bool,
}

impl Default for NetConfig {
    fn default() -> Self {
        NetConfig {
            blocks: 6,
            channels: 64,
            policy_channels: 32,
            value_hidden: 128,
            global_pool: false,
            moves_left: false,
            conv_policy: false,
        }
    }
}

impl NetConfig {
    /// The smallest useful net: one block of 8 channels. For tests and examples, where a
    /// net must run fast, not play well.
    ///
    /// ```
    /// use checkers_zero::config::net::NetConfig;
    /// let net = NetConfig { channels: 16, ..NetConfig::tiny() };
    /// assert_eq!((net.blocks, net.channels), (1, 16));
    /// ```
    pub fn tiny() -> NetConfig {
        NetConfig {
            blocks: 1,
            channels: 8,
            policy_channels: 4,
            value_hidden: 8,
            global_pool: false,
            moves_left: false,
            conv_policy: false,
        }
    }

    /// The standard size for a game (its `GameFacts`), what its committed config trains.
    pub fn default_for(kind: GameKind) -> NetConfig {
        let facts = kind.facts();
        NetConfig {
            blocks: facts.default_blocks,
            channels: facts.default_channels,
            ..NetConfig::default()
        }
    }
}
