//! How a shallow search calls a position already decided (`openings --check`,
//! `selfplay.balanced_openings`): `none`, or `alphabeta:DEPTH:MARGIN`.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

/// How a position is found already decided.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
pub enum DecidedCheck {
    /// Keep every position.
    None,
    /// Alpha-beta on material, `depth` whole turns deep, for side 0: decided when it
    /// differs from the start position's value at the same depth by at least `margin` (a
    /// forced win or loss always does).
    AlphaBeta {
        /// Whole turns searched.
        depth: u32,
        /// Material difference from the start position's value that counts as decided.
        margin: f64,
    },
}

impl fmt::Display for DecidedCheck {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DecidedCheck::None => f.write_str("none"),
            DecidedCheck::AlphaBeta { depth, margin } => write!(f, "alphabeta:{depth}:{margin}"),
        }
    }
}

impl FromStr for DecidedCheck {
    type Err = String;
    /// Parses `none` or `alphabeta:DEPTH:MARGIN`.
    fn from_str(text: &str) -> Result<DecidedCheck, String> {
        let bad = || {
            format!(
                "bad check '{text}': expected 'none' or 'alphabeta:DEPTH:MARGIN' \
                 (e.g. alphabeta:6:2, DEPTH 1 to 8 whole turns, MARGIN above 0)"
            )
        };
        if text == "none" {
            return Ok(DecidedCheck::None);
        }
        let rest = text.strip_prefix("alphabeta:").ok_or_else(bad)?;
        let (depth, margin) = rest.split_once(':').ok_or_else(bad)?;
        let depth: u32 = depth.parse().map_err(|_| bad())?;
        let margin: f64 = margin.parse().map_err(|_| bad())?;
        if !((1..=8).contains(&depth) && margin.is_finite() && margin > 0.0) {
            return Err(bad());
        }
        Ok(DecidedCheck::AlphaBeta { depth, margin })
    }
}

impl TryFrom<String> for DecidedCheck {
    type Error = String;
    fn try_from(text: String) -> Result<DecidedCheck, String> {
        text.parse()
    }
}

impl From<DecidedCheck> for String {
    fn from(check: DecidedCheck) -> String {
        check.to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn checks_parse() {
        assert_eq!("none".parse::<DecidedCheck>(), Ok(DecidedCheck::None));
        assert_eq!(
            "alphabeta:4:2.5".parse::<DecidedCheck>(),
            Ok(DecidedCheck::AlphaBeta {
                depth: 4,
                margin: 2.5
            })
        );
        for bad in [
            "",
            "alphabeta:4",
            "alphabeta:0:2",
            "alphabeta:4:0",
            "uct:4:2",
            "alphabeta:x:1",
        ] {
            let error = bad.parse::<DecidedCheck>().unwrap_err();
            assert!(error.contains("alphabeta:DEPTH:MARGIN"), "{error}");
        }
        let check = DecidedCheck::AlphaBeta {
            depth: 3,
            margin: 1.5,
        };
        assert_eq!(check.to_string().parse::<DecidedCheck>(), Ok(check));
    }
}
