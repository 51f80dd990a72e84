//! The machine's NUMA nodes and CPUs, and which of them this process may use, read from Linux's
//! sysfs and `/proc` (through `Source`, so that tests read recorded machines instead). Anything
//! that cannot be read makes the topology one node holding the CPUs the process may use: never
//! an error.

use super::cpus::CpuSet;
use std::collections::HashMap;

/// Where the files come from: the running system, or a recording of another machine's.
pub trait Source {
    /// The file's text, or `None` when it does not exist or cannot be read.
    fn read(&self, path: &str) -> Option<String>;
}

/// The running system's files.
pub struct System;

impl Source for System {
    fn read(&self, path: &str) -> Option<String> {
        std::fs::read_to_string(path).ok()
    }
}

/// A machine recorded as lines `PATH<TAB>CONTENT` (the files the topology reads, one line each;
/// `#` starts a comment), as in `smp/tests/topologies/`.
pub struct Recorded(HashMap<String, String>);

impl Recorded {
    pub fn parse(text: &str) -> Recorded {
        let files = text
            .lines()
            .filter(|l| !l.trim_start().starts_with('#'))
            .filter_map(|l| l.split_once('\t'))
            .map(|(path, content)| (path.trim().to_string(), content.to_string()))
            .collect();
        Recorded(files)
    }
}

impl Source for Recorded {
    fn read(&self, path: &str) -> Option<String> {
        self.0.get(path).cloned()
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Node {
    /// The kernel's node number.
    pub id: usize,
    /// Its online CPUs.
    pub cpus: CpuSet,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Topology {
    /// Nodes with at least one online CPU, by number.
    pub nodes: Vec<Node>,
    /// The CPUs this process may run on: its affinity mask within its cpuset, online ones only.
    pub allowed: CpuSet,
    /// The CPUs its cpuset (a container's limit, which no affinity call can widen) allows.
    pub cpuset: CpuSet,
    /// Each online CPU's core, named by the lowest CPU among its SMT siblings.
    core_of: HashMap<usize, usize>,
}

const NODE_DIR: &str = "/sys/devices/system/node";
const CPU_DIR: &str = "/sys/devices/system/cpu";

impl Topology {
    /// The running machine's topology (one node on systems other than Linux).
    pub fn detect() -> Topology {
        if cfg!(target_os = "linux") {
            Topology::read(&System)
        } else {
            Topology::single(CpuSet::new((0..crate::available_cores()).collect()))
        }
    }

    /// One node with `cpus`, each CPU its own core.
    pub fn single(cpus: CpuSet) -> Topology {
        let core_of = cpus.cpus().iter().map(|&c| (c, c)).collect();
        Topology {
            nodes: vec![Node { id: 0, cpus: cpus.clone() }],
            allowed: cpus.clone(),
            cpuset: cpus,
            core_of,
        }
    }

    pub fn read(source: &dyn Source) -> Topology {
        let list = |path: &str| source.read(path).and_then(|text| CpuSet::parse(&text).ok());
        let status_allowed = source.read("/proc/self/status").and_then(|status| {
            status
                .lines()
                .find_map(|l| l.strip_prefix("Cpus_allowed_list:"))
                .and_then(|v| CpuSet::parse(v).ok())
        });
        let Some(online) = list(&format!("{CPU_DIR}/online")).filter(|s| !s.is_empty()) else {
            let cpus = status_allowed.unwrap_or_else(|| CpuSet::new((0..crate::available_cores()).collect()));
            return Topology::single(cpus);
        };
        let cpuset = cgroup_cpuset(source).map_or_else(|| online.clone(), |s| s.intersection(&online));
        let cpuset = if cpuset.is_empty() { online.clone() } else { cpuset };
        let allowed = status_allowed.map_or_else(|| cpuset.clone(), |s| s.intersection(&cpuset));
        let allowed = if allowed.is_empty() { cpuset.clone() } else { allowed };
        let mut nodes: Vec<Node> = list(&format!("{NODE_DIR}/online"))
            .map(|ids| {
                ids.cpus()
                    .iter()
                    .filter_map(|&id| {
                        let cpus = list(&format!("{NODE_DIR}/node{id}/cpulist"))?.intersection(&online);
                        (!cpus.is_empty()).then_some(Node { id, cpus })
                    })
                    .collect()
            })
            .unwrap_or_default();
        // CPUs no node claims (or no node information at all) make a node of their own.
        let claimed = CpuSet::new(nodes.iter().flat_map(|n| n.cpus.cpus().iter().copied()).collect());
        let unclaimed = online.without(&claimed);
        if !unclaimed.is_empty() {
            let id = nodes.iter().map(|n| n.id + 1).max().unwrap_or(0);
            nodes.push(Node { id, cpus: unclaimed });
        }
        let core_of = online
            .cpus()
            .iter()
            .map(|&cpu| {
                let siblings = list(&format!("{CPU_DIR}/cpu{cpu}/topology/thread_siblings_list"));
                let core = siblings.and_then(|s| s.cpus().first().copied()).unwrap_or(cpu);
                (cpu, core)
            })
            .collect();
        Topology { nodes, allowed, cpuset, core_of }
    }

    /// Physical cores among `cpus` (SMT siblings count once).
    pub fn cores_in(&self, cpus: &CpuSet) -> usize {
        let mut cores: Vec<usize> = cpus.cpus().iter().map(|c| *self.core_of.get(c).unwrap_or(c)).collect();
        cores.sort_unstable();
        cores.dedup();
        cores.len()
    }

    /// CPUs that exist (are online) on this machine.
    pub fn online(&self) -> CpuSet {
        CpuSet::new(self.nodes.iter().flat_map(|n| n.cpus.cpus().iter().copied()).collect())
    }

    /// One line for people: `2 NUMA nodes: 0 (0-31, 16 cores), 1 (32-63, 16 cores); this process may use 0-63`.
    pub fn describe(&self) -> String {
        let nodes: Vec<String> = self
            .nodes
            .iter()
            .map(|n| format!("{} ({}, {} cores)", n.id, n.cpus, self.cores_in(&n.cpus)))
            .collect();
        let plural = if self.nodes.len() == 1 { "" } else { "s" };
        format!(
            "{} NUMA node{plural}: {}; this process may use {}",
            self.nodes.len(),
            nodes.join(", "),
            self.allowed
        )
    }
}

/// The CPUs the process's cpuset allows: cgroup v2's `cpuset.cpus.effective` or v1's
/// `cpuset.effective_cpus`, at the process's own cgroup.
fn cgroup_cpuset(source: &dyn Source) -> Option<CpuSet> {
    let groups = source.read("/proc/self/cgroup")?;
    let read =
        |path: String| source.read(&path).and_then(|t| CpuSet::parse(&t).ok()).filter(|s| !s.is_empty());
    groups.lines().find_map(|line| {
        let mut fields = line.splitn(3, ':');
        let (_, controllers, path) = (fields.next()?, fields.next()?, fields.next()?);
        let path = path.trim_end_matches('/');
        if controllers.is_empty() {
            read(format!("/sys/fs/cgroup{path}/cpuset.cpus.effective"))
        } else if controllers.split(',').any(|c| c == "cpuset") {
            read(format!("/sys/fs/cgroup/cpuset{path}/cpuset.effective_cpus"))
        } else {
            None
        }
    })
}
