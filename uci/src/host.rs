//! One hosting loop for every front end. Standard input, a TCP client, a WebSocket client and a
//! cluster's ranks are line sources: each runs on a thread of its own and hands its input to an
//! [`Inlet`], where the desk answers what cannot wait (`crate::desk`) and the rest goes, in
//! order, to the session on the host's thread. The end of the input is `quit`.

use crate::desk::FrontDesk;
use crate::input::Input;
use crate::output::Output;
use crate::session::{Flow, Session};
use crossbeam_channel::{unbounded, Receiver, Sender, TrySendError};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::Instant;

/// What the input read ahead of the session may weigh (`weight`): a writer that outpaces it by
/// more (a script piping searches) is held back, and memory stays bounded. Until then the desk
/// reads every line as it comes, so a `stop`, `quit` or `isready` behind many queued lines acts
/// at once.
pub const INBOX_BYTES: usize = 16 << 20;

/// An input and when it was read.
pub type Arrival = (Input, Instant);

/// A session with its inbox, ready to be fed by a line source.
pub struct Host {
    session: Session,
    inbox: Receiver<Arrival>,
    inlet: Inlet,
}

/// Where a line source hands its input: the desk first, then the session's inbox.
#[derive(Clone)]
pub struct Inlet {
    desk: FrontDesk,
    lines: Sender<Arrival>,
    /// The weight of the input in the inbox (`INBOX_BYTES`).
    queued: Arc<AtomicUsize>,
    /// The session has handled its last line.
    ended: Arc<AtomicBool>,
}

impl Host {
    /// `session`, answering on `out`, fed through the inlet from now on.
    pub fn new(mut session: Session, out: Output) -> Host {
        let (lines, inbox) = unbounded();
        session.set_inbox(lines.clone());
        let desk = session.front_desk(out);
        let inlet = Inlet { desk, lines, queued: Arc::default(), ended: Arc::default() };
        Host { session, inbox, inlet }
    }

    pub fn inlet(&self) -> Inlet {
        self.inlet.clone()
    }

    /// Runs `source` on a thread named `name` and the session on this one, until the session
    /// quits; the input's end (`source` returning) is `quit`. Returns the source's thread, still
    /// running if it waits for input that will not come (standard input). Fails, running
    /// nothing, when the system refuses the thread.
    pub fn run(
        self,
        name: &str,
        source: impl FnOnce(&Inlet) + Send + 'static,
    ) -> std::io::Result<JoinHandle<()>> {
        let inlet = self.inlet();
        let reader = std::thread::Builder::new().name(name.into()).spawn(move || {
            // Woken by `stop` while every core is busy searching: ask to run at once.
            let short_slice = crate::sched::request_short_slice();
            tracing::info!("input thread granted a short time slice: {short_slice}");
            source(&inlet);
            inlet.end();
        })?;
        self.serve();
        Ok(reader)
    }

    /// Feeds the session its input, in order, until `quit` or until every inlet is gone.
    pub fn serve(self) {
        let Host { mut session, inbox, inlet } = self;
        for (input, received) in &inbox {
            inlet.queued.fetch_sub(weight(&input), Ordering::SeqCst);
            let flow = match input {
                Input::Line(line) => session.handle_line(*line, received),
                Input::TooLong(bytes, limit) => {
                    session.report_long_line(bytes, limit);
                    Flow::Continue
                }
                Input::SearchEnded => {
                    session.search_ended();
                    Flow::Continue
                }
            };
            if flow == Flow::Quit {
                break;
            }
        }
        inlet.ended.store(true, Ordering::SeqCst);
    }
}

/// What an input in the inbox costs in memory, about: a line twice over (its text and what it
/// was parsed into) and a fixed part for its place in the queue.
fn weight(input: &Input) -> usize {
    match input {
        Input::Line(line) => 2 * line.text.len() + 128,
        Input::TooLong(..) => 128,
        Input::SearchEnded => 0,
    }
}

impl Inlet {
    /// Hands `input` to the session, waiting for room in its inbox; false once the session has
    /// ended.
    pub fn deliver(&self, input: Input) -> bool {
        let Some(mut arrival) = self.admit(input) else { return true };
        loop {
            match self.offer(arrival) {
                Ok(()) => return true,
                Err(TrySendError::Full(back)) => arrival = back,
                Err(TrySendError::Disconnected(_)) => return false,
            }
            std::thread::sleep(std::time::Duration::from_millis(1));
        }
    }

    /// The desk's turn, the moment `input` is read: what it answered itself (`None`) is done;
    /// the rest is for the session, through [`Inlet::offer`].
    pub fn admit(&self, input: Input) -> Option<Arrival> {
        let received = Instant::now();
        (!self.desk.answers(&input)).then_some((input, received))
    }

    /// Hands an admitted input to the session if its inbox has room (an empty inbox takes any
    /// line); else gives it back.
    pub fn offer(&self, arrival: Arrival) -> Result<(), TrySendError<Arrival>> {
        let weight = weight(&arrival.0);
        let queued = self.queued.load(Ordering::SeqCst);
        if queued > 0 && queued + weight > INBOX_BYTES {
            return Err(TrySendError::Full(arrival));
        }
        self.queued.fetch_add(weight, Ordering::SeqCst);
        self.lines.send(arrival).map_err(|e| {
            self.queued.fetch_sub(weight, Ordering::SeqCst);
            TrySendError::Disconnected(e.0)
        })
    }

    /// The input has ended: the session quits once it has handled what came before.
    pub fn end(&self) {
        let _ = self.lines.send((Input::line("quit"), Instant::now()));
    }

    /// The client has gone: the session ends what it runs and quits (`FrontDesk::hang_up`).
    pub fn hang_up(&self) {
        self.desk.hang_up();
    }

    /// The handle that stops the session's searches and tells whether one runs.
    pub fn stop_handle(&self) -> smp::StopHandle {
        self.desk.stop_handle()
    }

    /// Whether the session has handled its last line.
    pub fn session_ended(&self) -> bool {
        self.ended.load(Ordering::SeqCst)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_inbox_takes_input_up_to_its_weight_then_gives_it_back() {
        let host = Host::new(
            Session::new(Output::new(Box::new(std::io::sink()))),
            Output::new(Box::new(std::io::sink())),
        );
        let inlet = host.inlet();
        let long = || (Input::line(format!("debug off{}", " ".repeat(1 << 20))), Instant::now());
        let mut taken = 0;
        while inlet.offer(long()).is_ok() {
            taken += 1;
            assert!(taken <= 8, "took more than {INBOX_BYTES} bytes");
        }
        assert_eq!(taken, 7, "each line weighs twice its 1 MB");
        // The session takes one: there is room for one more.
        let (first, _) = host.inbox.recv().expect("queued");
        host.inlet.queued.fetch_sub(weight(&first), Ordering::SeqCst);
        assert!(inlet.offer(long()).is_ok());
        assert!(matches!(inlet.offer(long()), Err(TrySendError::Full(_))));
    }
}
