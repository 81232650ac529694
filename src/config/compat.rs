//! A config's raw table before it is read: `KEY=VALUE` overrides put over it, and older
//! spellings moved to where they live now, so that the configs of older runs still load.

use super::check::KeyError;
use super::rules::PLY_CAP;

/// Sections renamed: (older name, name now).
const RENAMED_SECTIONS: [(&str, &str); 1] = [("evaluator", "batching")];

/// The `[search]` keys that used to live in `[selfplay]`: (older key, key in `[search]`).
const MOVED_TO_SEARCH: [(&str, &str); 7] = [
    ("search", "kind"),
    ("full_visits", "visits"),
    ("gumbel_considered", "considered"),
    ("c_puct", "c_puct"),
    ("fpu_reduction", "fpu_reduction"),
    ("dirichlet_alpha", "dirichlet_alpha"),
    ("dirichlet_fraction", "dirichlet_fraction"),
];

/// Moves every older spelling in `table` to its place now; a setting given under both
/// spellings is an error that names both.
pub fn read_older_spellings(table: &mut toml::Table) -> Result<(), KeyError> {
    for (old, new) in RENAMED_SECTIONS {
        let Some(section) = table.remove(old) else {
            continue;
        };
        let toml::Value::Table(section) = section else {
            return Err(KeyError::new(old, "must be a section"));
        };
        for (key, value) in section {
            move_key(table, (old, &key), (new, &key), value)?;
        }
    }
    older_ply_cap(table);
    for (old, new) in MOVED_TO_SEARCH {
        let taken = table
            .get_mut("selfplay")
            .and_then(toml::Value::as_table_mut)
            .and_then(|selfplay| selfplay.remove(old));
        if let Some(value) = taken {
            move_key(table, ("selfplay", old), ("search", new), value)?;
        }
    }
    Ok(())
}

/// `selfplay.ply_cap = 0` meant the rules' default cap in older configs; 0 means no cap
/// everywhere else (`--ply-cap 0`), and self-play needs one, so it is read as that default
/// ([`PLY_CAP`]).
fn older_ply_cap(table: &mut toml::Table) {
    let cap = table
        .get_mut("selfplay")
        .and_then(toml::Value::as_table_mut)
        .and_then(|selfplay| selfplay.get_mut("ply_cap"));
    if let Some(cap) = cap.filter(|cap| cap.as_integer() == Some(0)) {
        *cap = toml::Value::Integer(i64::from(PLY_CAP));
    }
}

/// Puts `value`, read as `from`, at `to` (section, key), unless `to` is already set.
fn move_key(
    table: &mut toml::Table,
    from: (&str, &str),
    to: (&str, &str),
    value: toml::Value,
) -> Result<(), KeyError> {
    let section = table
        .entry(to.0)
        .or_insert_with(|| toml::Value::Table(toml::Table::new()));
    let toml::Value::Table(section) = section else {
        return Err(KeyError::new(to.0, "must be a section"));
    };
    if section.contains_key(to.1) {
        let message = format!(
            "given twice, also as `{}.{}` (its older name): keep one",
            from.0, from.1
        );
        return Err(KeyError::new(format!("{}.{}", to.0, to.1), message));
    }
    section.insert(to.1.to_string(), value);
    Ok(())
}

/// A dotted key under its current spelling (`evaluator.max_batch` is `batching.max_batch`).
fn current_key(key: &str) -> String {
    let Some((section, rest)) = key.split_once('.') else {
        return key.to_string();
    };
    if let Some((_, new)) = RENAMED_SECTIONS.iter().find(|(old, _)| *old == section) {
        return format!("{new}.{rest}");
    }
    match MOVED_TO_SEARCH.iter().find(|(old, _)| *old == rest) {
        Some((_, new)) if section == "selfplay" => format!("search.{new}"),
        _ => key.to_string(),
    }
}

/// Puts one `KEY=VALUE` override into `table` (an older spelling of the key sets the key
/// now: overrides go over the file after its older spellings are moved).
pub fn set_key(table: &mut toml::Table, item: &str) -> Result<(), KeyError> {
    let Some((key, value)) = item.split_once('=') else {
        return Err(KeyError::new(item, "an override is KEY=VALUE"));
    };
    let key = key.trim();
    let value = toml::from_str::<toml::Table>(&format!("v = {value}"))
        .ok()
        .and_then(|mut t| t.remove("v"))
        .unwrap_or_else(|| toml::Value::String(value.trim().to_string()));
    let current = current_key(key);
    let mut parts: Vec<&str> = current.split('.').collect();
    let last = parts.pop().filter(|k| !k.is_empty());
    let Some(last) = last else {
        return Err(KeyError::new(key, "an override needs a key"));
    };
    let mut at = table;
    for part in parts {
        let entry = at
            .entry(part.to_string())
            .or_insert_with(|| toml::Value::Table(toml::Table::new()));
        at = match entry {
            toml::Value::Table(t) => t,
            _ => return Err(KeyError::new(key, format!("`{part}` is not a section"))),
        };
    }
    at.insert(last.to_string(), value);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn table(text: &str) -> toml::Table {
        toml::from_str(text).unwrap()
    }

    #[test]
    fn older_spellings_move_to_where_they_live_now() {
        let mut t = table(
            "[selfplay]\nfull_visits = 32\nfast_visits = 8\n[evaluator]\nmax_batch = 16\nbf16 = true\n",
        );
        read_older_spellings(&mut t).unwrap();
        let expected = table(
            "[selfplay]\nfast_visits = 8\n[search]\nvisits = 32\n[batching]\nmax_batch = 16\nbf16 = true\n",
        );
        assert_eq!(t, expected);
    }

    #[test]
    fn an_older_ply_cap_of_0_is_the_rules_default() {
        let mut t = table("[selfplay]\nply_cap = 0\n");
        read_older_spellings(&mut t).unwrap();
        let cap = i64::from(PLY_CAP);
        assert_eq!(t["selfplay"]["ply_cap"].as_integer(), Some(cap));
    }

    #[test]
    fn a_setting_under_both_spellings_is_an_error_naming_both() {
        let mut t = table("[search]\nvisits = 32\n[selfplay]\nfull_visits = 16\n");
        let e = read_older_spellings(&mut t).unwrap_err();
        assert_eq!(e.key, "search.visits");
        assert!(e.message.contains("selfplay.full_visits"), "{e}");
        let mut t = table("[batching]\nmax_batch = 8\n[evaluator]\nmax_batch = 16\n");
        let e = read_older_spellings(&mut t).unwrap_err();
        assert_eq!(e.key, "batching.max_batch");
        assert!(e.message.contains("evaluator.max_batch"), "{e}");
    }

    #[test]
    fn an_override_under_an_older_spelling_sets_the_key_now() {
        let mut t = table("[batching]\nmax_batch = 8\n");
        set_key(&mut t, "evaluator.max_batch=16").unwrap();
        set_key(&mut t, "selfplay.full_visits=40").unwrap();
        assert_eq!(
            t,
            table("[batching]\nmax_batch = 16\n[search]\nvisits = 40\n")
        );
        assert_eq!(set_key(&mut t, "visits").unwrap_err().key, "visits");
    }
}
