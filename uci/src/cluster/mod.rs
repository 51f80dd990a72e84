//! One search over several machines (the `cluster` build, `docs/cluster.md`): one MPI process
//! (rank) per machine, each a whole engine with its own threads and table. Rank 0, the leader,
//! reads UCI, keeps the clock, prints, and sends every line it reads to the others, the
//! followers, which search on the same lines without a clock until the leader stops them and
//! then hand it their result.

mod exchange;
mod link;

use crate::command::Command;
use crate::host::Host;
use crate::input::Input;
use crate::output::Output;
use crate::protocol::{read_lines, run_or_exit, stdio_session, MAX_LINE};
use engine::search::SearchResult;
use engine::tt::TranspositionTable;
use exchange::Exchange;
use link::Link;
use mpi::traits::*;
use smp::{Peers, VoteMode};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// How long the leader waits for a follower's result after stopping it. A follower stops within
/// milliseconds; one that does not answer in this time is left out from then on.
const ANSWER_WAIT: Duration = Duration::from_secs(5);

/// The UCI loop of a cluster's process: the plain engine's when it runs alone.
pub fn run_stdio() {
    let Some((universe, threading)) = mpi::initialize_with_threading(mpi::Threading::Multiple) else {
        eprintln!("lazuli: MPI could not be initialised");
        std::process::exit(1);
    };
    if threading != mpi::Threading::Multiple {
        eprintln!("lazuli: this MPI library gives {threading:?} threading; the cluster needs Multiple");
        std::process::exit(1);
    }
    let link = Link::of_world();
    if link.size == 1 {
        crate::protocol::run_stdio();
        return;
    }
    let exchange = if link.rank == 0 { lead(link) } else { follow(link) };
    // No rank leaves MPI while another may still send it table entries.
    link::close();
    if let Some(exchange) = exchange {
        exchange.close();
    }
    let world = mpi::topology::SimpleCommunicator::world();
    world.barrier();
    link::drain();
    world.barrier();
    drop(universe);
}

fn lead(link: Link) -> Option<Arc<Exchange>> {
    let out = Output::stdout();
    let mut session = stdio_session(out.clone());
    let exchange = Exchange::start(link, Some((out.clone(), session.stop_handle())));
    session.set_peers(Arc::new(Rank::new(link, exchange.clone())));
    run_or_exit(Host::new(session, out), "lazuli-stdin", move |inlet| {
        read_lines(std::io::stdin().lock(), MAX_LINE, |input| {
            if let Input::Line(line) = &input {
                link.send_line(&line.text);
            }
            inlet.deliver(input)
        });
        // The end of the input ends every process, as `quit` does (sent once only).
        link.send_line("quit");
    });
    Some(exchange)
}

fn follow(link: Link) -> Option<Arc<Exchange>> {
    let exchange = Exchange::start(link, None);
    let out = Output::new(Box::new(std::io::sink()));
    let mut session = stdio_session(out.clone());
    session.set_peers(Arc::new(Rank::new(link, exchange.clone())));
    run_or_exit(Host::new(session, out), "lazuli-leader", move |inlet| {
        link.receive_lines(|line| match follower_line(Input::line(line)) {
            Some(input) => inlet.deliver(input),
            None => true,
        })
    });
    Some(exchange)
}

/// What a follower makes of the leader's line: every search runs without a clock or limit
/// until the leader stops it (only `searchmoves` is kept); what writes files is the leader's
/// alone (its table is the one saved). `None`: the line is not for followers.
fn follower_line(input: Input) -> Option<Input> {
    let Input::Line(line) = &input else { return Some(input) };
    match line.command() {
        Some(Command::Go(params)) => Some(Input::line(match params.searchmoves.is_empty() {
            true => "go infinite".to_string(),
            false => format!("go infinite searchmoves {}", params.searchmoves.join(" ")),
        })),
        Some(Command::SetOption { name, .. })
            if crate::options::find(name).is_some_and(|spec| spec.reach.leader_only) =>
        {
            None
        }
        _ => Some(input),
    }
}

/// This process's side of the cluster, for its engine: the same for the leader and a follower
/// but for what happens when a search ends.
struct Rank {
    link: Link,
    /// Searches finished, each matched with the other ranks' by its number.
    searches: AtomicU64,
    exchange: Arc<Exchange>,
    /// The leader's record of followers that once gave no result in time.
    gone: Vec<AtomicBool>,
}

impl Rank {
    fn new(link: Link, exchange: Arc<Exchange>) -> Rank {
        Rank {
            link,
            searches: AtomicU64::new(0),
            exchange,
            gone: (0..link.size).map(|_| AtomicBool::new(false)).collect(),
        }
    }

    /// The leader stops the followers, collects their results and votes.
    fn gather(&self, search: u64, local: SearchResult, vote: Option<VoteMode>) -> SearchResult {
        self.link.send_line("stop");
        let deadline = Instant::now() + ANSWER_WAIT;
        let mut results = vec![Some(local.clone())];
        for rank in 1..self.link.size {
            if self.gone[rank as usize].load(Ordering::Relaxed) {
                results.push(None);
                continue;
            }
            let result = self.link.receive_result(rank, search, deadline);
            if result.is_none() {
                eprintln!("lazuli: rank {rank} gave no result within {ANSWER_WAIT:?}; searching without it");
                self.gone[rank as usize].store(true, Ordering::Relaxed);
            }
            results.push(result.filter(|r| r.depth > 0));
        }
        // This rank's count already holds the others' last reports: their final counts replace them.
        let own = local.nodes.saturating_sub(self.exchange.others_reported());
        let nodes = own + results[1..].iter().flatten().map(|r| r.nodes).sum::<u64>();
        let chosen = vote.map_or(0, |mode| smp::vote::choose(&results, mode));
        let mut answer = results[chosen].take().filter(|r| !r.best_move.is_null()).unwrap_or(local);
        answer.nodes = nodes;
        answer
    }
}

impl Peers for Rank {
    fn search_on(&self, table: &Arc<TranspositionTable>) {
        self.exchange.search_on(table, self.searches.load(Ordering::SeqCst));
    }

    fn count_with(&self, counts: smp::NodeCounts) {
        self.exchange.count_with(counts);
    }

    fn finish(&self, local: SearchResult, vote: Option<VoteMode>) -> SearchResult {
        let search = self.searches.fetch_add(1, Ordering::SeqCst);
        if self.link.rank == 0 {
            return self.gather(search, local, vote);
        }
        self.link.send_result(search, &local);
        local
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What a follower is given for the leader's line `text`, as text.
    fn follower_text(text: &str) -> Option<String> {
        follower_line(Input::line(text)).map(|input| match input {
            Input::Line(line) => line.text,
            other => panic!("{other:?}"),
        })
    }

    #[test]
    fn a_follower_searches_without_a_clock_and_writes_no_file() {
        let same = |text: &str| assert_eq!(follower_text(text).as_deref(), Some(text));
        assert_eq!(follower_text("go wtime 1000 btime 900 winc 10 binc 10").as_deref(), Some("go infinite"));
        assert_eq!(follower_text("go depth 12").as_deref(), Some("go infinite"));
        assert_eq!(follower_text("go ponder movetime 300").as_deref(), Some("go infinite"));
        assert_eq!(
            follower_text("go movetime 50 searchmoves e2e4 d2d4 depth 3").as_deref(),
            Some("go infinite searchmoves e2e4 d2d4")
        );
        same("position startpos moves e2e4");
        assert_eq!(follower_text("setoption name Save Hash"), None);
        assert_eq!(follower_text("setoption name Save Hash to File"), None, "an alias too");
        assert_eq!(follower_text("setoption  name  keep HASH file value true"), None);
        assert_eq!(follower_text("setoption name Debug Log File value /tmp/x"), None);
        same("setoption name Hash value 64");
        // Every process may read the file.
        same("setoption name Load Hash");
    }
}
