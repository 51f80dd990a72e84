//! How much memory this process may still take: what the system has free (`MemAvailable`), and
//! within a container what its memory cgroup still allows, whichever is less. A table larger
//! than that would be written into memory the machine cannot give, and the process killed.

use std::path::{Path, PathBuf};

/// Megabytes this process could still take now; `None` where nothing says (not Linux).
pub(crate) fn available_mb() -> Option<usize> {
    let system = system_available_mb();
    let cgroup = cgroup_available_mb();
    match (system, cgroup) {
        (Some(a), Some(b)) => Some(a.min(b)),
        (a, b) => a.or(b),
    }
}

/// Each search thread's stack: the search recurses up to the maximum ply.
pub(crate) const THREAD_STACK: usize = 16 << 20;
/// More than a search thread's own tables take (histories, pawn cache, search stack, accumulators).
const THREAD_HEAP: usize = 4 << 20;
/// Address space the C library reserves for each thread that allocates, up to eight threads per
/// core (glibc's malloc arenas).
const ARENA: usize = if cfg!(all(target_os = "linux", target_env = "gnu")) { 64 << 20 } else { 0 };

/// Whether the address space has room to grow from `current` search threads to `wanted`:
/// checked by reserving it and handing it back at once, so that a limit (`ulimit -v`, a
/// container's) is met with a refusal instead of an allocation failure inside a new thread,
/// which would abort the process. Deliberately generous: threads share arenas when they can.
pub(crate) fn room_for_threads(current: usize, wanted: usize) -> bool {
    let arenas = 8 * crate::available_cores();
    let new_arenas = wanted.min(arenas).saturating_sub(current.min(arenas));
    let bytes = (wanted - current)
        .checked_mul(THREAD_STACK + THREAD_HEAP)
        .and_then(|b| b.checked_add(new_arenas.checked_mul(ARENA)?));
    let Some(bytes) = bytes else { return false };
    let mut probe: Vec<u8> = Vec::new();
    probe.try_reserve_exact(bytes).is_ok()
}

fn system_available_mb() -> Option<usize> {
    let info = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = info.lines().find(|l| l.starts_with("MemAvailable:"))?;
    let kb: usize = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb / 1024)
}

/// What the memory cgroup of this process still allows, if it sets a limit.
fn cgroup_available_mb() -> Option<usize> {
    let groups = std::fs::read_to_string("/proc/self/cgroup").ok()?;
    let (limit, usage) = cgroup_files(&groups).into_iter().find_map(|(limit, usage)| {
        let limit = read_number(&limit)?;
        Some((limit, read_number(&usage).unwrap_or(0)))
    })?;
    // Unlimited groups report "max" (version 2) or a number near 2^63 (version 1).
    (limit < 1 << 60).then(|| (limit.saturating_sub(usage) >> 20) as usize)
}

/// The limit and usage files that may hold this process's memory cgroup, most specific first.
fn cgroup_files(groups: &str) -> Vec<(PathBuf, PathBuf)> {
    let root = Path::new("/sys/fs/cgroup");
    let mut files = Vec::new();
    for line in groups.lines() {
        let mut fields = line.splitn(3, ':');
        let (Some(_), Some(controllers), Some(path)) = (fields.next(), fields.next(), fields.next()) else {
            continue;
        };
        let path = path.trim_start_matches('/');
        if controllers.is_empty() {
            let dir = root.join(path);
            files.push((dir.join("memory.max"), dir.join("memory.current")));
        } else if controllers.split(',').any(|c| c == "memory") {
            let dir = root.join("memory").join(path);
            files.push((dir.join("memory.limit_in_bytes"), dir.join("memory.usage_in_bytes")));
            // Inside a cgroup namespace the group is mounted at the root.
            let own = root.join("memory");
            files.push((own.join("memory.limit_in_bytes"), own.join("memory.usage_in_bytes")));
        }
    }
    files
}

fn read_number(path: &Path) -> Option<u64> {
    std::fs::read_to_string(path).ok()?.trim().parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn both_cgroup_versions_name_their_files() {
        let v2 = cgroup_files("0::/user.slice/engine\n");
        assert_eq!(v2[0].0, Path::new("/sys/fs/cgroup/user.slice/engine/memory.max"));
        let v1 = cgroup_files("4:memory:/box/1\n3:cpuset:/\n");
        assert_eq!(v1[0].0, Path::new("/sys/fs/cgroup/memory/box/1/memory.limit_in_bytes"));
        assert_eq!(v1[1].1, Path::new("/sys/fs/cgroup/memory/memory.usage_in_bytes"));
        assert!(cgroup_files("garbage").is_empty());
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn linux_says_how_much_is_free() {
        let mb = available_mb().expect("MemAvailable");
        // Bounded by the machine's memory, not by a second reading of what is free: tests that
        // run beside this one allocate and free tables between two readings.
        let info = std::fs::read_to_string("/proc/meminfo").expect("meminfo");
        let total_kb: usize = info
            .lines()
            .find_map(|l| l.strip_prefix("MemTotal:"))
            .and_then(|rest| rest.split_whitespace().next()?.parse().ok())
            .expect("MemTotal");
        assert!(mb > 0 && mb <= total_kb / 1024, "{mb} MB free of {total_kb} kB");
    }
}
