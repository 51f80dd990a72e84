//! The command line of `lazuli-tune`: `--help` prints the usage and succeeds; a wrong argument
//! is refused with status 2 and the usage.

use std::process::Command;

fn tune(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_lazuli-tune")).args(args).output().expect("run lazuli-tune")
}

#[test]
fn help_prints_the_usage_and_exits_0() {
    for flag in ["--help", "-h"] {
        let out = tune(&[flag]);
        assert_eq!(out.status.code(), Some(0), "{out:?}");
        assert!(String::from_utf8_lossy(&out.stdout).starts_with("usage: lazuli-tune"), "{out:?}");
    }
}

#[test]
fn a_wrong_argument_exits_2_with_the_usage() {
    for args in [&["--frobnicate", "1"][..], &["--rounds", "x"], &[]] {
        let out = tune(args);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {out:?}");
        assert!(String::from_utf8_lossy(&out.stderr).contains("usage: lazuli-tune"), "{args:?}: {out:?}");
    }
}
