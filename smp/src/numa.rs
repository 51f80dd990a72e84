//! Placement of search threads on NUMA nodes: the machine's topology, the `NumaPolicy` option,
//! the plan a policy makes for a number of threads, and the binding of a thread to its node.
//! The pool consults it when it starts its workers; each worker binds itself before it
//! allocates its own tables, so that their memory is first touched on its node.

mod cpus;
mod plan;
mod policy;
mod topology;

pub use cpus::CpuSet;
pub use plan::{plan, PlacedNode, Plan};
pub use policy::NumaPolicy;
pub use topology::{Node, Recorded, Source, Topology};

/// The machine this process runs on, read once.
pub fn machine() -> &'static Topology {
    static MACHINE: std::sync::OnceLock<Topology> = std::sync::OnceLock::new();
    MACHINE.get_or_init(Topology::detect)
}

/// Binds the calling thread to `cpus`.
#[cfg(target_os = "linux")]
pub fn bind_current_thread(cpus: &CpuSet) -> Result<(), String> {
    use nix::sched::{sched_setaffinity, CpuSet as Mask};
    use nix::unistd::Pid;
    let mut mask = Mask::new();
    for &cpu in cpus.cpus() {
        mask.set(cpu).map_err(|e| format!("CPU {cpu}: {e}"))?;
    }
    sched_setaffinity(Pid::from_raw(0), &mask).map_err(|e| format!("cannot bind to CPUs {cpus}: {e}"))
}

/// Other systems: threads are left to the scheduler.
#[cfg(not(target_os = "linux"))]
pub fn bind_current_thread(_cpus: &CpuSet) -> Result<(), String> {
    Ok(())
}
