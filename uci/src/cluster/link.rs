//! The messages between the processes of a cluster: the leader's input lines to every follower
//! (in order: MPI keeps the order of two ranks' messages of one tag), and each follower's result
//! of every search to the leader. Every wait polls a non-blocking probe with a short sleep, so
//! an idle rank does not spin a core (MPICH's blocking calls do).

use engine::board::Move;
use engine::search::{Bound, SearchResult};
use mpi::topology::SimpleCommunicator;
use mpi::traits::*;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

/// Whether the leader's lines still go out: not after `quit` (the followers stop reading there,
/// and a line left unread would still be in flight when MPI closes), nor once the process leaves
/// MPI.
struct Gate {
    closed: AtomicBool,
}

impl Gate {
    const fn new() -> Gate {
        Gate { closed: AtomicBool::new(false) }
    }

    /// Whether `line` is sent; a `quit` is, and closes the gate behind it.
    fn admit(&self, line: &str) -> bool {
        if self.closed.load(Ordering::SeqCst) {
            return false;
        }
        if is_quit(line) {
            self.close();
        }
        true
    }

    fn close(&self) {
        self.closed.store(true, Ordering::SeqCst);
    }
}

static OUTGOING: Gate = Gate::new();

/// No line is sent from now on (the process is leaving MPI).
pub fn close() {
    OUTGOING.close();
}

const COMMAND: i32 = 1;
const RESULT: i32 = 2;

/// How often a follower looks for the leader's next line.
const COMMAND_POLL: Duration = Duration::from_millis(1);
/// How often the leader looks for the followers' results while it waits for them.
const RESULT_POLL: Duration = Duration::from_micros(100);

/// This process's place in the cluster.
#[derive(Clone, Copy, Debug)]
pub struct Link {
    pub rank: i32,
    pub size: i32,
}

impl Link {
    pub fn of_world() -> Link {
        let world = SimpleCommunicator::world();
        Link { rank: world.rank(), size: world.size() }
    }

    /// The leader sends `line` to every follower (nothing after a `quit`).
    pub fn send_line(&self, line: &str) {
        if !OUTGOING.admit(line) {
            return;
        }
        let world = SimpleCommunicator::world();
        for rank in 1..self.size {
            world.process_at_rank(rank).send_with_tag(line.as_bytes(), COMMAND);
        }
    }

    /// A follower hands each of the leader's lines to `deliver` until it returns false or the
    /// line is `quit`.
    pub fn receive_lines(&self, mut deliver: impl FnMut(String) -> bool) {
        let world = SimpleCommunicator::world();
        let leader = world.process_at_rank(0);
        loop {
            let Some(probed) = leader.immediate_matched_probe_with_tag(COMMAND) else {
                std::thread::sleep(COMMAND_POLL);
                continue;
            };
            let (bytes, _) = probed.matched_receive_vec::<u8>();
            let line = String::from_utf8_lossy(&bytes).into_owned();
            let quit = is_quit(&line);
            if !deliver(line) || quit {
                return;
            }
        }
    }

    /// A follower sends the result of its search number `search` to the leader.
    pub fn send_result(&self, search: u64, result: &SearchResult) {
        let world = SimpleCommunicator::world();
        world.process_at_rank(0).send_with_tag(&encode(search, result)[..], RESULT);
    }

    /// The leader waits until `deadline` for `rank`'s result of search number `search`
    /// (results of earlier searches are dropped). `None` if none came in time, or it was not
    /// readable.
    pub fn receive_result(&self, rank: i32, search: u64, deadline: Instant) -> Option<SearchResult> {
        let world = SimpleCommunicator::world();
        let follower = world.process_at_rank(rank);
        while Instant::now() < deadline {
            let Some(probed) = follower.immediate_matched_probe_with_tag(RESULT) else {
                std::thread::sleep(RESULT_POLL);
                continue;
            };
            let (bytes, _) = probed.matched_receive_vec::<u8>();
            match decode(&bytes) {
                Some((number, result)) if number == search => return Some(result),
                Some((number, _)) if number < search => continue,
                _ => return None,
            }
        }
        None
    }
}

/// Whether the session ends at `line` (extra words after `quit` do not change that).
fn is_quit(line: &str) -> bool {
    matches!(crate::command::parse(line), Ok(crate::command::Command::Quit))
}

/// Receives and drops every message still addressed to this process, so that none is in flight
/// when it leaves MPI (after every rank has stopped sending).
pub fn drain() {
    let world = SimpleCommunicator::world();
    while let Some(probed) = world.any_process().immediate_matched_probe() {
        let _ = probed.matched_receive_vec::<u8>();
    }
}

/// `search`, then the result's moves, score, bound, depth, nodes and principal variation, in
/// little-endian bytes.
fn encode(search: u64, result: &SearchResult) -> Vec<u8> {
    let mut out = Vec::with_capacity(32 + 2 * result.pv.len());
    out.extend_from_slice(&search.to_le_bytes());
    out.extend_from_slice(&result.best_move.raw().to_le_bytes());
    out.extend_from_slice(&result.ponder_move.raw().to_le_bytes());
    out.extend_from_slice(&result.score.to_le_bytes());
    out.push(match result.bound {
        Bound::Exact => 0,
        Bound::Lower => 1,
        Bound::Upper => 2,
    });
    out.extend_from_slice(&result.depth.to_le_bytes());
    out.extend_from_slice(&result.nodes.to_le_bytes());
    out.extend_from_slice(&(result.pv.len() as u16).to_le_bytes());
    for mv in &result.pv {
        out.extend_from_slice(&mv.raw().to_le_bytes());
    }
    out
}

fn decode(bytes: &[u8]) -> Option<(u64, SearchResult)> {
    let mut at = 0;
    let mut take = |n: usize| {
        let part = bytes.get(at..at + n)?;
        at += n;
        Some(part)
    };
    let search = u64::from_le_bytes(take(8)?.try_into().ok()?);
    let best_move = Move::from_raw(u16::from_le_bytes(take(2)?.try_into().ok()?));
    let ponder_move = Move::from_raw(u16::from_le_bytes(take(2)?.try_into().ok()?));
    let score = i32::from_le_bytes(take(4)?.try_into().ok()?);
    let bound = match take(1)?[0] {
        0 => Bound::Exact,
        1 => Bound::Lower,
        2 => Bound::Upper,
        _ => return None,
    };
    let depth = i32::from_le_bytes(take(4)?.try_into().ok()?);
    let nodes = u64::from_le_bytes(take(8)?.try_into().ok()?);
    let moves = u16::from_le_bytes(take(2)?.try_into().ok()?) as usize;
    let pv = (0..moves)
        .map(|_| Some(Move::from_raw(u16::from_le_bytes(take(2)?.try_into().ok()?))))
        .collect::<Option<Vec<_>>>()?;
    (at == bytes.len())
        .then_some((search, SearchResult { best_move, ponder_move, score, bound, depth, nodes, pv }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nothing_follows_a_quit_to_the_followers() {
        let gate = Gate::new();
        assert!(gate.admit("go infinite"));
        assert!(gate.admit("quit now"), "the quit itself goes, extra words and all");
        assert!(!gate.admit("stop"), "the stop of the search that quit ended");
        assert!(!gate.admit("quit"), "the quit sent again at the end of the input");
        let leaving = Gate::new();
        leaving.close();
        assert!(!leaving.admit("isready"));
    }

    #[test]
    fn a_result_comes_back_as_it_was_sent_and_a_damaged_one_is_refused() {
        let result = SearchResult {
            best_move: Move::from_raw(0x1234),
            ponder_move: Move::from_raw(0x0abc),
            score: -317,
            bound: Bound::Lower,
            depth: 23,
            nodes: 9_876_543_210,
            pv: vec![Move::from_raw(0x1234), Move::from_raw(0x0abc), Move::from_raw(7)],
        };
        let bytes = encode(41, &result);
        let (search, back) = decode(&bytes).expect("readable");
        assert_eq!(search, 41);
        assert_eq!(
            (
                back.best_move,
                back.ponder_move,
                back.score,
                back.bound,
                back.depth,
                back.nodes,
                back.pv.clone()
            ),
            (result.best_move, result.ponder_move, -317, Bound::Lower, 23, 9_876_543_210, result.pv.clone())
        );
        assert!(decode(&bytes[..bytes.len() - 1]).is_none(), "cut short");
        let mut longer = bytes.clone();
        longer.push(0);
        assert!(decode(&longer).is_none(), "trailing bytes");
        let mut bad_bound = bytes;
        bad_bound[16] = 3;
        assert!(decode(&bad_bound).is_none(), "unknown bound");
    }
}
