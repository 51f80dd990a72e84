//! The `NumaPolicy` option, spelled as Stockfish spells it so that users' habits carry over.

use super::cpus::CpuSet;
use std::fmt;

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum NumaPolicy {
    /// Bind only where it can pay: more than one node in reach and more threads than the
    /// largest of them has cores.
    #[default]
    Auto,
    /// Bind to the nodes the process may use (its inherited affinity respected).
    System,
    /// Bind to every node's CPUs, ignoring the inherited affinity (the cpuset still holds).
    Hardware,
    /// Bind nothing: the scheduler places the threads.
    None,
    /// These CPU sets as the nodes, in order.
    Custom(Vec<CpuSet>),
}

impl NumaPolicy {
    /// `auto`, `system`, `hardware`, `none` (any case), or CPU lists separated by colons, each a
    /// node: `0-15:16-31`.
    pub fn parse(text: &str) -> Result<NumaPolicy, String> {
        let text = text.trim();
        Ok(match text.to_ascii_lowercase().as_str() {
            "auto" => NumaPolicy::Auto,
            "system" => NumaPolicy::System,
            "hardware" => NumaPolicy::Hardware,
            "none" => NumaPolicy::None,
            "" => {
                return Err(
                    "NumaPolicy: empty; expected auto, system, hardware, none or CPU lists like 0-15:16-31"
                        .into(),
                )
            }
            _ => {
                let mut nodes: Vec<CpuSet> = Vec::new();
                for (i, part) in text.split(':').enumerate() {
                    let set = CpuSet::parse(part).map_err(|e| {
                        format!("NumaPolicy: '{}' is not auto, system, hardware, none or a list of nodes: node {i}: {e}", shorten(text))
                    })?;
                    if set.is_empty() {
                        return Err(format!("NumaPolicy: '{}': node {i} has no CPUs", shorten(text)));
                    }
                    // Each CPU in one node: the nodes together list at most `MAX_CPU` CPUs.
                    for (j, node) in nodes.iter().enumerate() {
                        if let Some(cpu) = set.cpus().iter().find(|&&cpu| node.contains(cpu)) {
                            return Err(format!(
                                "NumaPolicy: node {i}: CPU {cpu} is in node {j} too; a CPU belongs to one node"
                            ));
                        }
                    }
                    nodes.push(set);
                }
                NumaPolicy::Custom(nodes)
            }
        })
    }
}

/// `text`, cut to a length an `info string` can quote.
fn shorten(text: &str) -> String {
    const MAX: usize = 60;
    match text.char_indices().nth(MAX) {
        Some((at, _)) => format!("{}...", &text[..at]),
        None => text.to_string(),
    }
}

impl fmt::Display for NumaPolicy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            NumaPolicy::Auto => f.write_str("auto"),
            NumaPolicy::System => f.write_str("system"),
            NumaPolicy::Hardware => f.write_str("hardware"),
            NumaPolicy::None => f.write_str("none"),
            NumaPolicy::Custom(nodes) => {
                let parts: Vec<String> = nodes.iter().map(CpuSet::to_string).collect();
                f.write_str(&parts.join(":"))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn policies_parse_and_print_back() {
        for text in ["auto", "system", "hardware", "none", "0-15:16-31", "0:1", "0,2,4:1,3,5"] {
            assert_eq!(NumaPolicy::parse(text).expect(text).to_string(), text);
        }
        assert_eq!(NumaPolicy::parse(" AUTO ").unwrap(), NumaPolicy::Auto);
        assert_eq!(NumaPolicy::parse("1-0x").map_err(|e| e.contains("node 0")), Err(true));
        for bad in ["", "0-15::16-31", "numa", "3-1", "0:", ":0"] {
            assert!(NumaPolicy::parse(bad).is_err(), "{bad}");
        }
    }
}
