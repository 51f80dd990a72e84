//! Options that open files never hang the engine on a path that is not a regular file: a named
//! pipe (which blocks an open until someone writes), a directory, a device without end, a socket.
//! Each is answered with an `info string` at once, `isready` still answers, and the state before
//! stays in use.

#![cfg(unix)]

mod common;

use common::Engine;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

/// A fresh directory holding a named pipe `pipe`, a directory `dir` and a socket `socket`.
fn special_files(name: &str) -> PathBuf {
    let root = std::env::temp_dir().join(format!("lazuli-special-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&root);
    std::fs::create_dir_all(root.join("dir")).unwrap();
    let made = Command::new("mkfifo").arg(root.join("pipe")).status().expect("mkfifo runs");
    assert!(made.success());
    std::os::unix::net::UnixListener::bind(root.join("socket")).expect("a socket file");
    root
}

/// `setoption` then `isready`: `readyok` must come within a second (a hang never answers).
fn set_and_sync(engine: &mut Engine, option: &str, value: &Path) -> Vec<String> {
    engine.send(&format!("setoption name {option} value {}", value.display()));
    let start = Instant::now();
    engine.send("isready");
    let lines = engine.read_until("readyok", Duration::from_secs(3));
    assert!(
        start.elapsed() < Duration::from_secs(1),
        "{option} = {}: readyok took {:?}",
        value.display(),
        start.elapsed()
    );
    lines
}

fn refused(lines: &[String], what: &str) {
    assert!(
        lines.iter().any(|l| l.starts_with("info string") && l.contains("not a regular file")),
        "{what}: no info string saying why: {lines:?}"
    );
}

#[test]
fn eval_file_refuses_pipes_directories_devices_and_sockets() {
    let root = special_files("eval");
    let mut engine = Engine::start();
    engine.send("uci");
    engine.read_until("uciok", Duration::from_secs(5));
    for name in ["pipe", "dir", "socket"] {
        refused(&set_and_sync(&mut engine, "EvalFile", &root.join(name)), name);
    }
    refused(&set_and_sync(&mut engine, "EvalFile", Path::new("/dev/zero")), "/dev/zero");
    // The embedded network still evaluates.
    engine.send("position startpos");
    engine.send("go depth 4");
    let lines = engine.read_until("bestmove", Duration::from_secs(10));
    assert!(lines.last().unwrap().starts_with("bestmove "));
    let _ = std::fs::remove_dir_all(&root);
}

#[test]
fn hash_files_and_logs_refuse_what_is_not_a_regular_file() {
    let root = special_files("hash");
    let mut engine = Engine::start();
    engine.send("uci");
    engine.read_until("uciok", Duration::from_secs(5));
    for name in ["pipe", "dir", "socket"] {
        let path = root.join(name);
        set_and_sync(&mut engine, "Hash File", &path);
        engine.send("setoption name Load Hash");
        engine.send("isready");
        let start = Instant::now();
        let lines = engine.read_until("readyok", Duration::from_secs(3));
        assert!(start.elapsed() < Duration::from_secs(1), "Load Hash from {name} took {:?}", start.elapsed());
        refused(&lines, &format!("Load Hash from {name}"));
        engine.send("setoption name Save Hash");
        let lines = engine.sync();
        assert!(
            lines.iter().any(|l| l.starts_with("info string") && l.contains("cannot save")),
            "Save Hash to {name}: {lines:?}"
        );
        refused(&set_and_sync(&mut engine, "Debug Log File", &path), &format!("log to {name}"));
    }
    set_and_sync(&mut engine, "Hash File", Path::new("/dev/zero"));
    engine.send("setoption name Load Hash");
    refused(&engine.sync(), "Load Hash from /dev/zero");
    // The pipe was never opened for writing behind our back: nothing waits on it.
    engine.send("position startpos");
    engine.send("go depth 3");
    assert!(engine.read_until("bestmove", Duration::from_secs(10)).last().unwrap().starts_with("bestmove "));
    let _ = std::fs::remove_dir_all(&root);
}

#[test]
fn a_table_directory_with_a_pipe_among_its_files_does_not_hang_a_probe() {
    let root = special_files("syzygy");
    // A pipe named as a table, where a probe of KQvK would open it.
    let tables = root.join("dir");
    let made = Command::new("mkfifo").arg(tables.join("KQvK.rtbw")).status().expect("mkfifo runs");
    assert!(made.success());
    let mut engine = Engine::start();
    engine.send("uci");
    engine.read_until("uciok", Duration::from_secs(5));
    for path in [root.join("pipe"), root.join("socket"), PathBuf::from("/dev/zero")] {
        let lines = set_and_sync(&mut engine, "SyzygyPath", &path);
        assert!(lines.iter().any(|l| l.contains("not a readable directory")), "{lines:?}");
    }
    let lines = set_and_sync(&mut engine, "SyzygyPath", &tables);
    assert!(
        lines.iter().any(|l| l.contains("no Syzygy table files found")),
        "the pipe was taken for a table: {lines:?}"
    );
    engine.send("position fen 8/8/8/4k3/8/8/3QK3/8 w - - 0 1");
    engine.send("go depth 6");
    let lines = engine.read_until("bestmove", Duration::from_secs(10));
    assert!(lines.last().unwrap().starts_with("bestmove "), "{lines:?}");
    let _ = std::fs::remove_dir_all(&root);
}

#[test]
fn clear_hash_during_a_search_clears_after_it_in_order_with_save_hash() {
    let root = special_files("clear");
    let file = root.join("table.lzh");
    let mut engine = Engine::start();
    engine.send("uci");
    engine.read_until("uciok", Duration::from_secs(5));
    set_and_sync(&mut engine, "Hash File", &file);
    engine.send("position startpos");
    engine.send("go infinite");
    engine.wait_for_depth(6);
    engine.send("setoption name Clear Hash");
    engine.send("setoption name Save Hash");
    let noted = engine.sync();
    assert!(noted.iter().any(|l| l.contains("cleared when the search ends")), "{noted:?}");
    engine.send("stop");
    engine.read_until("bestmove", Duration::from_secs(5));
    let saved = engine.sync();
    assert!(saved.iter().any(|l| l.contains("saved the hash")), "{saved:?}");
    // The table was cleared, then saved: every entry between the header and the histories (which
    // `Clear Hash` keeps) is empty.
    let bytes = std::fs::read(&file).expect("the saved table");
    // A 56-byte header whose bucket count (at byte 16) sizes the table, 64 bytes a bucket.
    let buckets = u64::from_le_bytes(bytes[16..24].try_into().unwrap()) as usize;
    assert!(buckets > 0 && bytes.len() > 56 + buckets * 64, "{} bytes", bytes.len());
    let table = &bytes[56..56 + buckets * 64];
    assert!(table.iter().all(|&b| b == 0), "the saved table holds entries");
    let _ = std::fs::remove_dir_all(&root);
}
