//! Every search constant, named, in one place.
//!
//! Each tunable constant is declared once below with its default, the range SPSA may explore and
//! the step (OpenBench's `C_end`) it perturbs by. Code reads it through a function of the same
//! name: in a normal build the function returns the constant, so it compiles exactly like one. In
//! a build with the `spsa` feature the values belong to whoever runs searches (an engine holds a
//! `SearchConstants`, which the UCI options of the same names set) and each thread reads the
//! values last installed on it: a search thread installs its engine's before every search, so
//! two engines in one process (a server's sessions) search with their own. `lazuli spsa` prints
//! the list in the format OpenBench's SPSA tuner reads.
//!
//! The LMR table's coefficients are in hundredths; a `spsa` build rebuilds the table before each
//! search so that changed options take effect.

#![allow(non_snake_case)]

/// A tunable search constant as SPSA sees it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Tunable {
    pub name: &'static str,
    pub default: i32,
    pub min: i32,
    pub max: i32,
    pub step: i32,
}

/// The largest magnitude a history entry reaches (not tuned: the picker's scales rely on it).
pub const HISTORY_MAX: i32 = 16_384;

macro_rules! tunables {
    ($( $(#[doc = $doc:literal])* $name:ident = $default:literal, $min:literal..=$max:literal, step $step:literal; )*) => {
        /// Every tunable constant, in declaration order.
        pub const TUNABLES: &[Tunable] = &[
            $( Tunable { name: stringify!($name), default: $default, min: $min, max: $max, step: $step }, )*
        ];

        $(
            $(#[doc = $doc])*
            #[cfg(not(feature = "spsa"))]
            #[inline(always)]
            pub const fn $name() -> i32 {
                $default
            }

            $(#[doc = $doc])*
            #[cfg(feature = "spsa")]
            #[inline(always)]
            pub fn $name() -> i32 {
                installed::VALUES.with(|values| values[installed::Index::$name as usize].get())
            }
        )*

        /// The values this thread's searches read: the defaults until `SearchConstants::install`.
        #[cfg(feature = "spsa")]
        mod installed {
            use std::cell::Cell;

            #[allow(non_camel_case_types, clippy::upper_case_acronyms)]
            pub(super) enum Index { $( $name, )* }

            thread_local! {
                pub(super) static VALUES: [Cell<i32>; super::TUNABLES.len()] =
                    const { [ $( Cell::new($default), )* ] };
            }
        }
    };
}

tunables! {

    // Time management (`time.rs`): factors in percent.
    TM_SOFT_PERCENT = 60, 40..=90, step 5;
    TM_HARD_MULTIPLE = 3, 2..=5, step 1;
    TM_INCREMENT_PERCENT = 75, 50..=100, step 5;
    TM_STABILITY_0 = 180, 130..=230, step 10;
    TM_STABILITY_1 = 135, 100..=170, step 10;
    TM_STABILITY_2 = 110, 80..=140, step 5;
    TM_STABILITY_3 = 95, 70..=120, step 5;
    TM_STABILITY_4 = 85, 60..=110, step 5;
    TM_STABILITY_5 = 75, 50..=100, step 5;
    TM_SCORE_DROP = 30, 10..=80, step 5;
    TM_SCORE_DROP_PERCENT = 125, 100..=160, step 5;
    TM_NODE_SHARE_BASE = 160, 130..=190, step 5;

    // Aspiration windows.
    ASPIRATION_MIN_DEPTH = 5, 2..=8, step 1;
    ASPIRATION_DELTA = 18, 5..=40, step 3;

    // Razoring: drop into quiescence when far below alpha.
    RAZOR_MAX_DEPTH = 1, 1..=5, step 1;
    RAZOR_MARGIN = 261, 100..=500, step 25;

    // Reverse futility pruning.
    RFP_MAX_DEPTH = 7, 4..=12, step 1;
    RFP_MARGIN = 72, 40..=150, step 8;
    RFP_IMPROVING_MARGIN = 52, 20..=120, step 8;

    // Null move pruning.
    NMP_MIN_DEPTH = 4, 2..=5, step 1;
    NMP_BASE_REDUCTION = 3, 2..=5, step 1;
    NMP_DEPTH_DIVISOR = 2, 2..=6, step 1;
    NMP_EVAL_DIVISOR = 195, 100..=400, step 20;
    NMP_MAX_EVAL_REDUCTION = 4, 1..=5, step 1;
    /// From this depth on, a null-move cutoff is verified by a reduced search without null moves.
    NMP_VERIFY_DEPTH = 13, 8..=20, step 1;

    // ProbCut.
    PROBCUT_MIN_DEPTH = 6, 3..=8, step 1;
    PROBCUT_MARGIN = 191, 100..=350, step 15;
    PROBCUT_REDUCTION = 4, 3..=6, step 1;

    // Internal iterative reduction.
    IIR_MIN_DEPTH = 3, 2..=8, step 1;

    // Late move pruning: quiet moves beyond `(LMP_BASE + depth^2) / (2 - improving)` are skipped.
    LMP_MAX_DEPTH = 7, 4..=12, step 1;
    LMP_BASE = 7, 1..=8, step 1;

    // Futility pruning of quiet moves.
    FUTILITY_MAX_DEPTH = 9, 4..=12, step 1;
    FUTILITY_BASE = 91, 30..=200, step 10;
    FUTILITY_PER_DEPTH = 90, 50..=200, step 10;

    // History pruning of quiet moves.
    HISTORY_PRUNING_MAX_DEPTH = 3, 1..=6, step 1;
    HISTORY_PRUNING_MARGIN = 2520, 500..=6000, step 300;

    // SEE pruning in the main search.
    SEE_PRUNING_MAX_DEPTH = 8, 4..=12, step 1;
    SEE_QUIET_MARGIN = 59, 20..=120, step 6;
    SEE_NOISY_MARGIN = 26, 10..=80, step 5;

    // Quiescence search.
    QS_DELTA_MARGIN = 158, 50..=400, step 20;
    QS_SEE_THRESHOLD = 18, -100..=100, step 10;

    // Singular extensions.
    SE_MIN_DEPTH = 5, 4..=10, step 1;
    SE_TT_DEPTH_MARGIN = 1, 1..=5, step 1;
    SE_BETA_SCALE = 1, 1..=4, step 1;
    SE_DOUBLE_MARGIN = 23, 0..=60, step 4;

    // Late move reductions: `LMR_BASE + ln(depth) * ln(moves) / LMR_DIVISOR` (in hundredths).
    LMR_MIN_DEPTH = 3, 2..=5, step 1;
    LMR_QUIET_BASE = 100, 0..=200, step 10;
    LMR_QUIET_DIVISOR = 204, 150..=400, step 15;
    LMR_NOISY_BASE = -8, -100..=100, step 10;
    LMR_NOISY_DIVISOR = 298, 150..=500, step 20;
    LMR_HISTORY_DIVISOR = 7004, 2048..=16384, step 800;

    // Histories.
    HISTORY_BONUS_SCALE = 202, 50..=400, step 20;
    HISTORY_BONUS_OFFSET = 69, 0..=400, step 25;
    HISTORY_BONUS_MAX = 1816, 600..=4000, step 200;

    // Good/bad capture split in the move picker (SEE threshold).
    PICKER_GOOD_NOISY_SEE = -23, -150..=50, step 10;

    // Correction history: the largest correction and the largest single observation (both in
    // centipawns), and the most weight (out of 256) one search's result carries.
    CORRECTION_MAX = 92, 32..=200, step 8;
    CORRECTION_MAX_ERROR = 250, 64..=512, step 32;
    CORRECTION_MAX_WEIGHT = 16, 4..=40, step 2;

    /// The network's evaluation as the search sees it, in percent of its output: the margins
    /// above were first fitted to the centipawns of an evaluation before the network's, and a
    /// network need not share that scale.
    NNUE_OUTPUT_PERCENT = 97, 70..=140, step 4;
}

/// A value for every tunable: what one engine's searches use (see the module's comment).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SearchConstants {
    values: Vec<i32>,
}

impl Default for SearchConstants {
    fn default() -> SearchConstants {
        SearchConstants { values: TUNABLES.iter().map(|t| t.default).collect() }
    }
}

impl SearchConstants {
    /// Sets the tunable `name` (case-insensitive) to `value`; false if there is no such constant
    /// or the value is outside its range. Only a `spsa` build can change anything.
    pub fn set(&mut self, name: &str, value: i32) -> bool {
        let Some(index) = TUNABLES.iter().position(|t| t.name.eq_ignore_ascii_case(name)) else {
            return false;
        };
        let tunable = TUNABLES[index];
        if !(tunable.min..=tunable.max).contains(&value)
            || !(cfg!(feature = "spsa") || value == tunable.default)
        {
            return false;
        }
        self.values[index] = value;
        true
    }

    /// The value of the tunable `name` (case-insensitive).
    pub fn get(&self, name: &str) -> Option<i32> {
        TUNABLES.iter().position(|t| t.name.eq_ignore_ascii_case(name)).map(|index| self.values[index])
    }

    /// Makes these the values that searches on the calling thread read (a `spsa` build; any
    /// other reads its constants).
    pub fn install(&self) {
        #[cfg(feature = "spsa")]
        installed::VALUES.with(|cells| {
            for (cell, value) in cells.iter().zip(&self.values) {
                cell.set(*value);
            }
        });
    }
}

/// The tunables in OpenBench's SPSA input format: `name, int, value, min, max, C_end, R_end`.
pub fn openbench_spsa_input() -> String {
    TUNABLES
        .iter()
        .map(|t| format!("{}, int, {}, {}, {}, {}, 0.002\n", t.name, t.default, t.min, t.max, t.step))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_lie_in_their_ranges_and_names_are_unique() {
        for (i, t) in TUNABLES.iter().enumerate() {
            assert!(t.min <= t.default && t.default <= t.max, "{}", t.name);
            assert!(t.step > 0 && t.step <= t.max - t.min, "{}", t.name);
            assert!(TUNABLES[..i].iter().all(|u| u.name != t.name), "{} twice", t.name);
        }
        assert_eq!(
            RFP_MARGIN(),
            TUNABLES.iter().find(|t| t.name == "RFP_MARGIN").map(|t| t.default).unwrap_or(0)
        );
    }

    #[test]
    fn openbench_lines_have_seven_fields() {
        let text = openbench_spsa_input();
        assert_eq!(text.lines().count(), TUNABLES.len());
        for line in text.lines() {
            let fields: Vec<&str> = line.split(", ").collect();
            assert_eq!(fields.len(), 7, "{line}");
            assert_eq!(fields[1], "int");
            assert!(fields[2..6].iter().all(|f| f.parse::<i32>().is_ok()), "{line}");
        }
    }

    #[test]
    fn out_of_range_or_unknown_values_are_refused() {
        let mut constants = SearchConstants::default();
        assert!(!constants.set("NO_SUCH_CONSTANT", 1));
        assert!(!constants.set("RFP_MARGIN", 10_000));
        assert!(constants.set("rfp_margin", RFP_MARGIN()));
        assert_eq!(constants, SearchConstants::default());
    }

    #[test]
    fn each_thread_reads_the_values_installed_on_it() {
        let tunable = TUNABLES.iter().find(|t| t.name == "RFP_MARGIN").unwrap();
        let changed = if tunable.default < tunable.max { tunable.default + 1 } else { tunable.default - 1 };
        let mut constants = SearchConstants::default();
        assert_eq!(constants.set("RFP_MARGIN", changed), cfg!(feature = "spsa"));
        let seen = std::thread::spawn(move || {
            constants.install();
            RFP_MARGIN()
        })
        .join()
        .unwrap();
        let expected = if cfg!(feature = "spsa") { changed } else { tunable.default };
        assert_eq!(seen, expected);
        assert_eq!(RFP_MARGIN(), tunable.default, "another thread's values are its own");
    }
}
