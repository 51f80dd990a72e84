//! One client over WebSocket on the same port (its first bytes are an HTTP `GET`): a text
//! message `auth <secret>` first, then UCI lines both ways, one message a line (a client's
//! message may also hold several lines). A ping goes out when the client has been silent for
//! `PING_EVERY`, and a client silent for `PEER_DEAD` (no pong either) is taken for gone.

use super::conn::{IdleClock, RateLimit};
use super::{InputLimits, Server, Slot, FAILED_AUTH_DELAY};
use crate::host::{Arrival, Inlet};
use crate::input::Input;
use crossbeam_channel::{bounded, Receiver, Sender, TrySendError};
use std::collections::VecDeque;
use std::io::{ErrorKind, Read, Write};
use std::net::TcpStream;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};
use tungstenite::protocol::WebSocketConfig;
use tungstenite::{Error, Message, WebSocket};

/// How long the I/O loop waits on the socket before it looks at the output again.
const TICK: Duration = Duration::from_millis(5);
const PING_EVERY: Duration = Duration::from_secs(20);
const PEER_DEAD: Duration = Duration::from_secs(60);
/// Output lines queued for the client; a client that reads none fills it and is closed.
const OUTBOX_LINES: usize = 4096;
/// Input lines taken from the socket ahead of the session; past this many, or past
/// `BACKLOG_LINES_OF` longest lines' bytes, the socket is not read (the client waits) until the
/// session catches up.
const BACKLOG_LINES: usize = 1024;
const BACKLOG_LINES_OF: usize = 4;
/// Output bytes the WebSocket may hold for a client that reads slowly; past it, output waits.
const MAX_WRITE_BUFFER: usize = 256 << 10;

/// The socket, with one deadline for every read and write until the client has shown its secret
/// (a per-read time-out would let a client that sends a byte now and then hold on for ever, and
/// one that sends pings and never reads would hold on in the writes of their pongs).
struct Timed {
    stream: TcpStream,
    deadline: Option<Instant>,
}

impl Timed {
    /// The time left before the deadline, if there is one; an error once it has passed.
    fn left(&self) -> std::io::Result<Option<Duration>> {
        match self.deadline.map(|deadline| deadline.saturating_duration_since(Instant::now())) {
            Some(left) if left.is_zero() => Err(ErrorKind::TimedOut.into()),
            left => Ok(left),
        }
    }
}

impl Read for Timed {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        if let Some(left) = self.left()? {
            self.stream.set_read_timeout(Some(left))?;
        }
        self.stream.read(buf)
    }
}

impl Write for Timed {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        if let Some(left) = self.left()? {
            self.stream.set_write_timeout(Some(left))?;
        }
        self.stream.write(buf)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.stream.flush()
    }
}

fn would_block(e: &Error) -> bool {
    matches!(e, Error::Io(io) if matches!(io.kind(), ErrorKind::WouldBlock | ErrorKind::TimedOut | ErrorKind::Interrupted))
}

/// The first text message, before the stream's deadline.
fn read_auth_message(ws: &mut WebSocket<Timed>) -> Result<String, &'static str> {
    loop {
        match ws.read() {
            Ok(Message::Text(text)) => return Ok(text.as_str().to_string()),
            Ok(Message::Ping(_) | Message::Pong(_) | Message::Frame(_)) => {}
            Ok(Message::Binary(_)) => return Err("a binary first message"),
            Ok(Message::Close(_)) => return Err("closed before sending the secret"),
            Err(e) if would_block(&e) => return Err("no secret within the time allowed"),
            Err(_) => return Err("the connection failed before the secret"),
        }
    }
}

pub(super) fn serve(stream: TcpStream, server: &Server, who: &str, deadline: Instant, waiting: Slot<'_>) {
    let max_line = server.limits.max_line;
    let config = WebSocketConfig::default()
        .max_message_size(Some(max_line))
        .max_frame_size(Some(max_line))
        .write_buffer_size(0)
        .max_write_buffer_size(MAX_WRITE_BUFFER);
    let write_timeout = server.limits.write_timeout;
    let _ = stream.set_write_timeout(Some(write_timeout));
    let timed = Timed { stream, deadline: Some(deadline) };
    let mut ws = match tungstenite::accept_with_config(timed, Some(config)) {
        Ok(ws) => ws,
        Err(e) => {
            server.refused(who, &format!("not a WebSocket handshake ({e})"));
            return;
        }
    };
    let first = match read_auth_message(&mut ws) {
        Ok(text) => text,
        Err(why) => {
            server.refused(who, why);
            return;
        }
    };
    let mut first_lines = first.lines();
    if !server.secret.accepts(first_lines.next().unwrap_or_default()) {
        server.refused(who, "wrong or missing secret");
        std::thread::sleep(FAILED_AUTH_DELAY);
        let _ = ws.close(None);
        let _ = ws.flush();
        return;
    }
    ws.get_mut().deadline = None;
    let _ = ws.get_ref().stream.set_write_timeout(Some(write_timeout));
    drop(waiting);
    let (_served, gate) = match server.admit() {
        Ok(admitted) => admitted,
        Err(why) => return refuse_ws(server, &mut ws, who, &why),
    };

    let (outbox, outgoing) = bounded::<String>(OUTBOX_LINES);
    // The output's failure (a client that reads nothing for `write_timeout`) tells the I/O loop
    // to close.
    let failed = Arc::new(AtomicBool::new(false));
    let failed_here = Arc::clone(&failed);
    let sender = LineSender { to: outbox, partial: Vec::new(), timeout: write_timeout };
    let host = match server.host(Box::new(sender), gate, move || failed_here.store(true, Ordering::SeqCst)) {
        Ok(host) => host,
        Err(why) => return refuse_ws(server, &mut ws, who, &why),
    };
    if ws.send(Message::text("authok")).is_err() {
        return;
    }
    tracing::info!("{who}: authenticated (WebSocket)");
    let limits = server.limits.clone();
    let first_lines: Vec<String> = first_lines.map(str::to_string).collect();
    let who_pump = who.to_string();
    let pump_thread = host.run("lazuli-serve-ws", move |inlet| {
        let why = pump(&mut ws, &limits, first_lines, inlet, &outgoing, &failed);
        tracing::info!("{who_pump}: {why}");
        // Gone, idle or done: nothing it started keeps running.
        inlet.hang_up();
        let _ = ws.close(None);
        let _ = ws.flush();
    });
    match pump_thread {
        Ok(pump_thread) => {
            let _ = pump_thread.join();
            tracing::info!("{who}: closed");
        }
        Err(_) => tracing::warn!("{who}: cannot start its I/O thread"),
    }
}

/// Tells a client that showed the secret why it is not served, in one message, and closes.
fn refuse_ws(server: &Server, ws: &mut WebSocket<Timed>, who: &str, why: &str) {
    server.refused(who, why);
    let _ = ws.send(Message::text(format!("error {why}")));
    let _ = ws.close(None);
    let _ = ws.flush();
}

/// Input read from the client and admitted by the desk, waiting for room in the session's
/// inbox, with its size in bytes.
#[derive(Default)]
struct Backlog {
    waiting: VecDeque<Arrival>,
    bytes: usize,
}

impl Backlog {
    /// Reads the lines of `text` in, at the client's allowed rate: the desk sees each as it
    /// arrives (`stop` acts at once).
    fn read(&mut self, text: &str, inlet: &Inlet, rate: &mut RateLimit) {
        for line in text.lines() {
            rate.take();
            if let Some(arrival) = inlet.admit(Input::line(line)) {
                self.bytes += line.len();
                self.waiting.push_back(arrival);
            }
        }
    }

    /// Hands the session what its inbox has room for; false once the session has gone.
    fn offer(&mut self, inlet: &Inlet) -> bool {
        while let Some(arrival) = self.waiting.pop_front() {
            let bytes = match &arrival.0 {
                Input::Line(line) => line.text.len(),
                _ => 0,
            };
            match inlet.offer(arrival) {
                Ok(()) => self.bytes -= bytes,
                Err(TrySendError::Full(arrival)) => {
                    self.waiting.push_front(arrival);
                    break;
                }
                Err(TrySendError::Disconnected(_)) => return false,
            }
        }
        true
    }
}

/// Moves lines between the socket and the session until one side ends; returns why.
fn pump(
    ws: &mut WebSocket<Timed>,
    limits: &InputLimits,
    first_lines: Vec<String>,
    inlet: &Inlet,
    outgoing: &Receiver<String>,
    output_failed: &AtomicBool,
) -> &'static str {
    let _ = ws.get_ref().stream.set_read_timeout(Some(TICK));
    let _ = ws.get_ref().stream.set_write_timeout(Some(TICK));
    let max_backlog_bytes = BACKLOG_LINES_OF * limits.max_line;
    let mut rate = RateLimit::new(limits.lines_per_second);
    let mut idle = IdleClock::new(limits.idle, inlet.stop_handle());
    let mut backlog = Backlog::default();
    backlog.read(&first_lines.join("\n"), inlet, &mut rate);
    let (mut heard, mut written, mut pinged) = (Instant::now(), Instant::now(), Instant::now());
    // A message the WebSocket's full buffer refused, sent before any other.
    let mut waiting: Option<Message> = None;
    loop {
        if output_failed.load(Ordering::SeqCst) {
            return "not reading its output; closing";
        }
        // Read before the output is drained: all the session wrote before it ended goes out.
        let session_ended = inlet.session_ended();
        // Output first: what waits, then every line the session has written, then a flush.
        loop {
            let message = match waiting.take() {
                Some(message) => message,
                None => match outgoing.try_recv() {
                    Ok(line) => Message::text(line),
                    Err(_) => break,
                },
            };
            match ws.write(message) {
                Ok(()) => {}
                Err(Error::WriteBufferFull(message)) => {
                    waiting = Some(*message);
                    break;
                }
                Err(e) if would_block(&e) => {}
                Err(_) => return "connection lost",
            }
        }
        match ws.flush() {
            Ok(()) => written = Instant::now(),
            Err(e) if would_block(&e) => {}
            Err(_) => return "connection lost",
        }
        if waiting.is_some() && written.elapsed() > limits.write_timeout {
            return "not reading its output; closing";
        }
        if session_ended && waiting.is_none() {
            return "session ended";
        }

        // Input the session can take.
        if !backlog.offer(inlet) {
            return "session ended";
        }
        if backlog.waiting.len() >= BACKLOG_LINES || backlog.bytes >= max_backlog_bytes {
            // The client waits; its silence meanwhile is not its fault.
            heard = Instant::now();
            idle.touch();
            std::thread::sleep(TICK);
            continue;
        }
        match ws.read() {
            Ok(Message::Text(text)) => {
                heard = Instant::now();
                idle.touch();
                backlog.read(text.as_str(), inlet, &mut rate);
            }
            Ok(Message::Binary(bytes)) => {
                heard = Instant::now();
                idle.touch();
                backlog.read(&String::from_utf8_lossy(&bytes), inlet, &mut rate);
            }
            Ok(Message::Close(_)) => return "closed by the client",
            Ok(_) => heard = Instant::now(),
            Err(e) if would_block(&e) => {
                if heard.elapsed() > PEER_DEAD {
                    return "no answer to pings; closing";
                }
                if heard.elapsed() > PING_EVERY && pinged.elapsed() > PING_EVERY {
                    pinged = Instant::now();
                    let _ = ws.write(Message::Ping(Vec::new().into()));
                }
            }
            Err(Error::Capacity(_)) => return "a message longer than the server's line limit; closing",
            Err(_) => return "connection lost",
        }
        if idle.expired() {
            return "idle for too long; closing";
        }
    }
}

/// The session's output as messages: each whole line goes to the I/O loop's queue, waiting
/// at most `timeout` for room.
struct LineSender {
    to: Sender<String>,
    partial: Vec<u8>,
    timeout: Duration,
}

impl Write for LineSender {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.partial.extend_from_slice(buf);
        while let Some(end) = self.partial.iter().position(|&b| b == b'\n') {
            let rest = self.partial.split_off(end + 1);
            let line = String::from_utf8_lossy(&self.partial[..end]).trim_end_matches('\r').to_string();
            self.partial = rest;
            self.to
                .send_timeout(line, self.timeout)
                .map_err(|_| std::io::Error::from(ErrorKind::BrokenPipe))?;
        }
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}
