//! A resumed run's settings changed from its newest checkpoint on (`train --resume --set`,
//! as KataGo's and lc0's trainers read their settings again at each start): the run's
//! config is rewritten with the overrides, and the config it replaces is kept beside it as
//! `config-before-step-NNNNNNNN.toml` (the first one at that step). The game and the net
//! cannot change: the run's checkpoints would no longer load (a fork starts a new run).

use super::{read_pointer, RoleError};
use crate::config::RunConfig;
use crate::layout::{CONFIG, LATEST};
use crate::store::{RunStore, StoreError};

/// The key under which the config replaced by a change at `step` is kept.
pub fn replaced_config_key(step: u64) -> String {
    format!("config-before-step-{step:08}.toml")
}

/// Puts `set` (`KEY=VALUE` items) over the run's recorded config and records the result;
/// returns what it did, in words.
pub fn change_settings(store: &RunStore, set: &[String]) -> Result<String, RoleError> {
    let location = store.location();
    let name = format!("{location}/{CONFIG}");
    let text = store.get_text(CONFIG)?.ok_or_else(|| {
        RoleError::Run(format!("{location} holds no run to resume (no {CONFIG})"))
    })?;
    let before = RunConfig::parse(&text, &name)?;
    let after = RunConfig::parse_with(&text, &name, set)?;
    if after.game != before.game || after.net != before.net {
        return Err(RoleError::Run(format!(
            "--set on a resumed run cannot change the game or the net (its checkpoints would \
             no longer load): start a new run from it with `train --fork {location} --set ...`"
        )));
    }
    if after == before {
        return Ok(format!(
            "--set {}: the run's config has these already",
            set.join(" ")
        ));
    }
    let step = read_pointer(store, LATEST)?.unwrap_or(0);
    let kept = replaced_config_key(step);
    match store.put_new(&kept, text.into_bytes()) {
        Ok(()) | Err(StoreError::Exists { .. }) => {}
        Err(e) => return Err(e.into()),
    }
    store.put(CONFIG, after.to_toml().into_bytes())?;
    Ok(format!(
        "settings changed from step {step} on: {}; the config before is kept as {kept}",
        set.join(", ")
    ))
}
