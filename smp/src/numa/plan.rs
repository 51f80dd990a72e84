//! Which node each search thread runs on: the plan a policy makes of a topology for a number of
//! threads. Threads go to nodes in proportion to the nodes' cores, and every prefix of them does
//! too (a search that starts fewer helpers stays balanced); the main thread is on the first node.
//! A thread is bound to its node's whole CPU set, not to one core.

use super::cpus::CpuSet;
use super::policy::NumaPolicy;
use super::topology::Topology;

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PlacedNode {
    /// The kernel's node number (a custom list's nodes are numbered by their place in it).
    pub id: usize,
    pub cpus: CpuSet,
    /// Physical cores among `cpus`: the node's weight in the spread.
    pub cores: usize,
    pub threads: usize,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Plan {
    /// Empty: no thread is bound.
    pub nodes: Vec<PlacedNode>,
    /// Each thread's index into `nodes` (empty when nothing is bound).
    pub thread_node: Vec<usize>,
    pub threads: usize,
    /// Why nothing is bound, when nothing is.
    pub unbound_because: Option<String>,
    /// The bindings the system refused when the threads started (`thread 3: ...`).
    pub refused: Vec<String>,
}

impl Plan {
    pub fn unbound(threads: usize, why: String) -> Plan {
        Plan {
            nodes: Vec::new(),
            thread_node: Vec::new(),
            threads,
            unbound_because: Some(why),
            refused: Vec::new(),
        }
    }

    /// The CPUs thread `index` is bound to, if any.
    pub fn cpus_for(&self, index: usize) -> Option<&CpuSet> {
        self.thread_node.get(index).map(|&n| &self.nodes[n].cpus)
    }

    /// The nodes that run at least one thread (those that get their own copy of read-only data).
    pub fn nodes_with_threads(&self) -> Vec<usize> {
        self.nodes.iter().filter(|n| n.threads > 0).map(|n| n.id).collect()
    }

    /// The CPUs of each node that runs threads, where they run on several (the table's pages
    /// are spread over them); empty otherwise.
    pub fn nodes_in_use(&self) -> Vec<CpuSet> {
        let used: Vec<CpuSet> = self.nodes.iter().filter(|n| n.threads > 0).map(|n| n.cpus.clone()).collect();
        if used.len() > 1 {
            used
        } else {
            Vec::new()
        }
    }

    /// `64 threads on 2 NUMA nodes: 32 on 0-31, 32 on 32-63`, or why none is bound, and any
    /// binding the system refused.
    pub fn describe(&self) -> String {
        let mut text = self.describe_nodes();
        if !self.refused.is_empty() {
            text.push_str(&format!("; the system refused to bind {}", self.refused.join(", ")));
        }
        text
    }

    fn describe_nodes(&self) -> String {
        let threads =
            if self.threads == 1 { "1 thread".to_string() } else { format!("{} threads", self.threads) };
        if let Some(why) = &self.unbound_because {
            return format!("{threads}, not bound to NUMA nodes ({why})");
        }
        let used: Vec<&PlacedNode> = self.nodes.iter().filter(|n| n.threads > 0).collect();
        let parts: Vec<String> = used.iter().map(|n| format!("{} on {}", n.threads, n.cpus)).collect();
        let plural = if used.len() == 1 { "" } else { "s" };
        let idle = self.nodes.len() - used.len();
        let idle = match idle {
            0 => String::new(),
            1 => "; 1 node without a thread".to_string(),
            n => format!("; {n} nodes without a thread"),
        };
        format!("{threads} on {} NUMA node{plural}: {}{idle}", used.len(), parts.join(", "))
    }
}

/// The plan of `policy` on `topology` for `threads` threads, or why the policy cannot apply (a
/// custom list naming CPUs that do not exist or that this process may not use). With fewer
/// threads than nodes, the last nodes get none.
pub fn plan(topology: &Topology, policy: &NumaPolicy, threads: usize) -> Result<Plan, String> {
    let threads = threads.max(1);
    let in_reach = |limit: &CpuSet| -> Vec<(usize, CpuSet)> {
        topology
            .nodes
            .iter()
            .map(|n| (n.id, n.cpus.intersection(limit)))
            .filter(|(_, cpus)| !cpus.is_empty())
            .collect()
    };
    let nodes = match policy {
        NumaPolicy::None => return Ok(Plan::unbound(threads, "NumaPolicy none".into())),
        NumaPolicy::System => in_reach(&topology.allowed),
        NumaPolicy::Hardware => in_reach(&topology.cpuset),
        NumaPolicy::Auto => {
            let nodes = in_reach(&topology.allowed);
            if nodes.len() < 2 {
                return Ok(Plan::unbound(threads, "NumaPolicy auto: one NUMA node in reach".into()));
            }
            let largest = nodes.iter().map(|(_, cpus)| topology.cores_in(cpus)).max().unwrap_or(0);
            if threads <= largest {
                return Ok(Plan::unbound(
                    threads,
                    format!("NumaPolicy auto: they fit the {largest} cores of one of {} nodes", nodes.len()),
                ));
            }
            nodes
        }
        NumaPolicy::Custom(sets) => {
            let online = topology.online();
            for (i, set) in sets.iter().enumerate() {
                let missing = set.without(&online);
                if !missing.is_empty() {
                    return Err(format!("NumaPolicy node {i}: CPUs {missing} do not exist on this machine"));
                }
                let forbidden = set.without(&topology.allowed);
                if !forbidden.is_empty() {
                    return Err(format!(
                        "NumaPolicy node {i}: this process may not use CPUs {forbidden} (it may use {})",
                        topology.allowed
                    ));
                }
            }
            sets.iter().cloned().enumerate().collect()
        }
    };
    Ok(spread(topology, nodes, threads))
}

/// Threads over `nodes` in proportion to their cores: each next thread goes to the node whose
/// share would stay lowest (ties to the first).
fn spread(topology: &Topology, nodes: Vec<(usize, CpuSet)>, threads: usize) -> Plan {
    let mut placed: Vec<PlacedNode> = nodes
        .into_iter()
        .map(|(id, cpus)| PlacedNode { id, cores: topology.cores_in(&cpus).max(1), cpus, threads: 0 })
        .collect();
    let mut thread_node = Vec::with_capacity(threads);
    for thread in 0..threads {
        let mut best = 0;
        // The main thread on the first node; the others where the share stays lowest.
        for k in (1..placed.len()).filter(|_| thread > 0) {
            // (count_k + 1) / cores_k < (count_best + 1) / cores_best, in integers.
            let (a, b) = (&placed[k], &placed[best]);
            if (a.threads + 1) * b.cores < (b.threads + 1) * a.cores {
                best = k;
            }
        }
        placed[best].threads += 1;
        thread_node.push(best);
    }
    Plan { nodes: placed, thread_node, threads, unbound_because: None, refused: Vec::new() }
}
