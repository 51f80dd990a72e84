//! One client over WebSocket on the same port (its first bytes are an HTTP `GET`): a text
//! message `auth <secret>` first, then UCI lines both ways, one message a line (a client's
//! message may also hold several lines). A ping goes out when the client has been silent for
//! `PING_EVERY`, and a client silent for `PEER_DEAD` (no pong either) is taken for gone.

use super::conn::{IdleClock, RateLimit};
use super::{Server, FAILED_AUTH_DELAY};
use crate::output::Output;
use crate::protocol::{run_session, Input, INBOX_LINES};
use crossbeam_channel::{bounded, Receiver, Sender, TryRecvError, TrySendError};
use std::collections::VecDeque;
use std::io::{ErrorKind, Write};
use std::net::TcpStream;
use std::time::{Duration, Instant};
use tungstenite::protocol::WebSocketConfig;
use tungstenite::{Error, Message, WebSocket};

/// How long the I/O loop waits on the socket before it looks at the output again.
const TICK: Duration = Duration::from_millis(20);
const PING_EVERY: Duration = Duration::from_secs(20);
const PEER_DEAD: Duration = Duration::from_secs(60);
/// Output lines queued for the client; a client that reads none fills it and is closed.
const OUTBOX_LINES: usize = 4096;
/// Input lines taken from the socket ahead of the session; past this the socket is not read
/// (the client waits) until the session catches up.
const BACKLOG_LINES: usize = 1024;

fn would_block(e: &Error) -> bool {
    matches!(e, Error::Io(io) if matches!(io.kind(), ErrorKind::WouldBlock | ErrorKind::TimedOut | ErrorKind::Interrupted))
}

/// The first text message, before `deadline`.
fn read_auth_message(ws: &mut WebSocket<TcpStream>, deadline: Instant) -> Result<String, &'static str> {
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return Err("no secret within the time allowed");
        }
        let _ = ws.get_ref().set_read_timeout(Some(left));
        match ws.read() {
            Ok(Message::Text(text)) => return Ok(text.as_str().to_string()),
            Ok(Message::Ping(_) | Message::Pong(_) | Message::Frame(_)) => {}
            Ok(Message::Binary(_)) => return Err("a binary first message"),
            Ok(Message::Close(_)) => return Err("closed before sending the secret"),
            Err(e) if would_block(&e) => {}
            Err(_) => return Err("the connection failed before the secret"),
        }
    }
}

pub(super) fn serve(stream: TcpStream, server: &Server, who: &str) {
    let started = Instant::now();
    let max_line = server.limits.max_line;
    let config = WebSocketConfig::default()
        .max_message_size(Some(max_line))
        .max_frame_size(Some(max_line))
        .max_write_buffer_size(1 << 20);
    let write_timeout = server.limits.write_timeout;
    let _ = stream.set_read_timeout(Some(server.limits.auth_timeout));
    let _ = stream.set_write_timeout(Some(write_timeout));
    let mut ws = match tungstenite::accept_with_config(stream, Some(config)) {
        Ok(ws) => ws,
        Err(e) => {
            tracing::warn!("{who}: refused: not a WebSocket handshake ({e})");
            return;
        }
    };
    let first = match read_auth_message(&mut ws, started + server.limits.auth_timeout) {
        Ok(text) => text,
        Err(why) => {
            tracing::warn!("{who}: refused: {why}");
            return;
        }
    };
    let mut first_lines = first.lines();
    if !server.secret.accepts(first_lines.next().unwrap_or_default()) {
        tracing::warn!("{who}: refused: wrong or missing secret");
        std::thread::sleep(FAILED_AUTH_DELAY);
        let _ = ws.close(None);
        let _ = ws.flush();
        return;
    }
    let Some(gate) = server.budget.admit() else {
        tracing::warn!("{who}: refused: the server's threads and hash are all in use");
        let _ = ws.send(Message::text("error the server's threads and hash are all in use"));
        let _ = ws.close(None);
        let _ = ws.flush();
        return;
    };
    if ws.send(Message::text("authok")).is_err() {
        return;
    }
    tracing::info!("{who}: authenticated (WebSocket)");

    let (outbox, outgoing) = bounded::<String>(OUTBOX_LINES);
    let out = Output::with_closed_hook(
        Box::new(LineSender { to: outbox, partial: Vec::new(), timeout: write_timeout }),
        Box::new(|| {}),
    );
    let session = server.session(out, gate);
    let stopper = session.stop_handle();
    let (lines, inbox) = bounded::<(Input, Instant)>(INBOX_LINES);
    let session_thread = std::thread::Builder::new().name("lazuli-serve-ws".into()).spawn(move || {
        run_session(session, &inbox);
    });
    let Ok(session_thread) = session_thread else {
        tracing::warn!("{who}: cannot start its session thread");
        return;
    };

    let mut backlog: VecDeque<String> = first_lines.map(str::to_string).collect();
    let why = pump(
        &mut ws,
        server,
        &mut backlog,
        &lines,
        &outgoing,
        IdleClock::new(server.limits.idle, stopper.clone()),
    );
    tracing::info!("{who}: {why}");
    // Gone, idle or done: nothing it started keeps running.
    stopper.stop();
    drop(lines);
    drop(outgoing);
    let _ = session_thread.join();
    let _ = ws.close(None);
    let _ = ws.flush();
    tracing::info!("{who}: closed");
}

/// Moves lines between the socket and the session until one side ends; returns why.
fn pump(
    ws: &mut WebSocket<TcpStream>,
    server: &Server,
    backlog: &mut VecDeque<String>,
    lines: &Sender<(Input, Instant)>,
    outgoing: &Receiver<String>,
    mut idle: IdleClock,
) -> &'static str {
    let _ = ws.get_ref().set_read_timeout(Some(TICK));
    let _ = ws.get_ref().set_write_timeout(Some(TICK));
    let stopper = idle.searching.clone();
    let mut rate = RateLimit::new(server.limits.lines_per_second);
    let (mut heard, mut written, mut pinged) = (Instant::now(), Instant::now(), Instant::now());
    let mut unflushed = false;
    loop {
        // Output first: every line the session has written, then a flush.
        loop {
            match outgoing.try_recv() {
                Ok(line) => match ws.write(Message::text(line)) {
                    Ok(()) => unflushed = true,
                    Err(Error::WriteBufferFull(_)) => {
                        if written.elapsed() > server.limits.write_timeout {
                            return "not reading its output; closing";
                        }
                        // The line is lost with the full buffer: the client reads none.
                        break;
                    }
                    Err(e) if would_block(&e) => unflushed = true,
                    Err(_) => return "connection lost",
                },
                Err(TryRecvError::Empty) => break,
                Err(TryRecvError::Disconnected) => return "session ended",
            }
        }
        if unflushed {
            match ws.flush() {
                Ok(()) => {
                    unflushed = false;
                    written = Instant::now();
                }
                Err(e) if would_block(&e) => {
                    if written.elapsed() > server.limits.write_timeout {
                        return "not reading its output; closing";
                    }
                }
                Err(_) => return "connection lost",
            }
        } else {
            written = Instant::now();
        }

        // Input the session can take.
        while let Some(line) = backlog.front() {
            if line.trim() == "stop" {
                stopper.stop();
            }
            match lines.try_send((Input::Line(line.clone()), Instant::now())) {
                Ok(()) => {
                    backlog.pop_front();
                    rate.take();
                }
                Err(TrySendError::Full(_)) => break,
                Err(TrySendError::Disconnected(_)) => return "session ended",
            }
        }
        if backlog.len() >= BACKLOG_LINES {
            std::thread::sleep(TICK);
            continue;
        }
        match ws.read() {
            Ok(Message::Text(text)) => {
                heard = Instant::now();
                idle.touch();
                backlog.extend(text.as_str().lines().map(str::to_string));
            }
            Ok(Message::Binary(bytes)) => {
                heard = Instant::now();
                idle.touch();
                backlog.extend(String::from_utf8_lossy(&bytes).lines().map(str::to_string));
            }
            Ok(Message::Close(_)) => return "closed by the client",
            Ok(_) => heard = Instant::now(),
            Err(e) if would_block(&e) => {
                if idle.expired() {
                    return "idle for too long; closing";
                }
                if heard.elapsed() > PEER_DEAD {
                    return "no answer to pings; closing";
                }
                if heard.elapsed() > PING_EVERY && pinged.elapsed() > PING_EVERY {
                    pinged = Instant::now();
                    let _ = ws.write(Message::Ping(Vec::new().into()));
                    unflushed = true;
                }
            }
            Err(Error::Capacity(_)) => return "a message longer than the server's line limit; closing",
            Err(_) => return "connection lost",
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
