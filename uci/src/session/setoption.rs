//! `setoption`: each option's effect, and the options that wait for the search to end.

use super::{table_words, Change, Session};
use crate::options::{self, OptionId, Setting};
use engine::search::TbSettings;
use engine::tb::Tablebases;
use engine::tt::TranspositionTable;
use smp::ThreadsRefusal;
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

impl Session {
    pub(super) fn set_option(&mut self, name: &str, value: Option<&str>) {
        let setting = match options::validate(name, value) {
            Ok(setting) => setting,
            Err(e) => {
                self.info(&e);
                return;
            }
        };
        if let Some(gate) = &mut self.gate {
            if let Err(reason) = gate.check_option(&setting) {
                self.info(&format!("{}: {reason}", setting.name));
                return;
            }
        }
        let Setting { id, name, value, .. } = setting;
        match id {
            OptionId::Hash => self.defer(Change::Hash(value.spin() as usize)),
            OptionId::Threads => self.defer(Change::Threads(value.spin() as usize)),
            // Empty (a GUI's `<empty>`): the default.
            OptionId::NumaPolicy => match numa_policy(&value.text()) {
                Ok(policy) => self.defer(Change::Numa(policy)),
                Err(e) => self.info(&format!("{e}; kept {}", self.engine.numa_policy())),
            },
            OptionId::MultiPv => self.options.multipv = value.spin() as usize,
            OptionId::MoveOverhead => self.options.move_overhead = Duration::from_millis(value.spin() as u64),
            OptionId::Contempt => self.options.contempt = value.spin() as i32,
            OptionId::Chess960 => self.options.chess960 = value.check(),
            OptionId::ShowWdl => self.options.show_wdl = value.check(),
            OptionId::AnalyseMode => self.options.analyse_mode = value.check(),
            OptionId::LimitStrength => self.options.limit_strength = value.check(),
            OptionId::Elo => self.options.elo = value.spin(),
            OptionId::StrengthSeed => self.options.strength_seed = value.spin() as u64,
            OptionId::Opponent => {}
            OptionId::Ponder => self.options.ponder = value.check(),
            OptionId::ClearHash => {
                // In order with Save Hash and Load Hash, after a running search like them.
                if self.is_searching() {
                    self.info("Clear Hash: the table is cleared when the search ends");
                }
                self.defer(Change::ClearHash);
            }
            OptionId::HashFile => {
                self.options.hash_file = value.text();
                self.load_kept_hash_file();
            }
            OptionId::NeverClearHash => self.options.never_clear_hash = value.check(),
            OptionId::KeepHashFile => {
                let on = value.check();
                let was = std::mem::replace(&mut self.options.keep_hash_file, on);
                if on && !was {
                    self.load_kept_hash_file();
                }
            }
            OptionId::SaveHash | OptionId::LoadHash => {
                if self.options.hash_file.is_empty() {
                    self.info(&format!("{name}: set the option Hash File to a path first"));
                    return;
                }
                let path = self.options.hash_file.clone();
                self.defer(if id == OptionId::SaveHash {
                    Change::SaveHash(path)
                } else {
                    Change::LoadHash(path)
                });
            }
            OptionId::SyzygyPath => {
                self.options.syzygy.path = value.text();
                self.options.syzygy.tables = None;
                self.defer(Change::Syzygy);
            }
            OptionId::SyzygyProbeDepth => {
                self.options.syzygy.probe_depth = value.spin() as i32;
                self.defer(Change::Syzygy);
            }
            OptionId::SyzygyProbeLimit => {
                self.options.syzygy.probe_limit = value.spin() as usize;
                self.defer(Change::Syzygy);
            }
            OptionId::Syzygy50MoveRule => {
                self.options.syzygy.rule50 = value.check();
                self.defer(Change::Syzygy);
            }
            // A combo's value is one of the names the option table lists, which these parse.
            OptionId::SmpHelpers => {
                if let Ok(policy) = value.text().parse() {
                    self.engine.set_helper_policy(policy);
                }
            }
            OptionId::SmpVote => {
                if let Ok(mode) = value.text().parse() {
                    self.engine.set_vote_mode(mode);
                }
            }
            OptionId::EvalFile => self.set_eval_file(&value.text()),
            OptionId::DebugLogFile => {
                if let Err(e) = crate::log::set_file(&value.text()) {
                    self.info(&e);
                }
            }
            OptionId::Tunable => {
                if self.is_searching() {
                    self.info(&format!("{name} ignored during a search"));
                } else {
                    self.engine.set_search_constant(name, value.spin() as i32);
                    // This thread's time plan and `eval` read them too, as the searches do.
                    self.engine.search_constants().install();
                }
            }
        }
    }

    /// Search with `tables`, already opened from `path` and shared with other sessions (a
    /// server's), as if `SyzygyPath` had named `path`.
    pub fn share_tablebases(&mut self, path: &str, tables: Arc<Tablebases>) {
        self.options.syzygy.path = path.to_string();
        self.options.syzygy.tables = Some(tables);
        self.defer(Change::Syzygy);
    }

    /// Load the tables named by `SyzygyPath` (once) and hand them with the probe settings to
    /// the pool; every unreadable directory is reported.
    fn apply_syzygy(&mut self) {
        if self.options.syzygy.tables.is_none() && !self.options.syzygy.path.is_empty() {
            let (tables, mut said) = Tablebases::open(&self.options.syzygy.path);
            if tables.files() > 0 {
                said.push(format!(
                    "found {} Syzygy table files (up to {} pieces)",
                    tables.files(),
                    tables.max_pieces()
                ));
                self.options.syzygy.tables = Some(Arc::new(tables));
            } else if said.is_empty() {
                said.push("SyzygyPath: no Syzygy table files found".to_string());
            }
            self.info(&said.join("; "));
        }
        let settings = self.options.syzygy.tables.as_ref().map(|tables| TbSettings {
            tables: Arc::clone(tables),
            probe_depth: self.options.syzygy.probe_depth,
            probe_limit: self.options.syzygy.probe_limit,
            rule50: self.options.syzygy.rule50,
        });
        self.engine.set_tablebases(settings);
    }

    /// Queue `change` behind the changes already waiting (it replaces the last one if that is
    /// an earlier value of the same setting), and apply them if no search runs.
    pub(super) fn defer(&mut self, change: Change) {
        if self.pending.last().is_some_and(|last| change.replaces(last)) {
            self.pending.pop();
        }
        self.pending.push(change);
        self.apply_pending_if_idle();
    }

    /// Applies the changes that waited for the search to end, in the order they were sent.
    pub(super) fn apply_pending_if_idle(&mut self) {
        if self.is_searching() {
            return;
        }
        for change in std::mem::take(&mut self.pending) {
            self.apply(change);
        }
        let (threads, mb) = (self.engine.pool().threads(), self.engine.hash_mb());
        if let Some(gate) = &mut self.gate {
            gate.applied(threads, mb);
        }
    }

    /// At `quit`, after the search: what still writes what the user asked for (a network switch
    /// and the table's clears and saves, in order); the rest would be undone at once.
    pub(super) fn apply_pending_at_quit(&mut self) {
        for change in std::mem::take(&mut self.pending) {
            if matches!(change, Change::Network(_) | Change::ClearHash | Change::SaveHash(_)) {
                self.apply(change);
            }
        }
    }

    fn apply(&mut self, change: Change) {
        match change {
            Change::Syzygy => self.apply_syzygy(),
            Change::Threads(threads) => {
                let before = self.engine.pool().threads();
                match self.engine.set_threads(threads) {
                    Ok(()) if self.engine.pool().threads() != before => {
                        self.info(&self.engine.pool().placement().describe())
                    }
                    Ok(()) => {}
                    Err(ThreadsRefusal::AddressSpace) => self.info(&format!(
                        "not enough memory (address space) for {threads} threads; kept {before}"
                    )),
                    Err(_) => {
                        self.info(&format!("the system refused to start {threads} threads; kept {before}"))
                    }
                }
            }
            Change::Numa(policy) => match self.engine.set_numa_policy(policy) {
                Ok(()) => self.info(&self.engine.pool().placement().describe()),
                Err(ThreadsRefusal::Policy(why)) => {
                    self.info(&format!("{why}; kept {}", self.engine.numa_policy()))
                }
                Err(_) => {
                    self.info(&format!("the system refused a thread; kept {}", self.engine.numa_policy()))
                }
            },
            Change::Hash(mb) => {
                if let Err(refusal) = self.engine.set_hash(mb) {
                    self.info(&table_words::refused(&refusal, None, self.engine.hash_mb()));
                }
            }
            Change::Network(network) => {
                if self.engine.set_network(network) {
                    // A kept table that waited for this network.
                    self.load_kept_hash_file();
                }
            }
            Change::ClearHash => self.engine.clear_hash(),
            Change::SaveHash(path) => self.save_hash(Path::new(&path)),
            Change::LoadHash(path) => {
                let max_mb = self
                    .gate
                    .as_ref()
                    .map_or(crate::options::MAX_HASH_MB as usize, |g| g.max_loaded_hash_mb());
                let path = Path::new(&path);
                let said = match self.engine.load_hash(path, max_mb) {
                    Ok(loaded) => table_words::loaded(&loaded, path),
                    Err(refusal) => table_words::refused(&refusal, Some(path), self.engine.hash_mb()),
                };
                self.info(&said);
            }
        }
    }

    /// With `Keep Hash File` on and a `Hash File` that exists, loads it (as `Load Hash` does,
    /// after a running search). A file that does not exist yet is the one the first save makes.
    /// A file saved under another network than `EvalFile` names now waits for the `EvalFile`
    /// that names its network: a GUI sets the options in an order of its own.
    fn load_kept_hash_file(&mut self) {
        if !self.options.keep_hash_file
            || self.options.hash_file.is_empty()
            || !Path::new(&self.options.hash_file).exists()
        {
            return;
        }
        let named = engine::search::evaluation_fingerprint(self.options.network_choice.network.hash());
        match TranspositionTable::saved_evaluation(Path::new(&self.options.hash_file)) {
            Some(saved) if saved != named => self.info(&format!(
                "Keep Hash File: '{}' was saved under another evaluation ({saved:016x}); it is loaded once EvalFile names its network",
                self.options.hash_file
            )),
            _ => self.defer(Change::LoadHash(self.options.hash_file.clone())),
        }
    }

    /// With `Keep Hash File` on, saves the table to `Hash File` (at `ucinewgame` and `quit`,
    /// with no search running).
    pub(super) fn save_kept_hash_file(&mut self) {
        if self.options.keep_hash_file && !self.options.hash_file.is_empty() {
            let path = self.options.hash_file.clone();
            self.save_hash(Path::new(&path));
        }
    }

    /// Saves the table to `path`, and says so or why not.
    fn save_hash(&mut self, path: &Path) {
        let said = match self.engine.save_hash(path) {
            Ok(saved) => table_words::saved(&saved, path),
            Err(refusal) => table_words::refused(&refusal, None, self.engine.hash_mb()),
        };
        self.info(&said);
    }
}

/// `NumaPolicy`'s value; empty (a GUI's `<empty>`) is the default.
fn numa_policy(text: &str) -> Result<smp::numa::NumaPolicy, String> {
    if text.trim().is_empty() {
        Ok(smp::numa::NumaPolicy::default())
    } else {
        smp::numa::NumaPolicy::parse(text)
    }
}
