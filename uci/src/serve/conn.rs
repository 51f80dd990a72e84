//! One client on plain TCP: `auth <secret>` as its first line, then UCI lines both ways.

use super::{refuse, Server, Slot, FAILED_AUTH_DELAY, POLL};
use crate::protocol::read_lines;
use smp::StopHandle;
use std::io::{Cursor, ErrorKind, Read, Write};
use std::net::{Shutdown, TcpStream};
use std::time::{Duration, Instant};

/// Why the first line was not a good `auth` line.
enum AuthFailure {
    /// The client said something wrong: answered after a delay.
    Wrong(&'static str),
    /// The client went quiet or away.
    Gone(&'static str),
}

/// Reads the first line before `deadline`, a few bytes at a time, and returns it with the
/// bytes that came after it.
fn read_auth_line(mut stream: &TcpStream, deadline: Instant) -> Result<(String, Vec<u8>), AuthFailure> {
    let mut line = Vec::new();
    let mut chunk = [0u8; 256];
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return Err(AuthFailure::Gone("no secret within the time allowed"));
        }
        stream.set_read_timeout(Some(left)).map_err(|_| AuthFailure::Gone("socket error"))?;
        match stream.read(&mut chunk) {
            Ok(0) => return Err(AuthFailure::Gone("closed before sending the secret")),
            Ok(n) => {
                line.extend_from_slice(&chunk[..n]);
                if let Some(end) = line.iter().position(|&b| b == b'\n') {
                    let rest = line.split_off(end + 1);
                    return Ok((String::from_utf8_lossy(&line).into_owned(), rest));
                }
                if line.len() > super::auth::MAX_AUTH_LINE {
                    return Err(AuthFailure::Wrong("a first line longer than any secret"));
                }
            }
            Err(e)
                if matches!(
                    e.kind(),
                    ErrorKind::WouldBlock | ErrorKind::TimedOut | ErrorKind::Interrupted
                ) => {}
            Err(_) => return Err(AuthFailure::Gone("connection reset before the secret")),
        }
    }
}

pub(super) fn serve(stream: TcpStream, server: &Server, who: &str, deadline: Instant, waiting: Slot<'_>) {
    let (first, rest) = match read_auth_line(&stream, deadline) {
        Ok(got) => got,
        Err(AuthFailure::Gone(why)) => {
            server.refused(who, why);
            return;
        }
        Err(AuthFailure::Wrong(why)) => {
            server.refused(who, why);
            std::thread::sleep(FAILED_AUTH_DELAY);
            return;
        }
    };
    if !server.secret.accepts(&first) {
        server.refused(who, "wrong or missing secret");
        std::thread::sleep(FAILED_AUTH_DELAY);
        return;
    }
    drop(waiting);
    let (_served, gate) = match server.admit() {
        Ok(admitted) => admitted,
        Err(why) => return refuse(server, &stream, who, &why),
    };
    let _ = stream.set_write_timeout(Some(server.limits.write_timeout));

    let (Ok(writer), Ok(closer), Ok(reading)) = (stream.try_clone(), stream.try_clone(), stream.try_clone())
    else {
        tracing::warn!("{who}: cannot share the socket between threads");
        return;
    };
    // The output's failure (a client that went away or stopped reading) closes the socket,
    // which ends the reader and with it the session.
    let who_closed = who.to_string();
    let host = server.host(Box::new(writer), gate, move || {
        tracing::warn!("{who_closed}: cannot write to the client; closing");
        let _ = closer.shutdown(Shutdown::Both);
    });
    let host = match host {
        Ok(host) => host,
        Err(why) => return refuse(server, &stream, who, &why),
    };
    if (&stream).write_all(b"authok\n").is_err() {
        return;
    }
    tracing::info!("{who}: authenticated");
    let limits = server.limits.clone();
    let who_reader = who.to_string();
    let reader = host.run("lazuli-serve-in", move |inlet| {
        let _ = reading.set_read_timeout(Some(POLL));
        let polled = Polled {
            stream: reading,
            clock: IdleClock::new(limits.idle, inlet.stop_handle()),
            timed_out: false,
        };
        let mut rate = RateLimit::new(limits.lines_per_second);
        let mut polled_input = Cursor::new(rest).chain(polled);
        read_lines(&mut polled_input, limits.max_line, |input| {
            rate.take();
            inlet.deliver(input)
        });
        if polled_input.get_ref().1.timed_out {
            tracing::info!("{who_reader}: idle for too long; closing");
        }
        // Gone or idle: nothing it started keeps running.
        inlet.hang_up();
    });
    let Ok(reader) = reader else {
        tracing::warn!("{who}: cannot start its input thread");
        return;
    };
    let _ = stream.shutdown(Shutdown::Both);
    let _ = reader.join();
    tracing::info!("{who}: closed");
}

/// Whether a client has been idle too long: nothing received for `idle` while no search of
/// its ran.
pub(super) struct IdleClock {
    idle: Option<Duration>,
    last: Instant,
    pub searching: StopHandle,
}

impl IdleClock {
    pub fn new(idle: Option<Duration>, searching: StopHandle) -> IdleClock {
        IdleClock { idle, last: Instant::now(), searching }
    }

    /// The client sent something.
    pub fn touch(&mut self) {
        self.last = Instant::now();
    }

    pub fn expired(&mut self) -> bool {
        if self.searching.is_searching() {
            self.last = Instant::now();
        }
        self.idle.is_some_and(|idle| self.last.elapsed() >= idle)
    }
}

/// The socket as the session's input: waits in steps of `POLL`, and ends the input once the
/// client is idle too long.
struct Polled {
    stream: TcpStream,
    clock: IdleClock,
    /// The input ended because the client was idle.
    timed_out: bool,
}

impl Read for Polled {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        loop {
            match self.stream.read(buf) {
                Ok(n) => {
                    self.clock.touch();
                    return Ok(n);
                }
                Err(e)
                    if matches!(
                        e.kind(),
                        ErrorKind::WouldBlock | ErrorKind::TimedOut | ErrorKind::Interrupted
                    ) =>
                {
                    if self.clock.expired() {
                        self.timed_out = true;
                        return Err(ErrorKind::TimedOut.into());
                    }
                }
                Err(e) => return Err(e),
            }
        }
    }
}

/// At most `per_second` lines a second on average, in bursts of up to a second's worth: a
/// faster client is slowed down, not cut off.
pub(super) struct RateLimit {
    per_second: f64,
    tokens: f64,
    last: Instant,
}

impl RateLimit {
    pub fn new(per_second: u32) -> RateLimit {
        let per_second = f64::from(per_second.max(1));
        RateLimit { per_second, tokens: per_second, last: Instant::now() }
    }

    /// Takes one line's token, sleeping until there is one.
    pub fn take(&mut self) {
        let now = Instant::now();
        self.tokens = (self.tokens + now.duration_since(self.last).as_secs_f64() * self.per_second)
            .min(self.per_second);
        self.last = now;
        if self.tokens < 1.0 {
            std::thread::sleep(Duration::from_secs_f64((1.0 - self.tokens) / self.per_second));
            self.tokens = 1.0;
            self.last = Instant::now();
        }
        self.tokens -= 1.0;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_rate_limit_lets_a_burst_through_then_paces() {
        let mut rate = RateLimit::new(50);
        let start = Instant::now();
        for _ in 0..50 {
            rate.take();
        }
        assert!(
            start.elapsed() < Duration::from_millis(500),
            "a second's burst waits: {:?}",
            start.elapsed()
        );
        let paced = Instant::now();
        for _ in 0..10 {
            rate.take();
        }
        // Ten more lines at 50 a second take about 0.2 s.
        assert!(paced.elapsed() >= Duration::from_millis(150), "{:?}", paced.elapsed());
    }
}
