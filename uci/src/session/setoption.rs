//! `setoption`: each option's effect, and the options that wait for the search to end.

use super::{HashIo, Session};
use crate::options::{self, OptionValue};
use engine::tb::Tablebases;
use smp::TbSettings;
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

impl Session {
    pub(super) fn set_option(&mut self, name: &str, value: Option<&str>) {
        let (name, value) = match options::validate(name, value) {
            Ok(v) => v,
            Err(e) => {
                self.info(&e);
                return;
            }
        };
        if let Some(gate) = &mut self.gate {
            if let Err(reason) = gate.check_option(name, &value) {
                self.info(&format!("{name}: {reason}"));
                return;
            }
        }
        match (name, value) {
            ("Hash", OptionValue::Spin(mb)) => {
                self.pending.hash = Some(mb as usize);
                self.apply_pending_if_idle();
            }
            ("Threads", OptionValue::Spin(n)) => {
                self.pending.threads = Some(n as usize);
                self.apply_pending_if_idle();
            }
            ("MultiPV", OptionValue::Spin(n)) => self.multipv = n as usize,
            ("Move Overhead", OptionValue::Spin(ms)) => self.move_overhead = Duration::from_millis(ms as u64),
            ("Contempt", OptionValue::Spin(cp)) => self.contempt = cp as i32,
            ("UCI_Chess960", OptionValue::Check(on)) => self.chess960 = on,
            ("UCI_ShowWDL", OptionValue::Check(on)) => self.show_wdl = on,
            ("UCI_AnalyseMode", OptionValue::Check(on)) => self.analyse_mode = on,
            ("UCI_LimitStrength", OptionValue::Check(on)) => self.limit_strength = on,
            ("UCI_Elo", OptionValue::Spin(elo)) => self.elo = elo,
            ("Strength Seed", OptionValue::Spin(seed)) => self.strength_seed = seed as u64,
            ("UCI_Opponent", _) => {}
            ("Ponder", OptionValue::Check(on)) => self.ponder = on,
            ("Clear Hash", _) => {
                // In order with Save Hash and Load Hash, after a running search like them.
                if self.is_searching() {
                    self.info("Clear Hash: the table is cleared when the search ends");
                }
                self.pending.hash_io.push(HashIo::Clear);
                self.apply_pending_if_idle();
            }
            ("Hash File", OptionValue::String(path)) => {
                self.hash_file = path;
                self.load_kept_hash_file();
            }
            ("Never Clear Hash", OptionValue::Check(on)) => self.never_clear_hash = on,
            ("Keep Hash File", OptionValue::Check(on)) => {
                let was = std::mem::replace(&mut self.keep_hash_file, on);
                if on && !was {
                    self.load_kept_hash_file();
                }
            }
            ("Save Hash" | "Load Hash", _) => {
                if self.hash_file.is_empty() {
                    self.info(&format!("{name}: set the option Hash File to a path first"));
                    return;
                }
                let path = self.hash_file.clone();
                self.pending.hash_io.push(if name == "Save Hash" {
                    HashIo::Save(path)
                } else {
                    HashIo::Load(path)
                });
                self.apply_pending_if_idle();
            }
            ("SyzygyPath", OptionValue::String(path)) => {
                self.syzygy.path = path;
                self.syzygy.tables = None;
                self.pending.syzygy = true;
                self.apply_pending_if_idle();
            }
            ("SyzygyProbeDepth", OptionValue::Spin(d)) => {
                self.syzygy.probe_depth = d as i32;
                self.pending.syzygy = true;
                self.apply_pending_if_idle();
            }
            ("SyzygyProbeLimit", OptionValue::Spin(n)) => {
                self.syzygy.probe_limit = n as usize;
                self.pending.syzygy = true;
                self.apply_pending_if_idle();
            }
            ("Syzygy50MoveRule", OptionValue::Check(on)) => {
                self.syzygy.rule50 = on;
                self.pending.syzygy = true;
                self.apply_pending_if_idle();
            }
            ("SMP Helpers", OptionValue::String(policy)) => match policy.parse() {
                Ok(policy) => {
                    self.pending.policy = Some(policy);
                    self.apply_pending_if_idle();
                }
                Err(e) => self.info(&e),
            },
            ("SMP Vote", OptionValue::String(mode)) => match mode.parse() {
                Ok(mode) => self.pool.set_vote_mode(mode),
                Err(e) => self.info(&e),
            },
            ("EvalFile", OptionValue::String(path)) => self.set_eval_file(&path),
            ("Use NNUE", OptionValue::Check(on)) => self.set_use_nnue(on),
            ("Debug Log File", OptionValue::String(path)) => {
                if let Err(e) = crate::log::set_file(&path) {
                    self.info(&e);
                }
            }
            (name, OptionValue::Spin(value)) if options::is_tunable(name) => {
                if self.is_searching() {
                    self.info(&format!("{name} ignored during a search"));
                } else {
                    self.pool.wait();
                    engine::search::params::set_tunable(name, value as i32);
                }
            }
            _ => self.info(&format!("option '{name}' cannot take that value")),
        }
    }

    /// Load the tables named by `SyzygyPath` (once) and hand them with the probe settings to
    /// the pool; every unreadable directory is reported.
    fn apply_syzygy(&mut self) {
        if self.syzygy.tables.is_none() && !self.syzygy.path.is_empty() {
            let (tables, warnings) = Tablebases::open(&self.syzygy.path);
            let mut message = warnings.join("; ");
            if tables.files() > 0 {
                if !message.is_empty() {
                    message.push_str("; ");
                }
                message.push_str(&format!(
                    "found {} Syzygy table files (up to {} pieces)",
                    tables.files(),
                    tables.max_pieces()
                ));
                self.syzygy.tables = Some(Arc::new(tables));
            } else if message.is_empty() {
                message = "SyzygyPath: no Syzygy table files found".to_string();
            }
            self.info(&message);
        }
        let settings = self.syzygy.tables.as_ref().map(|tables| TbSettings {
            tables: Arc::clone(tables),
            probe_depth: self.syzygy.probe_depth,
            probe_limit: self.syzygy.probe_limit,
            rule50: self.syzygy.rule50,
        });
        self.pool.set_tablebases(settings);
    }

    pub(super) fn apply_pending_if_idle(&mut self) {
        if self.is_searching() {
            return;
        }
        if let Some(policy) = self.pending.policy.take() {
            self.pool.set_policy(policy);
        }
        if std::mem::take(&mut self.pending.syzygy) {
            self.apply_syzygy();
        }
        if let Some(threads) = self.pending.threads.take() {
            if let Err(e) = self.pool.set_threads(threads) {
                self.info(&e);
            }
        }
        if let Some(mb) = self.pending.hash.take() {
            if let Err(e) = self.pool.set_hash(mb) {
                self.info(&e);
            }
        }
        self.apply_pending_network();
        self.apply_hash_io(false);
        let (threads, mb) = (self.pool.threads(), self.pool.hash_mb());
        if let Some(gate) = &mut self.gate {
            gate.applied(threads, mb);
        }
    }

    /// With `Keep Hash File` on and a `Hash File` that exists, loads it (as `Load Hash` does,
    /// after a running search). A file that does not exist yet is the one the first save makes.
    fn load_kept_hash_file(&mut self) {
        if self.keep_hash_file && !self.hash_file.is_empty() && Path::new(&self.hash_file).exists() {
            self.pending.hash_io.push(HashIo::Load(self.hash_file.clone()));
            self.apply_pending_if_idle();
        }
    }

    /// With `Keep Hash File` on, saves the table to `Hash File` (at `ucinewgame` and `quit`,
    /// with no search running).
    pub(super) fn save_kept_hash_file(&mut self) {
        if self.keep_hash_file && !self.hash_file.is_empty() {
            let done = self.pool.save_hash(Path::new(&self.hash_file));
            match done {
                Ok(message) | Err(message) => self.info(&message),
            }
        }
    }

    /// Carries out the pending `Clear Hash`, `Save Hash` and (unless `saves_only`, at `quit`)
    /// `Load Hash` presses, in order.
    pub(super) fn apply_hash_io(&mut self, saves_only: bool) {
        for io in std::mem::take(&mut self.pending.hash_io) {
            if saves_only && matches!(io, HashIo::Load(_)) {
                continue;
            }
            let done = match &io {
                HashIo::Clear => {
                    self.pool.clear_hash();
                    continue;
                }
                HashIo::Save(path) => self.pool.save_hash(Path::new(path)),
                HashIo::Load(path) => {
                    let max_mb = self
                        .gate
                        .as_ref()
                        .map_or(crate::options::MAX_HASH_MB as usize, |g| g.max_loaded_hash_mb());
                    self.pool.load_hash(Path::new(path), max_mb)
                }
            };
            match done {
                Ok(message) | Err(message) => self.info(&message),
            }
        }
    }
}
