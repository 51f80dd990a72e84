//! The name of this build, as `id name`, `lazuli --version` and the log give it: the version of
//! the workspace and, when built from a git checkout, the commit (so a PGN or a log names the
//! exact build).

/// The short commit hash the binary was built from, if it was built from git.
pub const COMMIT: Option<&str> = option_env!("LAZULI_COMMIT");

/// `Lazuli 0.2.0 (abc1234)`, or `Lazuli 0.2.0` without git.
pub fn name() -> String {
    let version = env!("CARGO_PKG_VERSION");
    match COMMIT {
        Some(commit) => format!("Lazuli {version} ({commit})"),
        None => format!("Lazuli {version}"),
    }
}
