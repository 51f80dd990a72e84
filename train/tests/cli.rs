//! The binary end to end: exit codes, a short training run on a text file, and the files it
//! writes read back by `info`, `eval` and `quantise`.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn run(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_lazuli-train")).args(args).output().expect("the binary runs")
}

fn text(output: &Output) -> String {
    format!("{}{}", String::from_utf8_lossy(&output.stdout), String::from_utf8_lossy(&output.stderr))
}

fn scratch_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("lazuli-train-cli-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

#[test]
fn exit_codes() {
    let help = run(&["--help"]);
    assert_eq!(help.status.code(), Some(0));
    assert!(text(&help).contains("usage:"));
    for bad in [
        &[][..],
        &["train", "--data"],
        &["train", "--data", "x", "--out-dir", "y", "--wdl", "7"],
        &["frobnicate"],
    ] {
        let out = run(bad);
        assert_eq!(out.status.code(), Some(2), "{bad:?}: {}", text(&out));
        assert!(String::from_utf8_lossy(&out.stderr).contains("usage:"));
    }
    let dir = scratch_dir("codes");
    let missing = dir.join("missing.lznn");
    let out = run(&["info", missing.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    assert!(text(&out).contains("missing.lznn"));
    let junk = dir.join("junk.txt");
    std::fs::write(&junk, "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1 | 12 | 2.0\n").unwrap();
    let out = run(&["train", "--data", junk.to_str().unwrap(), "--out-dir", dir.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    assert!(text(&out).contains("line 1: bad result"), "{}", text(&out));
    std::fs::remove_dir_all(&dir).ok();
}

#[cfg(target_os = "linux")]
#[test]
fn a_failed_write_is_an_error_with_a_message() {
    let full = std::fs::OpenOptions::new().write(true).open("/dev/full").expect("/dev/full");
    let out = Command::new(env!("CARGO_BIN_EXE_lazuli-train")).arg("--help").stdout(full).output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("cannot write to standard output"), "{stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
}

fn write_data(path: &Path) {
    // Kings and a few pieces; the score is the material balance from White's side.
    let placements = [
        ("4k3/8/8/8/8/8/8/3QK3", 900),
        ("3qk3/8/8/8/8/8/8/4K3", -900),
        ("4k3/8/8/8/8/8/8/R3K3", 500),
        ("r3k3/8/8/8/8/8/8/4K3", -500),
        ("4k3/pp6/8/8/8/8/8/4K3", -200),
        ("4k3/8/8/8/8/8/PP6/4K3", 200),
        ("4k3/8/8/8/8/8/8/4K3", 0),
    ];
    let mut lines = String::new();
    for i in 0..700 {
        let (board, score) = placements[i % placements.len()];
        let side = if i % 2 == 0 { "w" } else { "b" };
        let result = if score > 0 {
            "1.0"
        } else if score < 0 {
            "0.0"
        } else {
            "0.5"
        };
        lines.push_str(&format!("{board} {side} - - 0 1 | {score} | {result}\n"));
    }
    std::fs::write(path, lines).unwrap();
}

#[test]
fn train_quantise_info_and_eval() {
    let dir = scratch_dir("train");
    let data = dir.join("data.txt");
    write_data(&data);
    let out_dir = dir.join("nets");
    let (data_s, out_s) = (data.to_str().unwrap(), out_dir.to_str().unwrap());
    let common = ["--data", data_s, "--out-dir", out_s, "--hidden", "16", "--batch", "64", "--lr", "0.01"];
    let first = run(&[&["train", "--epochs", "2", "--threads", "1"][..], &common].concat());
    assert_eq!(first.status.code(), Some(0), "{}", text(&first));
    let log = text(&first);
    assert!(log.contains("epoch   2/2") && log.contains("pos/s") && log.contains("eta"), "{log}");
    for file in ["epoch-1.ckpt", "epoch-1.lznn", "epoch-2.ckpt", "epoch-2.lznn", "final.lznn"] {
        assert!(out_dir.join(file).exists(), "{file}");
    }

    let resumed = run(&[
        &[
            "train",
            "--epochs",
            "3",
            "--threads",
            "1",
            "--resume",
            out_dir.join("epoch-2.ckpt").to_str().unwrap(),
        ][..],
        &common,
    ]
    .concat());
    assert_eq!(resumed.status.code(), Some(0), "{}", text(&resumed));
    assert!(text(&resumed).contains("resuming") && text(&resumed).contains("epoch   3/3"));
    let wrong = run(&[
        &["train", "--resume", out_dir.join("epoch-2.ckpt").to_str().unwrap(), "--hidden", "8"][..],
        &common[..4],
    ]
    .concat());
    assert_eq!(wrong.status.code(), Some(1), "{}", text(&wrong));

    // Output buckets: a version 2 file, and a resume must keep the bucket count.
    let bucket_dir = dir.join("buckets");
    let bucketed = [&common[..2], &["--out-dir", bucket_dir.to_str().unwrap()], &common[4..]].concat();
    let four = run(
        &[&["train", "--epochs", "1", "--threads", "1", "--output-buckets", "4"][..], &bucketed].concat()
    );
    assert_eq!(four.status.code(), Some(0), "{}", text(&four));
    let info = text(&run(&["info", bucket_dir.join("final.lznn").to_str().unwrap()]));
    assert!(info.contains("version 2") && info.contains("output buckets 4"), "{info}");
    let checkpoint = bucket_dir.join("epoch-1.ckpt");
    let resume = |buckets: &str| {
        let resume_args =
            ["train", "--epochs", "2", "--resume", checkpoint.to_str().unwrap(), "--output-buckets", buckets];
        run(&[&resume_args[..], &bucketed].concat())
    };
    let other = resume("2");
    assert_eq!(other.status.code(), Some(1), "{}", text(&other));
    assert!(text(&other).contains("4 output buckets"), "{}", text(&other));
    assert_eq!(resume("4").status.code(), Some(0));

    // A one-bucket network written as version 2 (the bucket count inserted after the version 1
    // fields) is valid, and `info` reports the file as it is.
    let v1 = std::fs::read(out_dir.join("final.lznn")).unwrap();
    let mut v2 = v1[..32].to_vec();
    v2[4..8].copy_from_slice(&2u32.to_le_bytes());
    v2.extend_from_slice(&1u32.to_le_bytes());
    v2.extend_from_slice(&v1[32..]);
    let v2_path = dir.join("one-bucket-v2.lznn");
    std::fs::write(&v2_path, &v2).unwrap();
    let info = text(&run(&["info", v2_path.to_str().unwrap()]));
    assert!(info.contains("version 2") && info.contains(&format!("{} bytes", v1.len() + 4)), "{info}");

    let net = out_dir.join("final.lznn");
    let info = run(&["info", net.to_str().unwrap()]);
    assert_eq!(info.status.code(), Some(0));
    assert!(text(&info).contains("hidden 16"), "{}", text(&info));

    // quantise with the run's data corrects the output biases on the same positions as train.
    let again = dir.join("again.lznn");
    let ckpt = out_dir.join("epoch-3.ckpt");
    let quantised = run(&["quantise", ckpt.to_str().unwrap(), again.to_str().unwrap(), "--data", data_s]);
    assert_eq!(quantised.status.code(), Some(0), "{}", text(&quantised));
    assert!(text(&quantised).contains("output biases corrected"), "{}", text(&quantised));
    assert_eq!(std::fs::read(&again).unwrap(), std::fs::read(&net).unwrap());
    let rounded = run(&["quantise", ckpt.to_str().unwrap(), again.to_str().unwrap()]);
    assert!(text(&rounded).contains("output biases rounded"), "{}", text(&rounded));

    // The network has learnt that a queen up is good for its owner, whoever is to move.
    let cp = |fen: &str| -> i32 {
        let out = run(&["eval", net.to_str().unwrap(), fen]);
        assert_eq!(out.status.code(), Some(0), "{}", text(&out));
        text(&out).split_whitespace().next().unwrap().parse().unwrap()
    };
    assert!(cp("4k3/8/8/8/8/8/8/3QK3 w - - 0 1") > 100);
    assert!(cp("4k3/8/8/8/8/8/8/3QK3 b - - 0 1") < -100);
    let bad_fen = run(&["eval", net.to_str().unwrap(), "not a fen"]);
    assert_eq!(bad_fen.status.code(), Some(1));

    let mut damaged = std::fs::read(&net).unwrap();
    damaged[100] ^= 1;
    std::fs::write(&net, damaged).unwrap();
    let out = run(&["info", net.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    assert!(text(&out).contains("hash"), "{}", text(&out));
    std::fs::remove_dir_all(&dir).ok();
}

/// The loss figure of each `validate` line, by network file name.
fn validation_losses(output: &Output) -> Vec<(String, String)> {
    text(output)
        .lines()
        .filter(|l| l.contains(": hash ") && l.contains(" loss "))
        .map(|l| {
            let name = l.split(": hash ").next().unwrap().rsplit('/').next().unwrap().to_string();
            let loss = l.split(" loss ").nth(1).unwrap().split(',').next().unwrap().to_string();
            (name, loss)
        })
        .collect()
}

#[test]
fn validate_scores_networks_and_init_starts_from_one() {
    let dir = scratch_dir("validate");
    let data = dir.join("data.txt");
    write_data(&data);
    let (data_s, one) = (data.to_str().unwrap(), dir.join("one"));
    let trained = run(&[
        "train",
        "--data",
        data_s,
        "--out-dir",
        one.to_str().unwrap(),
        "--hidden",
        "16",
        "--batch",
        "64",
        "--lr",
        "0.01",
        "--epochs",
        "2",
        "--threads",
        "1",
    ]);
    assert_eq!(trained.status.code(), Some(0), "{}", text(&trained));
    // The integer loss that train reports for its final network is validate's figure.
    let reported =
        text(&trained).split("integer ").nth(1).unwrap().split_whitespace().next().unwrap().to_string();
    let (first, last) = (one.join("epoch-1.lznn"), one.join("final.lznn"));
    let scored = run(&["validate", first.to_str().unwrap(), last.to_str().unwrap(), "--data", data_s]);
    assert_eq!(scored.status.code(), Some(0), "{}", text(&scored));
    let losses = validation_losses(&scored);
    assert_eq!(losses.len(), 2, "{}", text(&scored));
    assert_eq!(losses[1], ("final.lznn".to_string(), reported));
    assert!(text(&scored).contains("|eval - score| mean"));

    // A bucketed run started from the one-bucket network, at a rate too small to move a
    // weight by one quantum, evaluates exactly as the network it started from once rounded
    // (the correction of each bucket's bias would move it by its own remainder).
    let four = dir.join("four");
    let started = run(&[
        "train",
        "--data",
        data_s,
        "--out-dir",
        four.to_str().unwrap(),
        "--init",
        last.to_str().unwrap(),
        "--output-buckets",
        "4",
        "--lr",
        "0.000000001",
        "--epochs",
        "1",
        "--threads",
        "1",
    ]);
    assert_eq!(started.status.code(), Some(0), "{}", text(&started));
    assert!(text(&started).contains("starting from"), "{}", text(&started));
    let info = text(&run(&["info", four.join("final.lznn").to_str().unwrap()]));
    assert!(info.contains("output buckets 4") && info.contains("hidden 16"), "{info}");
    let four_rounded = four.join("rounded.lznn");
    let rounded =
        run(&["quantise", four.join("epoch-1.ckpt").to_str().unwrap(), four_rounded.to_str().unwrap()]);
    assert_eq!(rounded.status.code(), Some(0), "{}", text(&rounded));
    let both = run(&["validate", last.to_str().unwrap(), four_rounded.to_str().unwrap(), "--data", data_s]);
    let losses = validation_losses(&both);
    assert_eq!(losses.len(), 2, "{}", text(&both));
    assert_eq!(losses[0].1, losses[1].1);

    // A four-bucket network cannot start a two-bucket run; a missing network or data file is
    // an error that names it, before any work.
    let refused = run(&[
        "train",
        "--data",
        data_s,
        "--out-dir",
        dir.join("two").to_str().unwrap(),
        "--init",
        four.join("final.lznn").to_str().unwrap(),
        "--output-buckets",
        "2",
    ]);
    assert_eq!(refused.status.code(), Some(1), "{}", text(&refused));
    assert!(text(&refused).contains("4 output buckets"), "{}", text(&refused));
    let missing = run(&["validate", dir.join("nope.lznn").to_str().unwrap(), "--data", data_s]);
    assert_eq!(missing.status.code(), Some(1));
    assert!(text(&missing).contains("nope.lznn"), "{}", text(&missing));
    let no_data = run(&["validate", last.to_str().unwrap(), "--data", dir.join("nope.vf").to_str().unwrap()]);
    assert_eq!(no_data.status.code(), Some(1));
    assert!(text(&no_data).contains("nope.vf"), "{}", text(&no_data));
    std::fs::remove_dir_all(&dir).ok();
}
