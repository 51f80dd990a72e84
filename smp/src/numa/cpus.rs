//! Sets of CPU numbers in the kernel's list notation (`0-3,8,10-11`), as sysfs, `/proc` and the
//! `NumaPolicy` option write them.

use std::fmt;

/// CPU numbers, sorted, each once.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CpuSet(Vec<usize>);

/// No machine Linux runs on has more (its own limit is 8192); a larger number is a typo.
pub const MAX_CPU: usize = 8191;

impl CpuSet {
    pub fn new(mut cpus: Vec<usize>) -> CpuSet {
        cpus.sort_unstable();
        cpus.dedup();
        CpuSet(cpus)
    }

    /// Parses `0-3,8,10-11` (spaces and a trailing newline allowed; empty is the empty set), in
    /// memory bounded by `MAX_CPU` however often the text repeats a range.
    pub fn parse(text: &str) -> Result<CpuSet, String> {
        let mut listed = vec![false; MAX_CPU + 1];
        for part in text.trim().split(',').map(str::trim).filter(|p| !p.is_empty()) {
            let number = |s: &str| -> Result<usize, String> {
                let n: usize = s.trim().parse().map_err(|_| format!("'{s}' is not a CPU number"))?;
                if n > MAX_CPU {
                    return Err(format!("CPU {n} is beyond {MAX_CPU}"));
                }
                Ok(n)
            };
            let (first, last) = match part.split_once('-') {
                Some((first, last)) => (number(first)?, number(last)?),
                None => (number(part)?, number(part)?),
            };
            if first > last {
                return Err(format!("'{part}' is an empty range"));
            }
            listed[first..=last].fill(true);
        }
        Ok(CpuSet(listed.iter().enumerate().filter(|(_, &on)| on).map(|(cpu, _)| cpu).collect()))
    }

    pub fn cpus(&self) -> &[usize] {
        &self.0
    }

    pub fn len(&self) -> usize {
        self.0.len()
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    pub fn contains(&self, cpu: usize) -> bool {
        self.0.binary_search(&cpu).is_ok()
    }

    pub fn intersection(&self, other: &CpuSet) -> CpuSet {
        CpuSet(self.0.iter().copied().filter(|&c| other.contains(c)).collect())
    }

    /// The CPUs of `self` that are not in `other`.
    pub fn without(&self, other: &CpuSet) -> CpuSet {
        CpuSet(self.0.iter().copied().filter(|&c| !other.contains(c)).collect())
    }
}

impl fmt::Display for CpuSet {
    /// The kernel's notation, ranges joined: `0-3,8`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut i = 0;
        let mut first = true;
        while i < self.0.len() {
            let start = self.0[i];
            while i + 1 < self.0.len() && self.0[i + 1] == self.0[i] + 1 {
                i += 1;
            }
            let sep = if first { "" } else { "," };
            if self.0[i] == start {
                write!(f, "{sep}{start}")?;
            } else {
                write!(f, "{sep}{start}-{}", self.0[i])?;
            }
            first = false;
            i += 1;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lists_parse_and_print_in_the_kernels_notation() {
        let set = CpuSet::parse("8, 0-3,10-11\n").expect("valid");
        assert_eq!(set.cpus(), &[0, 1, 2, 3, 8, 10, 11]);
        assert_eq!(set.to_string(), "0-3,8,10-11");
        assert_eq!(CpuSet::parse("").expect("empty").len(), 0);
        assert_eq!(CpuSet::parse("5").expect("one").to_string(), "5");
        assert_eq!(CpuSet::parse("1,1,0").expect("repeats").to_string(), "0-1");
        for bad in ["a", "3-1", "0-", "-2", "1,,x", "99999"] {
            assert!(CpuSet::parse(bad).is_err(), "{bad}");
        }
        let all = CpuSet::parse("0-7").unwrap();
        let some = CpuSet::parse("2,4,9").unwrap();
        assert_eq!(all.intersection(&some).to_string(), "2,4");
        assert_eq!(all.without(&some).to_string(), "0-1,3,5-7");
    }
}
