//! Records the commit the binary is built from, so that `id name`, `--version` and the log name
//! the exact build. Without git (a source archive, or a tree that is not this repository) the
//! version stands alone.

use std::path::{Path, PathBuf};
use std::process::Command;

fn git(dir: &Path, args: &[&str]) -> Option<String> {
    let out = Command::new("git").current_dir(dir).args(args).output().ok()?;
    if !out.status.success() {
        return None;
    }
    let text = String::from_utf8(out.stdout).ok()?.trim().to_string();
    (!text.is_empty()).then_some(text)
}

/// A path git prints, relative to `dir` unless absolute.
fn git_path(dir: &Path, name: &str) -> Option<PathBuf> {
    git(dir, &["rev-parse", "--git-path", name]).map(|p| dir.join(p))
}

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    let manifest = PathBuf::from(std::env::var_os("CARGO_MANIFEST_DIR").expect("cargo sets it"));
    let Some(workspace) = manifest.parent().and_then(|p| p.canonicalize().ok()) else { return };
    // Only this repository's own history counts: an archive unpacked inside some other
    // repository must not take that one's commit.
    let toplevel =
        git(&manifest, &["rev-parse", "--show-toplevel"]).and_then(|t| Path::new(&t).canonicalize().ok());
    if toplevel.as_deref() != Some(workspace.as_path()) {
        return;
    }
    let Some(commit) = git(&manifest, &["rev-parse", "--short", "HEAD"]) else { return };
    println!("cargo:rustc-env=LAZULI_COMMIT={commit}");

    // Build again when HEAD moves: a checkout rewrites HEAD, a commit rewrites the branch's ref
    // (a loose file, or after `git gc` a line of packed-refs until the next commit writes the
    // loose file again, hence the directory).
    let mut watched = vec![git_path(&manifest, "HEAD"), git_path(&manifest, "packed-refs")];
    if let Some(branch) = git(&manifest, &["symbolic-ref", "-q", "HEAD"]) {
        let loose = git_path(&manifest, &branch);
        watched.push(match loose {
            Some(file) if file.exists() => Some(file),
            other => other.and_then(|file| file.parent().map(Path::to_path_buf)),
        });
    }
    for path in watched.into_iter().flatten().filter(|p| p.exists()) {
        println!("cargo:rerun-if-changed={}", path.display());
    }
}
