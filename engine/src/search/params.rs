//! Every search constant, named, in one place. A later tuning build exposes these for SPSA.

// Aspiration windows.
pub const ASPIRATION_MIN_DEPTH: i32 = 5;
pub const ASPIRATION_DELTA: i32 = 15;

// Razoring: drop into quiescence when far below alpha.
pub const RAZOR_MAX_DEPTH: i32 = 3;
pub const RAZOR_MARGIN: i32 = 250;

// Reverse futility pruning.
pub const RFP_MAX_DEPTH: i32 = 8;
pub const RFP_MARGIN: i32 = 75;
pub const RFP_IMPROVING_MARGIN: i32 = 60;

// Null move pruning.
pub const NMP_MIN_DEPTH: i32 = 3;
pub const NMP_BASE_REDUCTION: i32 = 3;
pub const NMP_DEPTH_DIVISOR: i32 = 3;
pub const NMP_EVAL_DIVISOR: i32 = 200;
pub const NMP_MAX_EVAL_REDUCTION: i32 = 3;
/// From this depth on, a null-move cutoff is verified by a reduced search without null moves.
pub const NMP_VERIFY_DEPTH: i32 = 14;

// ProbCut.
pub const PROBCUT_MIN_DEPTH: i32 = 5;
pub const PROBCUT_MARGIN: i32 = 200;
pub const PROBCUT_REDUCTION: i32 = 4;

// Internal iterative reduction.
pub const IIR_MIN_DEPTH: i32 = 4;

// Late move pruning: quiet moves beyond `(LMP_BASE + depth^2) / (2 - improving)` are skipped.
pub const LMP_MAX_DEPTH: i32 = 8;
pub const LMP_BASE: i32 = 3;

// Futility pruning of quiet moves.
pub const FUTILITY_MAX_DEPTH: i32 = 8;
pub const FUTILITY_BASE: i32 = 90;
pub const FUTILITY_PER_DEPTH: i32 = 100;

// History pruning of quiet moves.
pub const HISTORY_PRUNING_MAX_DEPTH: i32 = 3;
pub const HISTORY_PRUNING_MARGIN: i32 = 2500;

// SEE pruning in the main search.
pub const SEE_PRUNING_MAX_DEPTH: i32 = 8;
pub const SEE_QUIET_MARGIN: i32 = 60;
pub const SEE_NOISY_MARGIN: i32 = 30;

// Quiescence search.
pub const QS_DELTA_MARGIN: i32 = 150;
pub const QS_SEE_THRESHOLD: i32 = 0;

// Singular extensions.
pub const SE_MIN_DEPTH: i32 = 7;
pub const SE_TT_DEPTH_MARGIN: i32 = 3;
pub const SE_BETA_SCALE: i32 = 1;
pub const SE_DOUBLE_MARGIN: i32 = 20;
pub const SE_MAX_DOUBLE_EXTENSIONS: i32 = 6;

// Late move reductions: `LMR_BASE + ln(depth) * ln(moves) / LMR_DIVISOR` (in hundredths).
pub const LMR_MIN_DEPTH: i32 = 3;
pub const LMR_QUIET_BASE: f64 = 0.80;
pub const LMR_QUIET_DIVISOR: f64 = 2.30;
pub const LMR_NOISY_BASE: f64 = -0.10;
pub const LMR_NOISY_DIVISOR: f64 = 3.00;
pub const LMR_HISTORY_DIVISOR: i32 = 8192;

// Histories.
pub const HISTORY_MAX: i32 = 16_384;
pub const HISTORY_BONUS_SCALE: i32 = 170;
pub const HISTORY_BONUS_OFFSET: i32 = 100;
pub const HISTORY_BONUS_MAX: i32 = 1_600;

// Good/bad capture split in the move picker (SEE threshold).
pub const PICKER_GOOD_NOISY_SEE: i32 = -20;
