//! NUMA placement plans on recorded machines (`tests/topologies/`, the files the topology
//! reads, as five real kinds of machine have them): for 1, 2, 8, 64 and 256 threads under every
//! policy, how many threads each node gets and on which CPUs, which nodes get a copy of the
//! read-only data, and that every prefix of the threads is spread in proportion.

use smp::numa::{plan, CpuSet, NumaPolicy, Plan, Recorded, Topology};

const THREADS: [usize; 5] = [1, 2, 8, 64, 256];

fn machine(name: &str) -> Topology {
    let path = format!("{}/tests/topologies/{name}.txt", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    Topology::read(&Recorded::parse(&text))
}

/// `-` for unbound, else each node's thread count joined by `/`, per thread count of `THREADS`.
fn counts(topology: &Topology, policy: &str) -> (String, String) {
    let policy = NumaPolicy::parse(policy).expect("a valid policy");
    let mut row = Vec::new();
    let mut nodes = String::new();
    for threads in THREADS {
        let p = plan(topology, &policy, threads).expect("the policy applies");
        check(topology, &policy, &p);
        if p.nodes.is_empty() {
            row.push("-".to_string());
        } else {
            row.push(p.nodes.iter().map(|n| n.threads.to_string()).collect::<Vec<_>>().join("/"));
            nodes = p.nodes.iter().map(|n| format!("{}={}", n.id, n.cpus)).collect::<Vec<_>>().join(" ");
        }
    }
    (row.join(" | "), nodes)
}

/// What every plan keeps: threads on the CPUs the policy allows, the main thread on the first
/// node, every prefix of the threads within two of its proportional share on every node, and a
/// copy of the read-only data on exactly the nodes that run threads.
fn check(topology: &Topology, policy: &NumaPolicy, p: &Plan) {
    if p.nodes.is_empty() {
        assert!(p.unbound_because.is_some() && p.cpus_for(0).is_none());
        return;
    }
    let limit = match policy {
        NumaPolicy::Hardware => &topology.cpuset,
        _ => &topology.allowed,
    };
    assert_eq!(p.thread_node.len(), p.threads);
    assert_eq!(p.thread_node[0], 0, "the main thread on the first node");
    let total: usize = p.nodes.iter().map(|n| n.cores).sum();
    let mut prefix = vec![0usize; p.nodes.len()];
    for (i, &node) in p.thread_node.iter().enumerate() {
        let cpus = p.cpus_for(i).expect("bound");
        assert_eq!(cpus.intersection(limit), *cpus, "thread {i} on CPUs the process may not use");
        prefix[node] += 1;
        for (k, n) in p.nodes.iter().enumerate() {
            assert_eq!(n.cores, topology.cores_in(&n.cpus).max(1));
            let share = (i + 1) as f64 * n.cores as f64 / total as f64;
            assert!(
                (prefix[k] as f64 - share).abs() <= 2.0,
                "{i} threads: node {k} has {} for {share:.1}",
                prefix[k]
            );
        }
    }
    let with_threads: Vec<usize> = p.nodes.iter().filter(|n| n.threads > 0).map(|n| n.id).collect();
    assert_eq!(p.nodes_with_threads(), with_threads);
}

#[test]
fn a_laptop_is_never_bound_by_auto() {
    let t = machine("laptop-8c-smt");
    assert_eq!(t.describe(), "1 NUMA node: 0 (0-15, 8 cores); this process may use 0-15");
    assert_eq!(counts(&t, "auto").0, "- | - | - | - | -");
    assert_eq!(counts(&t, "none").0, "- | - | - | - | -");
    assert_eq!(counts(&t, "system"), ("1 | 2 | 8 | 64 | 256".into(), "0=0-15".into()));
    assert_eq!(counts(&t, "hardware"), ("1 | 2 | 8 | 64 | 256".into(), "0=0-15".into()));
    assert_eq!(counts(&t, "0-3:8-11"), ("1/0 | 1/1 | 4/4 | 32/32 | 128/128".into(), "0=0-3 1=8-11".into()));
    // Cores, not CPUs, weigh: four cores with their SMT siblings against four without.
    assert_eq!(counts(&t, "0-3,8-11:4-7").0, "1/0 | 1/1 | 4/4 | 32/32 | 128/128");
}

#[test]
fn a_dual_socket_server_binds_only_beyond_one_sockets_cores() {
    let t = machine("dual-socket-2x64-smt");
    assert_eq!(
        t.describe(),
        "2 NUMA nodes: 0 (0-63,128-191, 64 cores), 1 (64-127,192-255, 64 cores); this process may use 0-255"
    );
    let nodes = "0=0-63,128-191 1=64-127,192-255".to_string();
    assert_eq!(counts(&t, "auto"), ("- | - | - | - | 128/128".into(), nodes.clone()));
    assert_eq!(counts(&t, "system"), ("1/0 | 1/1 | 4/4 | 32/32 | 128/128".into(), nodes.clone()));
    assert_eq!(counts(&t, "hardware"), ("1/0 | 1/1 | 4/4 | 32/32 | 128/128".into(), nodes));
    assert_eq!(counts(&t, "none").0, "- | - | - | - | -");
    let p = plan(&t, &NumaPolicy::Auto, 256).expect("applies");
    assert_eq!(p.describe(), "256 threads on 2 NUMA nodes: 128 on 0-63,128-191, 128 on 64-127,192-255");
    assert_eq!(p.nodes_with_threads(), [0, 1]);
    assert_eq!(
        plan(&t, &NumaPolicy::Auto, 64).expect("applies").describe(),
        "64 threads, not bound to NUMA nodes (NumaPolicy auto: they fit the 64 cores of one of 2 nodes)"
    );
}

#[test]
fn an_epyc_in_nps4_mode_spreads_over_four_nodes() {
    let t = machine("epyc-nps4-64c");
    let nodes = "0=0-15,64-79 1=16-31,80-95 2=32-47,96-111 3=48-63,112-127".to_string();
    assert_eq!(counts(&t, "auto"), ("- | - | - | 16/16/16/16 | 64/64/64/64".into(), nodes.clone()));
    assert_eq!(
        counts(&t, "system"),
        ("1/0/0/0 | 1/1/0/0 | 2/2/2/2 | 16/16/16/16 | 64/64/64/64".into(), nodes)
    );
    let p = plan(&t, &NumaPolicy::System, 2).expect("applies");
    assert_eq!(p.nodes_with_threads(), [0, 1], "two threads: two copies, not four");
    assert_eq!(
        p.describe(),
        "2 threads on 2 NUMA nodes: 1 on 0-15,64-79, 1 on 16-31,80-95; 2 nodes without a thread"
    );
}

#[test]
fn offline_cpus_and_a_memory_only_node_are_left_out() {
    let t = machine("eight-nodes-offline");
    assert_eq!(t.nodes.len(), 8, "node 8 has memory only");
    assert_eq!(t.nodes[7].cpus, CpuSet::parse("56-59").expect("valid"), "60-63 are offline");
    let nodes = "0=0-7 1=8-15 2=16-23 3=24-31 4=32-39 5=40-47 6=48-55 7=56-59".to_string();
    assert_eq!(
        counts(&t, "auto"),
        ("- | - | - | 9/9/9/9/8/8/8/4 | 35/34/34/34/34/34/34/17".into(), nodes.clone())
    );
    assert_eq!(
        counts(&t, "hardware"),
        (
            "1/0/0/0/0/0/0/0 | 1/1/0/0/0/0/0/0 | 2/1/1/1/1/1/1/0 | 9/9/9/9/8/8/8/4 | 35/34/34/34/34/34/34/17"
                .into(),
            nodes
        )
    );
    let offline = plan(&t, &NumaPolicy::parse("0-7:60-63").expect("valid"), 2).expect_err("offline CPUs");
    assert_eq!(offline, "NumaPolicy node 1: CPUs 60-63 do not exist on this machine");
}

#[test]
fn a_container_keeps_its_cpuset_and_hardware_widens_only_the_affinity() {
    let t = machine("container-cpuset");
    assert_eq!(t.allowed, CpuSet::parse("8-11").expect("valid"), "started under taskset -c 8-11");
    assert_eq!(t.cpuset, CpuSet::parse("8-23").expect("valid"));
    assert_eq!(counts(&t, "auto").0, "- | - | - | - | -", "one node in reach");
    assert_eq!(counts(&t, "system"), ("1 | 2 | 8 | 64 | 256".into(), "0=8-11".into()));
    assert_eq!(counts(&t, "hardware"), ("1/0 | 1/1 | 4/4 | 32/32 | 128/128".into(), "0=8-15 1=16-23".into()));
    let outside = plan(&t, &NumaPolicy::parse("8-11:16-19").expect("valid"), 2).expect_err("not allowed");
    assert_eq!(outside, "NumaPolicy node 1: this process may not use CPUs 16-19 (it may use 8-11)");
}

#[test]
fn an_unreadable_system_is_one_node_of_the_cpus_the_process_may_use() {
    let t = Topology::read(&Recorded::parse("/proc/self/status\tCpus_allowed_list:\t2-5\n"));
    assert_eq!(t.describe(), "1 NUMA node: 0 (2-5, 4 cores); this process may use 2-5");
    let nothing = Topology::read(&Recorded::parse(""));
    assert_eq!(nothing.nodes.len(), 1);
    assert!(!nothing.allowed.is_empty());
    // Nonsense in every file: still one node, never an error.
    let garbage =
        "/sys/devices/system/cpu/online\tx\n/sys/devices/system/node/online\t?\n/proc/self/cgroup\t::\n";
    assert_eq!(Topology::read(&Recorded::parse(garbage)).nodes.len(), 1);
}
