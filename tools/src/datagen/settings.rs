//! What makes a run's games what they are, kept beside the data as `<output>.settings`, so that
//! a run resumed with other settings is refused instead of mixing two kinds of games in one
//! file. The number of games and of threads may change between sittings: neither changes a game.

use super::DatagenConfig;
use std::io::{Error, ErrorKind};
use std::path::{Path, PathBuf};

pub fn settings_path(output: &Path) -> PathBuf {
    PathBuf::from(format!("{}.settings", output.display()))
}

/// One `name value` line per setting that decides the games.
pub fn describe(config: &DatagenConfig) -> String {
    let evaluation = if config.evaluation.is_empty() { "unnamed" } else { &config.evaluation };
    let syzygy = if config.syzygy.is_empty() { "none" } else { &config.syzygy };
    [
        ("seed", config.seed.to_string()),
        ("nodes", config.soft_nodes.to_string()),
        ("hard-nodes", config.hard_nodes.to_string()),
        ("random-plies", config.random_plies.to_string()),
        ("dfrc-percent", config.dfrc_percent.to_string()),
        ("balance", config.start_balance.to_string()),
        ("decided-score", config.decided_score.to_string()),
        ("evaluation", evaluation.to_string()),
        ("syzygy", syzygy.to_string()),
    ]
    .iter()
    .map(|(name, value)| format!("{name} {value}\n"))
    .collect()
}

/// With finished games in the file, the recorded settings must be this run's: an error names
/// each that differs, and a settings file that cannot be read is an error too (a damaged one is
/// read as it is and its garbage reported). Otherwise (a new run, or one begun before settings
/// were recorded) this run's settings are recorded.
pub fn check_or_record(config: &DatagenConfig, games_done: usize) -> std::io::Result<()> {
    let path = settings_path(&config.output);
    let wanted = describe(config);
    if games_done > 0 {
        let recorded = match std::fs::read(&path) {
            Ok(bytes) => Some(String::from_utf8_lossy(&bytes).into_owned()),
            Err(e) if e.kind() == ErrorKind::NotFound => None,
            Err(e) => {
                let message = format!("cannot read {}: {e}; the run is not resumed", path.display());
                return Err(Error::new(ErrorKind::InvalidInput, message));
            }
        };
        if let Some(recorded) = recorded {
            let differences = differences(&recorded, &wanted);
            if differences.is_empty() {
                return Ok(());
            }
            return Err(Error::new(
                ErrorKind::InvalidInput,
                format!(
                    "{} holds {games_done} games made with other settings ({}); resume with the same \
                     settings or write to another file",
                    config.output.display(),
                    differences.join(", ")
                ),
            ));
        }
    }
    std::fs::write(&path, wanted)
}

/// `name: recorded, now this run's` for each line that differs.
fn differences(recorded: &str, wanted: &str) -> Vec<String> {
    let split = |line: &str| {
        let line = line.trim();
        line.split_once(' ')
            .map_or((line.to_string(), String::new()), |(n, v)| (n.to_string(), v.to_string()))
    };
    let recorded: Vec<(String, String)> =
        recorded.lines().filter(|l| !l.trim().is_empty()).map(split).collect();
    let wanted: Vec<(String, String)> = wanted.lines().map(split).collect();
    let mut differences = Vec::new();
    for (name, value) in &wanted {
        match recorded.iter().find(|(n, _)| n == name) {
            Some((_, old)) if old == value => {}
            Some((_, old)) => differences.push(format!("{name} {old}, now {value}")),
            None => differences.push(format!("{name} not recorded, now {value}")),
        }
    }
    for (name, old) in &recorded {
        if !wanted.iter().any(|(n, _)| n == name) {
            differences.push(format!("{name} {old}, unknown to this version"));
        }
    }
    differences
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn differences_name_each_changed_missing_and_unknown_setting() {
        let config = DatagenConfig { seed: 5, evaluation: "network 00ab".into(), ..DatagenConfig::default() };
        let same = describe(&config);
        assert!(differences(&same, &same).is_empty());
        let other = describe(&DatagenConfig { seed: 6, ..config.clone() });
        assert_eq!(differences(&other, &same), vec!["seed 6, now 5".to_string()]);
        let cut: String =
            same.lines().filter(|l| !l.starts_with("evaluation")).map(|l| format!("{l}\n")).collect();
        assert_eq!(differences(&cut, &same), vec!["evaluation not recorded, now network 00ab".to_string()]);
        let extra = format!("{same}colour blue\n");
        assert_eq!(differences(&extra, &same), vec!["colour blue, unknown to this version".to_string()]);
        assert_eq!(differences("garbage\n\u{0}\n", &same).len(), 11);
    }
}
