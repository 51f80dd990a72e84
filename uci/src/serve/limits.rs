//! What one connection may ask of the server: `Threads` and `Hash` within a cap per
//! connection and a total shared by all of them, and no option that reaches the server's
//! files or every other connection unless the operator allows it.

use crate::options::{OptionId, OptionValue, Setting};
use crate::session::Gate;
use parking_lot::Mutex;
use std::sync::Arc;

/// The operator's limits.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Rules {
    pub max_threads: usize,
    pub max_hash_mb: usize,
    pub total_threads: usize,
    pub total_hash_mb: usize,
    pub allow_files: bool,
    /// With a single connection, options whose effect is process-wide harm no one else.
    pub single_connection: bool,
    pub max_perft_depth: u32,
    pub max_bench_depth: i32,
}

/// Threads and megabytes held by all connections together.
pub struct Budget {
    rules: Rules,
    used: Mutex<(usize, usize)>,
}

/// What a session starts with (`Session::new`'s pool).
pub const START_THREADS: usize = 1;
pub const START_HASH_MB: usize = 16;

impl Budget {
    pub fn new(rules: Rules) -> Arc<Budget> {
        Arc::new(Budget { rules, used: Mutex::new((0, 0)) })
    }

    /// The gate of a new connection, holding what a session starts with, or `None` when the
    /// budget cannot give even that.
    pub fn admit(self: &Arc<Self>) -> Option<RemoteGate> {
        let mut used = self.used.lock();
        if used.0 + START_THREADS > self.rules.total_threads
            || used.1 + START_HASH_MB > self.rules.total_hash_mb
        {
            return None;
        }
        used.0 += START_THREADS;
        used.1 += START_HASH_MB;
        let start = [START_THREADS, START_HASH_MB];
        Some(RemoteGate { budget: Arc::clone(self), applied: start, wanted: start })
    }

    /// Threads and megabytes held now.
    #[cfg(test)]
    pub fn used(&self) -> (usize, usize) {
        *self.used.lock()
    }
}

/// One connection's share of the budget and its view of the rules. For each resource it holds
/// the larger of what the pool has (`applied`) and what the client last asked for: a value
/// lowered during a search is given back only once the pool has shrunk.
pub struct RemoteGate {
    budget: Arc<Budget>,
    /// Threads, then MB: what the pool has, and what was last accepted.
    applied: [usize; 2],
    wanted: [usize; 2],
}

impl RemoteGate {
    fn held(&self, which: usize) -> usize {
        self.applied[which].max(self.wanted[which])
    }

    /// Moves this connection's holding of one resource (0 threads, 1 MB) so that it covers
    /// `wanted`.
    fn take(&mut self, which: usize, wanted: usize) -> Result<(), String> {
        let rules = &self.budget.rules;
        let (cap, total, unit) = if which == 0 {
            (rules.max_threads, rules.total_threads, "threads")
        } else {
            (rules.max_hash_mb, rules.total_hash_mb, "MB")
        };
        if wanted > cap {
            return Err(format!("at most {cap} {unit} a connection on this server"));
        }
        let mut used = self.budget.used.lock();
        let in_use = if which == 0 { &mut used.0 } else { &mut used.1 };
        let others = *in_use - self.held(which);
        let holding = self.applied[which].max(wanted);
        if others + holding > total {
            return Err(format!("the server has {} {unit} free for this connection", total - others));
        }
        *in_use = others + holding;
        self.wanted[which] = wanted;
        Ok(())
    }
}

impl Gate for RemoteGate {
    fn check_option(&mut self, setting: &Setting) -> Result<(), String> {
        let rules = &self.budget.rules;
        if setting.reach.files && !rules.allow_files {
            return Err(
                "refused: it reaches the server's files (the server allows it with --allow-files)".into()
            );
        }
        if setting.reach.process && !rules.single_connection {
            return Err("refused: it reaches every connection (allowed with --max-connections 1)".into());
        }
        match (setting.id, &setting.value) {
            (OptionId::Threads, OptionValue::Spin(n)) => self.take(0, *n as usize),
            (OptionId::Hash, OptionValue::Spin(mb)) => self.take(1, *mb as usize),
            _ => Ok(()),
        }
    }

    fn spin_max(&self, name: &str) -> Option<i64> {
        match name {
            "Threads" => Some(self.budget.rules.max_threads as i64),
            "Hash" => Some(self.budget.rules.max_hash_mb as i64),
            _ => None,
        }
    }

    fn max_perft_depth(&self) -> u32 {
        self.budget.rules.max_perft_depth
    }

    fn max_bench_depth(&self) -> i32 {
        self.budget.rules.max_bench_depth
    }

    fn max_loaded_hash_mb(&self) -> usize {
        let rules = &self.budget.rules;
        let others = self.budget.used.lock().1 - self.held(1);
        rules.max_hash_mb.min(rules.total_hash_mb.saturating_sub(others))
    }

    fn applied(&mut self, threads: usize, hash_mb: usize) {
        let mut used = self.budget.used.lock();
        let before = (self.held(0), self.held(1));
        self.applied = [threads, hash_mb];
        // What the pool has now is what the client asked for (or a loaded table's size).
        self.wanted = [threads, hash_mb];
        used.0 = used.0 - before.0 + threads;
        used.1 = used.1 - before.1 + hash_mb;
    }
}

impl Drop for RemoteGate {
    fn drop(&mut self) {
        let (threads, mb) = (self.held(0), self.held(1));
        let mut used = self.budget.used.lock();
        used.0 -= threads;
        used.1 -= mb;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::options::{all_options, tunable_option, OptionSpec};

    /// A `setoption` of the option named `name` (a tuning build's search constant too).
    fn setting(name: &str, value: OptionValue) -> Setting {
        let spec = all_options()
            .find(|o| o.name == name)
            .or_else(|| engine::search::params::TUNABLES.iter().find(|t| t.name == name).map(tunable_option))
            .unwrap_or_else(|| panic!("{name} is no option"));
        let OptionSpec { id, name, reach, .. } = spec;
        Setting { id, name, value, reach }
    }

    fn rules() -> Rules {
        Rules {
            max_threads: 4,
            max_hash_mb: 256,
            total_threads: 6,
            total_hash_mb: 300,
            allow_files: false,
            single_connection: false,
            max_perft_depth: 6,
            max_bench_depth: 14,
        }
    }

    #[test]
    fn threads_and_hash_are_capped_per_connection_and_in_total() {
        let budget = Budget::new(rules());
        let mut a = budget.admit().unwrap();
        let mut b = budget.admit().unwrap();
        assert_eq!(budget.used(), (2, 32));
        assert!(a.check_option(&setting("Threads", OptionValue::Spin(5))).unwrap_err().contains("at most 4"));
        a.check_option(&setting("Threads", OptionValue::Spin(4))).unwrap();
        a.applied(4, 16);
        assert_eq!(budget.used(), (5, 32));
        // b holds 1; 2 more would make 7 > 6.
        assert!(b
            .check_option(&setting("Threads", OptionValue::Spin(3)))
            .unwrap_err()
            .contains("2 threads free"));
        b.check_option(&setting("Threads", OptionValue::Spin(2))).unwrap();
        b.applied(2, 16);
        a.check_option(&setting("Hash", OptionValue::Spin(256))).unwrap();
        a.applied(4, 256);
        assert_eq!(budget.used(), (6, 272));
        assert!(b.check_option(&setting("Hash", OptionValue::Spin(100))).unwrap_err().contains("44 MB free"));
        // Lowering gives back only once the pool has shrunk: a search may still run on them.
        a.check_option(&setting("Threads", OptionValue::Spin(1))).unwrap();
        assert_eq!(budget.used(), (6, 272));
        assert!(b.check_option(&setting("Threads", OptionValue::Spin(3))).is_err());
        a.applied(1, 256);
        assert_eq!(budget.used(), (3, 272));
        b.check_option(&setting("Threads", OptionValue::Spin(3))).unwrap();
        b.applied(3, 16);
        // A loaded table may fill what is left of the total, within the cap.
        assert_eq!(b.max_loaded_hash_mb(), 300 - 256);
        b.applied(3, 40);
        assert_eq!(budget.used(), (4, 296));
        b.check_option(&setting("Threads", OptionValue::Spin(1))).unwrap();
        assert_eq!(budget.used(), (4, 296));
        b.applied(1, 40);
        assert_eq!(budget.used(), (2, 296));
        drop(a);
        assert_eq!(budget.used(), (1, 40));
        drop(b);
        assert_eq!(budget.used(), (0, 0));
    }

    #[test]
    fn a_connection_is_admitted_only_while_the_budget_holds_its_start() {
        let budget = Budget::new(Rules { total_threads: 2, ..rules() });
        let (a, b) = (budget.admit(), budget.admit());
        assert!(a.is_some() && b.is_some());
        assert!(budget.admit().is_none());
        drop(a);
        assert!(budget.admit().is_some());
    }

    #[test]
    fn files_and_process_wide_options_need_the_operators_leave() {
        let files: Vec<&str> = all_options().filter(|o| o.reach.files).map(|o| o.name).collect();
        assert_eq!(
            files,
            [
                "Hash File",
                "Save Hash",
                "Load Hash",
                "Keep Hash File",
                "Debug Log File",
                "SyzygyPath",
                "EvalFile"
            ]
        );
        let budget = Budget::new(rules());
        let mut gate = budget.admit().unwrap();
        for name in &files {
            let refused = gate.check_option(&setting(name, OptionValue::String("/etc/passwd".into())));
            assert!(refused.unwrap_err().contains("server's files"), "{name}");
        }
        // Files allowed, the debug log still reaches every connection; a network is a
        // connection's own.
        let open_files = Budget::new(Rules { allow_files: true, ..rules() });
        let mut files_gate = open_files.admit().unwrap();
        let refused = files_gate.check_option(&setting("Debug Log File", OptionValue::String(String::new())));
        assert!(refused.unwrap_err().contains("reaches every connection"));
        assert!(files_gate.check_option(&setting("EvalFile", OptionValue::String("/n.lznn".into()))).is_ok());
        // A tuning build's search constants are each connection's own engine's.
        let tunable = engine::search::params::TUNABLES[0];
        let own = gate.check_option(&setting(tunable.name, OptionValue::Spin(i64::from(tunable.default))));
        assert!(own.is_ok(), "{own:?}");
        assert!(gate.check_option(&setting("MultiPV", OptionValue::Spin(3))).is_ok());
        let open = Budget::new(Rules { allow_files: true, single_connection: true, ..rules() });
        let mut gate = open.admit().unwrap();
        for name in &files {
            assert!(gate.check_option(&setting(name, OptionValue::String("x".into()))).is_ok(), "{name}");
        }
        assert_eq!(
            (gate.spin_max("Threads"), gate.spin_max("Hash"), gate.spin_max("MultiPV")),
            (Some(4), Some(256), None)
        );
    }
}
