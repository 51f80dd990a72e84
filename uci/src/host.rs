//! One hosting loop for every front end. Standard input, a TCP client, a WebSocket client and a
//! cluster's ranks are line sources: each runs on a thread of its own and hands its input to an
//! [`Inlet`], where the desk answers what cannot wait (`crate::desk`) and the rest goes, in
//! order, to the session on the host's thread. The end of the input is `quit`.

use crate::desk::FrontDesk;
use crate::input::Input;
use crate::output::Output;
use crate::session::{Flow, Session};
use crossbeam_channel::{bounded, Receiver, Sender, TrySendError};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::Instant;

/// Lines read ahead of the session: a writer that outpaces it (a script piping searches) is
/// held back, and memory stays bounded.
pub const INBOX_LINES: usize = 64;

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
    /// The session has handled its last line.
    ended: Arc<AtomicBool>,
}

impl Host {
    /// `session`, answering on `out`, fed through the inlet from now on.
    pub fn new(mut session: Session, out: Output) -> Host {
        let (lines, inbox) = bounded(INBOX_LINES);
        session.set_inbox(lines.clone());
        let desk = session.front_desk(out);
        Host { session, inbox, inlet: Inlet { desk, lines, ended: Arc::default() } }
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

impl Inlet {
    /// Hands `input` to the session, waiting for room in its inbox; false once the session has
    /// ended.
    pub fn deliver(&self, input: Input) -> bool {
        match self.admit(input) {
            Some(arrival) => self.lines.send(arrival).is_ok(),
            None => true,
        }
    }

    /// The desk's turn, the moment `input` is read: what it answered itself (`None`) is done;
    /// the rest is for the session, through [`Inlet::offer`].
    pub fn admit(&self, input: Input) -> Option<Arrival> {
        let received = Instant::now();
        (!self.desk.answers(&input)).then_some((input, received))
    }

    /// Hands an admitted input to the session if its inbox has room; else gives it back.
    pub fn offer(&self, arrival: Arrival) -> Result<(), TrySendError<Arrival>> {
        self.lines.try_send(arrival)
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
