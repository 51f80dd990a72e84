//! What a benchmark ran on, so that a figure can be told apart from one of another build or
//! machine: the build, its SIMD path, the processor, the cores, SMT, NUMA nodes and large pages.

use serde_json::{json, Value};

#[derive(Clone, Debug)]
pub struct Machine {
    pub build: String,
    pub commit: Option<&'static str>,
    pub simd: &'static str,
    pub cpu: String,
    pub logical_cores: usize,
    pub physical_cores: usize,
    pub numa_nodes: usize,
    /// The NUMA nodes, their CPUs and cores, and the CPUs this process may use.
    pub topology: String,
    /// The kernel's transparent huge page mode (`always`, `madvise`, `never`), if it has one.
    pub huge_pages: Option<String>,
}

impl Machine {
    pub fn detect(build: &crate::Build) -> Machine {
        let topology = smp::numa::machine();
        Machine {
            build: build.name.clone(),
            commit: build.commit,
            simd: engine::nnue::simd::Kernels::selection().kernels.name(),
            cpu: cpu_model(),
            logical_cores: smp::available_cores(),
            // SMT siblings count once, among the CPUs this process may use.
            physical_cores: topology.cores_in(&topology.allowed).max(1),
            numa_nodes: topology.nodes.len(),
            topology: topology.describe(),
            huge_pages: huge_page_mode(),
        }
    }

    /// Lines for people, the large pages used by this process (`resident_huge_kb`) included.
    pub fn lines(&self, resident_huge_kb: Option<u64>) -> Vec<String> {
        let smt = if self.logical_cores > self.physical_cores {
            format!("SMT on, {} threads a core", self.logical_cores / self.physical_cores)
        } else {
            "no SMT".to_string()
        };
        let pages = match (&self.huge_pages, resident_huge_kb) {
            (Some(mode), Some(kb)) => {
                format!("transparent huge pages '{mode}', {} MB of this process on huge pages", kb / 1024)
            }
            (Some(mode), None) => format!("transparent huge pages '{mode}'"),
            (None, _) => "no transparent huge pages".to_string(),
        };
        vec![
            format!("build: {}, SIMD {}", self.build, self.simd),
            format!(
                "machine: {}, {} logical cores on {} physical ({smt}), {} NUMA node(s)",
                self.cpu, self.logical_cores, self.physical_cores, self.numa_nodes
            ),
            format!("topology: {}", self.topology),
            format!("large pages: {pages}"),
        ]
    }

    pub fn json(&self, resident_huge_kb: Option<u64>) -> Value {
        json!({
            "build": self.build,
            "commit": self.commit,
            "simd": self.simd,
            "cpu": self.cpu,
            "logical_cores": self.logical_cores,
            "physical_cores": self.physical_cores,
            "numa_nodes": self.numa_nodes,
            "topology": self.topology,
            "transparent_huge_pages": self.huge_pages,
            "resident_huge_pages_kb": resident_huge_kb,
            "os": std::env::consts::OS,
            "arch": std::env::consts::ARCH,
        })
    }
}

fn read(path: &str) -> Option<String> {
    std::fs::read_to_string(path).ok()
}

fn cpu_model() -> String {
    read("/proc/cpuinfo")
        .and_then(|text| {
            text.lines()
                .find(|line| line.starts_with("model name"))
                .and_then(|line| line.split_once(':'))
                .map(|(_, model)| model.trim().to_string())
        })
        .unwrap_or_else(|| format!("unknown {} processor", std::env::consts::ARCH))
}

/// The bracketed word of `/sys/kernel/mm/transparent_hugepage/enabled`.
fn huge_page_mode() -> Option<String> {
    let text = read("/sys/kernel/mm/transparent_hugepage/enabled")?;
    parse_bracketed(&text)
}

fn parse_bracketed(text: &str) -> Option<String> {
    let start = text.find('[')? + 1;
    let end = start + text[start..].find(']')?;
    Some(text[start..end].to_string())
}

/// Anonymous memory of this process on transparent huge pages, in kB (Linux only).
pub fn resident_huge_kb() -> Option<u64> {
    let text = read("/proc/self/smaps_rollup")?;
    parse_huge_kb(&text)
}

fn parse_huge_kb(text: &str) -> Option<u64> {
    let line = text.lines().find(|line| line.starts_with("AnonHugePages:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kernel_files_are_read() {
        assert_eq!(parse_bracketed("always [madvise] never\n").as_deref(), Some("madvise"));
        assert_eq!(parse_bracketed("always madvise never"), None);
        let rollup = "Rss:  1000 kB\nAnonHugePages:    204800 kB\nShared_Hugetlb: 0 kB\n";
        assert_eq!(parse_huge_kb(rollup), Some(204_800));
        assert_eq!(parse_huge_kb("Rss: 5 kB\n"), None);
    }

    #[test]
    fn the_description_names_build_cores_and_pages() {
        let machine = Machine {
            build: "Lazuli 0.1.0 (abc1234)".into(),
            commit: Some("abc1234"),
            simd: "avx2",
            cpu: "Test CPU".into(),
            logical_cores: 32,
            physical_cores: 16,
            numa_nodes: 2,
            topology:
                "2 NUMA nodes: 0 (0-7,16-23, 8 cores), 1 (8-15,24-31, 8 cores); this process may use 0-31"
                    .into(),
            huge_pages: Some("madvise".into()),
        };
        let text = machine.lines(Some(4096)).join("\n");
        for part in [
            "abc1234",
            "avx2",
            "Test CPU",
            "32 logical",
            "16 physical",
            "2 threads a core",
            "2 NUMA",
            "4 MB",
            "1 (8-15,24-31",
        ] {
            assert!(text.contains(part), "'{part}' missing from:\n{text}");
        }
        assert_eq!(machine.json(None)["numa_nodes"], 2);
        assert!(Machine::detect(&crate::Build { name: "test".into(), commit: None }).logical_cores >= 1);
    }
}
