//! NUMA placement through the binary: the CPUs the kernel lets each search thread run on during
//! a search (`/proc/<pid>/task/*/status`), under each policy, and a parent's affinity honoured
//! or overridden as the policy says.
#![cfg(target_os = "linux")]

mod common;
use common::Engine;
use std::collections::BTreeMap;
use std::process::Command;
use std::time::Duration;

/// The CPUs of this process's affinity mask.
fn allowed_here() -> String {
    let status = std::fs::read_to_string("/proc/self/status").expect("status");
    status.lines().find_map(|l| l.strip_prefix("Cpus_allowed_list:")).expect("field").trim().to_string()
}

/// Each search thread's allowed CPUs while `go infinite` runs, by thread name.
fn workers_during_search(engine: &mut Engine) -> BTreeMap<String, String> {
    engine.send("go infinite");
    engine.wait_for_depth(2);
    let mut workers = BTreeMap::new();
    for task in std::fs::read_dir(format!("/proc/{}/task", engine.child.id())).expect("tasks") {
        let dir = task.expect("task").path();
        let name = std::fs::read_to_string(dir.join("comm")).unwrap_or_default().trim().to_string();
        if name.starts_with("lazuli-worker") {
            let status = std::fs::read_to_string(dir.join("status")).unwrap_or_default();
            let cpus = status.lines().find_map(|l| l.strip_prefix("Cpus_allowed_list:")).unwrap_or("").trim();
            workers.insert(name, cpus.to_string());
        }
    }
    engine.send("stop");
    engine.read_until("bestmove", Duration::from_secs(10));
    workers
}

fn set(engine: &mut Engine, name: &str, value: &str) -> Vec<String> {
    engine.send(&format!("setoption name {name} value {value}"));
    let mut lines = engine.sync();
    assert_eq!(lines.pop().as_deref(), Some("readyok"));
    lines
}

/// Two or more CPUs to place threads on, or the test says why it cannot run here.
fn two_cpus() -> bool {
    let two = allowed_here().split([',', '-']).count() >= 2;
    if !two {
        eprintln!("skipped: this process may use only CPU {}", allowed_here());
    }
    two
}

#[test]
fn a_custom_policy_binds_each_thread_to_its_node_and_none_binds_nothing() {
    if !two_cpus() {
        return;
    }
    let mut engine = Engine::start();
    set(&mut engine, "Threads", "2");
    let reply = set(&mut engine, "NumaPolicy", "0:1");
    assert_eq!(reply, ["info string 2 threads on 2 NUMA nodes: 1 on 0, 1 on 1"]);
    let workers = workers_during_search(&mut engine);
    assert_eq!(workers.get("lazuli-worker-0").map(String::as_str), Some("0"), "{workers:?}");
    assert_eq!(workers.get("lazuli-worker-1").map(String::as_str), Some("1"), "{workers:?}");

    let reply = set(&mut engine, "NumaPolicy", "none");
    assert_eq!(reply, ["info string 2 threads, not bound to NUMA nodes (NumaPolicy none)"]);
    let workers = workers_during_search(&mut engine);
    assert!(workers.values().all(|cpus| *cpus == allowed_here()), "none binds nothing: {workers:?}");

    // Bad values: one line each, the policy kept.
    for bad in ["numa", "0:9999", "0-1:", "3-1"] {
        let reply = set(&mut engine, "NumaPolicy", bad);
        assert_eq!(reply.len(), 1, "{bad}: {reply:?}");
        assert!(
            reply[0].starts_with("info string NumaPolicy") && reply[0].ends_with("kept none"),
            "{bad}: {reply:?}"
        );
    }
}

#[test]
fn a_parents_affinity_is_honoured_by_auto_and_system_and_overridden_by_hardware() {
    if !two_cpus() || Command::new("taskset").arg("-V").output().is_err() {
        eprintln!("skipped: needs two CPUs and taskset");
        return;
    }
    for (policy, want) in [("auto", "0"), ("system", "0"), ("hardware", "node")] {
        let mut command = Command::new("taskset");
        command.args(["-c", "0", env!("CARGO_BIN_EXE_lazuli")]);
        let mut engine = Engine::spawn(command);
        set(&mut engine, "Threads", "2");
        let reply = set(&mut engine, "NumaPolicy", policy);
        let workers = workers_during_search(&mut engine);
        assert_eq!(workers.len(), 2, "{workers:?}");
        for cpus in workers.values() {
            if want == "node" {
                // Bound to the whole node (every CPU of the cpuset), not to the inherited CPU 0.
                assert_ne!(cpus, "0", "{policy}: {workers:?} {reply:?}");
            } else {
                assert_eq!(cpus, want, "{policy}: {workers:?} {reply:?}");
            }
        }
    }
}

/// The largest resident set the engine has had, in kB.
fn peak_rss_kb(engine: &Engine) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{}/status", engine.child.id())).expect("status");
    let line = status.lines().find(|l| l.starts_with("VmHWM:")).expect("VmHWM");
    line.split_whitespace().nth(1).and_then(|kb| kb.parse().ok()).expect("a number")
}

/// A `NumaPolicy` line is read in bounded memory whatever it repeats: a node listing every CPU
/// thousands of times, and thousands of nodes (a CPU belongs to one node: the second listing
/// of it is refused).
#[test]
fn a_numa_policy_line_is_read_in_bounded_memory() {
    let mut engine = Engine::start();
    engine.sync();
    let before = peak_rss_kb(&engine);
    let one_node = vec!["0-8191"; 5000].join(",");
    let reply = set(&mut engine, "NumaPolicy", &one_node);
    assert!(reply.iter().any(|l| l.contains("NumaPolicy")), "{reply:?}");
    let many_nodes = vec!["0-8191"; 5000].join(":");
    let reply = set(&mut engine, "NumaPolicy", &many_nodes);
    assert!(reply.iter().any(|l| l.contains("in node 0 too")), "{reply:?}");
    let grown = peak_rss_kb(&engine).saturating_sub(before);
    assert!(grown < 20_000, "reading the lines took {grown} kB more");
}
