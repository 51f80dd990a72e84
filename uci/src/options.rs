//! The UCI options: name, type, default and range, and the typed value a `setoption` produces.

use crate::command::shorten;
use engine::search::params::{Tunable, TUNABLES};

pub const MAX_HASH_MB: i64 = 33_554_432;
pub const MAX_THREADS: i64 = 1024;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OptionKind {
    Spin {
        default: i64,
        min: i64,
        max: i64,
    },
    Check {
        default: bool,
    },
    Button,
    /// Free text (a file path); `default` may be empty, which the `uci` answer writes as
    /// `<empty>`, the convention GUIs understand.
    String {
        default: &'static str,
    },
    /// One of a fixed list of words.
    Combo {
        default: &'static str,
        vars: &'static [&'static str],
    },
}

pub struct OptionSpec {
    pub id: OptionId,
    pub name: &'static str,
    pub kind: OptionKind,
}

/// What an option is to the session, which gives each its effect in one arm of an exhaustive
/// `match`: an option declared in `OPTIONS` without an effect does not compile.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OptionId {
    Hash,
    Threads,
    MultiPv,
    MoveOverhead,
    Contempt,
    Ponder,
    Chess960,
    ClearHash,
    HashFile,
    SaveHash,
    LoadHash,
    NeverClearHash,
    KeepHashFile,
    ShowWdl,
    AnalyseMode,
    LimitStrength,
    Elo,
    StrengthSeed,
    Opponent,
    DebugLogFile,
    SyzygyPath,
    EvalFile,
    UseNnue,
    SyzygyProbeDepth,
    SyzygyProbeLimit,
    Syzygy50MoveRule,
    SmpHelpers,
    SmpVote,
    /// A tuning build's search constant (`engine/src/search/params.rs`), by its name.
    Tunable,
}

pub const OPTIONS: &[OptionSpec] = &[
    OptionSpec {
        id: OptionId::Hash,
        name: "Hash",
        kind: OptionKind::Spin { default: 16, min: 1, max: MAX_HASH_MB },
    },
    OptionSpec {
        id: OptionId::Threads,
        name: "Threads",
        kind: OptionKind::Spin { default: 1, min: 1, max: MAX_THREADS },
    },
    OptionSpec {
        id: OptionId::MultiPv,
        name: "MultiPV",
        kind: OptionKind::Spin { default: 1, min: 1, max: 256 },
    },
    OptionSpec {
        id: OptionId::MoveOverhead,
        name: "Move Overhead",
        kind: OptionKind::Spin { default: 10, min: 0, max: 5000 },
    },
    OptionSpec {
        id: OptionId::Contempt,
        name: "Contempt",
        kind: OptionKind::Spin { default: 0, min: -100, max: 100 },
    },
    OptionSpec { id: OptionId::Ponder, name: "Ponder", kind: OptionKind::Check { default: false } },
    OptionSpec { id: OptionId::Chess960, name: "UCI_Chess960", kind: OptionKind::Check { default: false } },
    OptionSpec { id: OptionId::ClearHash, name: "Clear Hash", kind: OptionKind::Button },
    OptionSpec { id: OptionId::HashFile, name: "Hash File", kind: OptionKind::String { default: "" } },
    OptionSpec { id: OptionId::SaveHash, name: "Save Hash", kind: OptionKind::Button },
    OptionSpec { id: OptionId::LoadHash, name: "Load Hash", kind: OptionKind::Button },
    OptionSpec {
        id: OptionId::NeverClearHash,
        name: "Never Clear Hash",
        kind: OptionKind::Check { default: false },
    },
    // For GUIs without buttons: `Hash File` is loaded when set (if it exists) and saved at
    // `ucinewgame` and `quit`.
    OptionSpec {
        id: OptionId::KeepHashFile,
        name: "Keep Hash File",
        kind: OptionKind::Check { default: false },
    },
    OptionSpec { id: OptionId::ShowWdl, name: "UCI_ShowWDL", kind: OptionKind::Check { default: false } },
    // On: every search without a clock, `movetime` or `ponder` is an analysis, which resumes
    // from the table.
    OptionSpec {
        id: OptionId::AnalyseMode,
        name: "UCI_AnalyseMode",
        kind: OptionKind::Check { default: false },
    },
    OptionSpec {
        id: OptionId::LimitStrength,
        name: "UCI_LimitStrength",
        kind: OptionKind::Check { default: false },
    },
    OptionSpec {
        id: OptionId::Elo,
        name: "UCI_Elo",
        kind: OptionKind::Spin {
            default: crate::session::strength::MIN_ELO,
            min: crate::session::strength::MIN_ELO,
            max: crate::session::strength::MAX_ELO,
        },
    },
    // The draws of a limited strength's choices: the same seed plays the same moves.
    OptionSpec {
        id: OptionId::StrengthSeed,
        name: "Strength Seed",
        kind: OptionKind::Spin { default: 0, min: 0, max: 2_147_483_647 },
    },
    // What the GUI says about the opponent; accepted and not used.
    OptionSpec { id: OptionId::Opponent, name: "UCI_Opponent", kind: OptionKind::String { default: "" } },
    OptionSpec {
        id: OptionId::DebugLogFile,
        name: "Debug Log File",
        kind: OptionKind::String { default: "" },
    },
    OptionSpec { id: OptionId::SyzygyPath, name: "SyzygyPath", kind: OptionKind::String { default: "" } },
    // A network file; empty: the default evaluation (the embedded network if there is one).
    OptionSpec { id: OptionId::EvalFile, name: "EvalFile", kind: OptionKind::String { default: "" } },
    // Off: the hand-crafted evaluation, whatever `EvalFile` holds.
    OptionSpec { id: OptionId::UseNnue, name: "Use NNUE", kind: OptionKind::Check { default: true } },
    OptionSpec {
        id: OptionId::SyzygyProbeDepth,
        name: "SyzygyProbeDepth",
        kind: OptionKind::Spin { default: 1, min: 1, max: 100 },
    },
    OptionSpec {
        id: OptionId::SyzygyProbeLimit,
        name: "SyzygyProbeLimit",
        kind: OptionKind::Spin { default: 7, min: 0, max: 7 },
    },
    OptionSpec {
        id: OptionId::Syzygy50MoveRule,
        name: "Syzygy50MoveRule",
        kind: OptionKind::Check { default: true },
    },
    OptionSpec {
        id: OptionId::SmpHelpers,
        name: "SMP Helpers",
        kind: OptionKind::Combo { default: "identical", vars: &smp::HelperPolicy::NAMES },
    },
    OptionSpec {
        id: OptionId::SmpVote,
        name: "SMP Vote",
        kind: OptionKind::Combo { default: "all", vars: &smp::VoteMode::NAMES },
    },
];

/// Other engines' names for options of `OPTIONS`, which `setoption` accepts as well (they are
/// not listed in the `uci` answer): GUIs of the ChessBase family know Houdini's names for the
/// table-file buttons.
pub const ALIASES: &[(&str, &str)] =
    &[("Save Hash to File", "Save Hash"), ("Load Hash from File", "Load Hash")];

/// Every option: `OPTIONS`, then in a build with the `spsa` feature one spin option per tunable
/// search constant (named as in `engine/src/search/params.rs`).
pub fn all_options() -> impl Iterator<Item = OptionSpec> {
    let fixed = OPTIONS.iter().map(|o| OptionSpec { id: o.id, name: o.name, kind: o.kind });
    let tunables: &[Tunable] = if cfg!(feature = "spsa") { TUNABLES } else { &[] };
    fixed.chain(tunables.iter().map(|t| OptionSpec {
        id: OptionId::Tunable,
        name: t.name,
        kind: OptionKind::Spin { default: t.default as i64, min: t.min as i64, max: t.max as i64 },
    }))
}

/// How an empty string value is written in the `uci` answer, and accepted in `setoption`.
pub const EMPTY: &str = "<empty>";

/// A validated option value.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum OptionValue {
    Spin(i64),
    Check(bool),
    Button,
    String(String),
}

impl OptionValue {
    /// A spin option's value (`validate` gives each option a value of its own kind).
    pub fn spin(&self) -> i64 {
        if let OptionValue::Spin(n) = self {
            *n
        } else {
            0
        }
    }

    /// A check option's value.
    pub fn check(&self) -> bool {
        matches!(self, OptionValue::Check(true))
    }

    /// A string or combo option's value.
    pub fn text(self) -> String {
        if let OptionValue::String(text) = self {
            text
        } else {
            String::new()
        }
    }
}

/// The `option ...` lines of the `uci` answer.
pub fn uci_lines() -> Vec<String> {
    all_options()
        .map(|o| match o.kind {
            OptionKind::Spin { default, min, max } => {
                format!("option name {} type spin default {default} min {min} max {max}", o.name)
            }
            OptionKind::Check { default } => format!("option name {} type check default {default}", o.name),
            OptionKind::Button => format!("option name {} type button", o.name),
            OptionKind::Combo { default, vars } => {
                let vars: Vec<String> = vars.iter().map(|v| format!(" var {v}")).collect();
                format!("option name {} type combo default {default}{}", o.name, vars.concat())
            }
            OptionKind::String { default } => {
                let default = if default.is_empty() { EMPTY } else { default };
                format!("option name {} type string default {default}", o.name)
            }
        })
        .collect()
}

/// A `setoption` that names an option and gives it a value of its kind.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Setting {
    pub id: OptionId,
    /// The option's own name, whatever case or alias the GUI used.
    pub name: &'static str,
    pub value: OptionValue,
}

/// Find the option (names are case-insensitive, as the UCI specification says) and check the
/// value against its type and range.
pub fn validate(name: &str, value: Option<&str>) -> Result<Setting, String> {
    let name = ALIASES.iter().find(|(alias, _)| alias.eq_ignore_ascii_case(name)).map_or(name, |(_, to)| to);
    let spec = all_options()
        .find(|o| o.name.eq_ignore_ascii_case(name))
        .ok_or_else(|| format!("unknown option '{}'", shorten(name)))?;
    let value = match (spec.kind, value) {
        (OptionKind::Button, _) => OptionValue::Button,
        (OptionKind::Spin { min, max, .. }, Some(v)) => {
            let n: i64 = v
                .trim()
                .parse()
                .map_err(|_| format!("option '{}' needs an integer, found '{}'", spec.name, shorten(v)))?;
            if !(min..=max).contains(&n) {
                return Err(format!("option '{}' must be between {min} and {max}, found {n}", spec.name));
            }
            OptionValue::Spin(n)
        }
        (OptionKind::Check { .. }, Some(v)) => match v.trim().to_ascii_lowercase().as_str() {
            "true" => OptionValue::Check(true),
            "false" => OptionValue::Check(false),
            _ => return Err(format!("option '{}' needs true or false, found '{}'", spec.name, shorten(v))),
        },
        (OptionKind::String { .. }, Some(v)) => {
            let v = v.trim();
            if v.chars().any(char::is_control) {
                return Err(format!("option '{}' cannot contain control characters", spec.name));
            }
            OptionValue::String(if v == EMPTY { String::new() } else { v.to_string() })
        }
        // Some GUIs clear a string option by sending no value at all.
        (OptionKind::String { .. }, None) => OptionValue::String(String::new()),
        (OptionKind::Combo { vars, .. }, Some(v)) => {
            match vars.iter().find(|x| x.eq_ignore_ascii_case(v.trim())) {
                Some(x) => OptionValue::String(x.to_string()),
                None => {
                    return Err(format!(
                        "option '{}' must be one of {}, found '{}'",
                        spec.name,
                        vars.join(", "),
                        shorten(v)
                    ))
                }
            }
        }
        (_, None) => return Err(format!("option '{}' needs a value", spec.name)),
    };
    Ok(Setting { id: spec.id, name: spec.name, value })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn setting(name: &str, value: OptionValue) -> Setting {
        let spec = all_options().find(|o| o.name == name).expect("an option");
        Setting { id: spec.id, name: spec.name, value }
    }

    #[test]
    fn houdini_names_reach_the_table_file_buttons() {
        assert_eq!(validate("Save Hash to File", None), Ok(setting("Save Hash", OptionValue::Button)));
        assert_eq!(validate("load hash from file", None), Ok(setting("Load Hash", OptionValue::Button)));
        for (alias, to) in ALIASES {
            assert!(OPTIONS.iter().any(|o| o.name == *to), "{alias} names no option");
            assert!(!uci_lines().iter().any(|l| l.contains(alias)), "{alias} is listed");
        }
    }

    #[test]
    fn validates_types_and_ranges() {
        assert_eq!(validate("hash", Some("64")), Ok(setting("Hash", OptionValue::Spin(64))));
        assert!(validate("Hash", Some("0")).is_err());
        assert!(validate("Hash", Some("lots")).is_err());
        assert!(validate("Threads", Some("1025")).is_err());
        assert_eq!(
            validate("UCI_Chess960", Some("TRUE")),
            Ok(setting("UCI_Chess960", OptionValue::Check(true)))
        );
        assert!(validate("Ponder", Some("yes")).is_err());
        assert!(validate("Ponder", None).is_err());
        assert_eq!(validate("Clear Hash", None), Ok(setting("Clear Hash", OptionValue::Button)));
        assert!(validate("Nonsense", Some("1")).is_err());
        assert_eq!(
            validate("debug log file", Some("/tmp/a b.log")),
            Ok(setting("Debug Log File", OptionValue::String("/tmp/a b.log".into())))
        );
        assert_eq!(
            validate("Debug Log File", Some("<empty>")),
            Ok(setting("Debug Log File", OptionValue::String(String::new())))
        );
        assert_eq!(
            validate("Debug Log File", Some("")),
            Ok(setting("Debug Log File", OptionValue::String(String::new())))
        );
        assert_eq!(
            validate("Debug Log File", None),
            Ok(setting("Debug Log File", OptionValue::String(String::new())))
        );
        assert_eq!(uci_lines().len(), all_options().count());
        assert_eq!(validate("RFP_MARGIN", Some("75")).is_ok(), cfg!(feature = "spsa"));
        assert!(uci_lines().contains(&"option name Debug Log File type string default <empty>".to_string()));
    }
}
