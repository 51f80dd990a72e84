//! The UCI options, each declared once: name, type, default and range, what setting it reaches
//! beyond the session's own searches (`Reach`: the server's gate and the cluster read it), and
//! the typed value a `setoption` produces.

use crate::command::shorten;
use crate::session::strength::{MAX_ELO, MIN_ELO};
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
    pub reach: Reach,
}

/// What setting an option reaches beyond the session's own searches.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Reach {
    /// It reads or writes the machine's files: a server's client needs the operator's leave
    /// (`--allow-files`).
    pub files: bool,
    /// It acts on the whole process, every session of a server alike: a client may set it only
    /// on a server that serves one connection.
    pub process: bool,
    /// It writes files: in a cluster, the leader alone acts on it (the other ranks never see it).
    pub leader_only: bool,
}

impl OptionSpec {
    /// Reads or writes files (`Reach::files`).
    const fn files(mut self) -> OptionSpec {
        self.reach.files = true;
        self
    }

    /// Acts on the whole process (`Reach::process`).
    const fn process_wide(mut self) -> OptionSpec {
        self.reach.process = true;
        self
    }

    /// Only a cluster's leader acts on it (`Reach::leader_only`).
    const fn leader_only(mut self) -> OptionSpec {
        self.reach.leader_only = true;
        self
    }
}

/// Nothing beyond the session's own searches.
const LOCAL: Reach = Reach { files: false, process: false, leader_only: false };

/// What an option is to the session, which gives each its effect in one arm of an exhaustive
/// `match`: an option declared in `OPTIONS` without an effect does not compile.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OptionId {
    Hash,
    Threads,
    NumaPolicy,
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
    SyzygyProbeDepth,
    SyzygyProbeLimit,
    Syzygy50MoveRule,
    SmpHelpers,
    SmpVote,
    /// A tuning build's search constant (`engine/src/search/params.rs`), by its name.
    Tunable,
}

const fn spin(id: OptionId, name: &'static str, default: i64, min: i64, max: i64) -> OptionSpec {
    OptionSpec { id, name, kind: OptionKind::Spin { default, min, max }, reach: LOCAL }
}

const fn check(id: OptionId, name: &'static str, default: bool) -> OptionSpec {
    OptionSpec { id, name, kind: OptionKind::Check { default }, reach: LOCAL }
}

const fn button(id: OptionId, name: &'static str) -> OptionSpec {
    OptionSpec { id, name, kind: OptionKind::Button, reach: LOCAL }
}

/// A string option, empty by default.
const fn text(id: OptionId, name: &'static str) -> OptionSpec {
    OptionSpec { id, name, kind: OptionKind::String { default: "" }, reach: LOCAL }
}

const fn combo(
    id: OptionId,
    name: &'static str,
    default: &'static str,
    vars: &'static [&'static str],
) -> OptionSpec {
    OptionSpec { id, name, kind: OptionKind::Combo { default, vars }, reach: LOCAL }
}

/// The options of every build, in the order of the `uci` answer (a `spsa` build adds its
/// tunables after them: `all_options`).
pub const OPTIONS: &[OptionSpec] = &[
    spin(OptionId::Hash, "Hash", 16, 1, MAX_HASH_MB),
    spin(OptionId::Threads, "Threads", 1, 1, MAX_THREADS),
    // Where the threads run on a machine with several NUMA nodes: auto, system, hardware, none,
    // or CPU lists separated by colons, one per node (`0-15:16-31`).
    OptionSpec {
        id: OptionId::NumaPolicy,
        name: "NumaPolicy",
        kind: OptionKind::String { default: "auto" },
        reach: LOCAL,
    },
    spin(OptionId::MultiPv, "MultiPV", 1, 1, 256),
    spin(OptionId::MoveOverhead, "Move Overhead", 10, 0, 5000),
    spin(OptionId::Contempt, "Contempt", 0, -100, 100),
    check(OptionId::Ponder, "Ponder", false),
    check(OptionId::Chess960, "UCI_Chess960", false),
    button(OptionId::ClearHash, "Clear Hash"),
    text(OptionId::HashFile, "Hash File").files(),
    button(OptionId::SaveHash, "Save Hash").files().leader_only(),
    button(OptionId::LoadHash, "Load Hash").files(),
    check(OptionId::NeverClearHash, "Never Clear Hash", false),
    // For GUIs without buttons: `Hash File` is loaded when set (if it exists) and saved at
    // `ucinewgame` and `quit`.
    check(OptionId::KeepHashFile, "Keep Hash File", false).files().leader_only(),
    check(OptionId::ShowWdl, "UCI_ShowWDL", false),
    // On: every search without a clock, `movetime` or `ponder` is an analysis, which resumes
    // from the table.
    check(OptionId::AnalyseMode, "UCI_AnalyseMode", false),
    check(OptionId::LimitStrength, "UCI_LimitStrength", false),
    spin(OptionId::Elo, "UCI_Elo", MIN_ELO, MIN_ELO, MAX_ELO),
    // The draws of a limited strength's choices: the same seed plays the same moves.
    spin(OptionId::StrengthSeed, "Strength Seed", 0, 0, 2_147_483_647),
    // What the GUI says about the opponent; accepted and not used.
    text(OptionId::Opponent, "UCI_Opponent"),
    // Every session's lines go to the one log.
    text(OptionId::DebugLogFile, "Debug Log File").files().process_wide().leader_only(),
    text(OptionId::SyzygyPath, "SyzygyPath").files(),
    // A network file; empty: the embedded network.
    text(OptionId::EvalFile, "EvalFile").files(),
    spin(OptionId::SyzygyProbeDepth, "SyzygyProbeDepth", 1, 1, 100),
    spin(OptionId::SyzygyProbeLimit, "SyzygyProbeLimit", 7, 0, 7),
    check(OptionId::Syzygy50MoveRule, "Syzygy50MoveRule", true),
    combo(
        OptionId::SmpHelpers,
        "SMP Helpers",
        "identical",
        <smp::HelperPolicy as smp::VariantNames>::VARIANTS,
    ),
    combo(OptionId::SmpVote, "SMP Vote", "all", <smp::VoteMode as smp::VariantNames>::VARIANTS),
];

/// Other engines' names for options of `OPTIONS`, which `setoption` accepts as well (they are
/// not listed in the `uci` answer): GUIs of the ChessBase family know Houdini's names for the
/// table-file buttons.
pub const ALIASES: &[(&str, &str)] =
    &[("Save Hash to File", "Save Hash"), ("Load Hash from File", "Load Hash")];

/// Every option: `OPTIONS`, then in a build with the `spsa` feature one spin option per tunable
/// search constant (named as in `engine/src/search/params.rs`).
pub fn all_options() -> impl Iterator<Item = OptionSpec> {
    let fixed = OPTIONS.iter().map(|o| OptionSpec { id: o.id, name: o.name, kind: o.kind, reach: o.reach });
    let tunables: &[Tunable] = if cfg!(feature = "spsa") { TUNABLES } else { &[] };
    fixed.chain(tunables.iter().map(tunable_option))
}

/// The option of a tuning build's search constant.
pub fn tunable_option(t: &Tunable) -> OptionSpec {
    OptionSpec {
        id: OptionId::Tunable,
        name: t.name,
        kind: OptionKind::Spin { default: t.default as i64, min: t.min as i64, max: t.max as i64 },
        reach: LOCAL,
    }
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

/// The `option ...` lines of the `uci` answer, a spin option's maximum lowered to `cap(name)`
/// where that is lower (a server's limits).
pub fn uci_lines(cap: impl Fn(&str) -> Option<i64>) -> Vec<String> {
    all_options()
        .map(|o| match o.kind {
            OptionKind::Spin { default, min, max } => {
                let max = cap(o.name).map_or(max, |cap| cap.min(max));
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
    pub reach: Reach,
}

/// The option named `name` (case-insensitive, as the UCI specification says), or by one of its
/// `ALIASES`.
pub fn find(name: &str) -> Option<OptionSpec> {
    let name = ALIASES.iter().find(|(alias, _)| alias.eq_ignore_ascii_case(name)).map_or(name, |(_, to)| to);
    all_options().find(|o| o.name.eq_ignore_ascii_case(name))
}

/// Find the option (`find`) and check the value against its type and range.
pub fn validate(name: &str, value: Option<&str>) -> Result<Setting, String> {
    let spec = find(name).ok_or_else(|| format!("unknown option '{}'", shorten(name)))?;
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
    Ok(Setting { id: spec.id, name: spec.name, value, reach: spec.reach })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn setting(name: &str, value: OptionValue) -> Setting {
        let spec = all_options().find(|o| o.name == name).expect("an option");
        Setting { id: spec.id, name: spec.name, value, reach: spec.reach }
    }

    #[test]
    fn houdini_names_reach_the_table_file_buttons() {
        assert_eq!(validate("Save Hash to File", None), Ok(setting("Save Hash", OptionValue::Button)));
        assert_eq!(validate("load hash from file", None), Ok(setting("Load Hash", OptionValue::Button)));
        for (alias, to) in ALIASES {
            assert!(OPTIONS.iter().any(|o| o.name == *to), "{alias} names no option");
            assert!(!uci_lines(|_| None).iter().any(|l| l.contains(alias)), "{alias} is listed");
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
        assert_eq!(uci_lines(|_| None).len(), all_options().count());
        assert_eq!(validate("RFP_MARGIN", Some("75")).is_ok(), cfg!(feature = "spsa"));
        assert!(uci_lines(|_| None)
            .contains(&"option name Debug Log File type string default <empty>".to_string()));
    }
}
