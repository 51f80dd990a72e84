//! The UCI loop, one input path: a reader thread turns the input into lines on a bounded
//! channel, answering itself only what must be answered while the session waits for a search
//! (`crate::desk`); the session handles every line in order, and is told on the same channel
//! when a search has ended. End of input means `quit`.
//!
//! Input is read in bounded chunks, so a line of gigabytes without a newline costs at most
//! `MAX_LINE` bytes of memory: the excess is discarded as it arrives and the line is reported as
//! too long once its newline (or the end of input) comes.

use crate::output::Output;
use crate::session::{Flow, Session};
use crossbeam_channel::{bounded, Receiver};
use std::io::{BufRead, BufReader, Read};
use std::time::Instant;

/// Longest input line accepted (a `position` with tens of thousands of moves fits).
pub const MAX_LINE: usize = 1 << 20;
/// Lines read ahead of the session: a writer that outpaces it (a script piping searches) is
/// held back by its pipe, and memory stays bounded.
pub const INBOX_LINES: usize = 64;
/// Bytes read from the input at a time.
const CHUNK: usize = 64 << 10;

pub use crate::input::Input;

pub fn run_stdio() {
    run_lines(Output::stdout(), |_| {}, |deliver| read_lines(std::io::stdin().lock(), MAX_LINE, deliver));
}

/// The UCI loop over the input `read` hands to `deliver` on its own thread, answered on `out`;
/// `prepare` sets the session up before the first line.
pub fn run_lines<R>(out: Output, prepare: impl FnOnce(&mut Session), read: R)
where
    R: FnOnce(&mut dyn FnMut(Input) -> bool) + Send + 'static,
{
    if let Err(e) = crate::log::init_from_env() {
        eprintln!("{e}");
    }
    let (lines, inbox) = bounded::<(Input, Instant)>(INBOX_LINES);
    let mut session = Session::new(out.clone());
    session.set_inbox(lines.clone());
    prepare(&mut session);
    session.report_kernel_selection();
    let desk = session.front_desk(out);
    let reader = std::thread::Builder::new().name("lazuli-stdin".into()).spawn(move || {
        // Woken by `stop` while every core is busy searching: ask to run at once.
        let short_slice = crate::sched::request_short_slice();
        tracing::info!("input thread granted a short time slice: {short_slice}");
        read(&mut |input| {
            let received = Instant::now();
            desk.answers(&input) || lines.send((input, received)).is_ok()
        });
        let _ = lines.send((Input::line("quit"), Instant::now()));
    });
    if let Err(e) = reader {
        // Nothing can be read without it: say so and end, rather than panic.
        eprintln!("lazuli: the system refused the input thread: {e}");
        std::process::exit(1);
    }
    run_session(session, &inbox);
}

/// Feeds `session` the lines from `inbox`, in order, until `quit` or until the inbox closes.
pub fn run_session(mut session: Session, inbox: &Receiver<(Input, Instant)>) {
    for (input, received) in inbox {
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
}

/// Split `input` into lines of at most `max_line` bytes (without the newline; invalid UTF-8
/// replaced), handing each to `deliver` until it returns false or the input ends. A final line
/// without a newline is delivered too. Read errors end the input.
pub fn read_lines(input: impl Read, max_line: usize, mut deliver: impl FnMut(Input) -> bool) {
    let mut reader = BufReader::with_capacity(CHUNK, input);
    let mut line = Vec::new();
    // Bytes of the current line beyond what `line` holds (the line is too long when non-zero).
    let mut dropped: u64 = 0;
    let mut finish = |line: &mut Vec<u8>, dropped: &mut u64| {
        let input = if *dropped > 0 {
            Input::TooLong(line.len() as u64 + *dropped, max_line)
        } else {
            Input::line(String::from_utf8_lossy(line).into_owned())
        };
        line.clear();
        *dropped = 0;
        deliver(input)
    };
    loop {
        let chunk = match reader.fill_buf() {
            Ok([]) => break,
            Ok(chunk) => chunk,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(_) => break,
        };
        let (part, newline) = match chunk.iter().position(|&b| b == b'\n') {
            Some(at) => (&chunk[..at], true),
            None => (chunk, false),
        };
        let room = max_line.saturating_sub(line.len());
        if dropped == 0 && part.len() <= room {
            line.extend_from_slice(part);
        } else {
            dropped += part.len() as u64;
        }
        let used = part.len() + usize::from(newline);
        reader.consume(used);
        if newline && !finish(&mut line, &mut dropped) {
            return;
        }
    }
    if !line.is_empty() || dropped > 0 {
        finish(&mut line, &mut dropped);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lines_of(input: &[u8], max_line: usize) -> Vec<Input> {
        let mut seen = Vec::new();
        read_lines(input, max_line, |i| {
            seen.push(i);
            true
        });
        seen
    }

    #[test]
    fn splits_lines_and_keeps_the_last_unterminated_one() {
        assert_eq!(
            lines_of(b"uci\r\nisready\n\nquit", 100),
            vec![
                Input::line("uci\r"),
                Input::line("isready"),
                Input::line(String::new()),
                Input::line("quit")
            ]
        );
    }

    #[test]
    fn over_long_lines_are_dropped_and_measured() {
        let mut input = vec![b'x'; 300_000];
        input.extend_from_slice(b"\nisready\n");
        input.extend(std::iter::repeat_n(b'y', 200_001));
        assert_eq!(
            lines_of(&input, 1000),
            vec![Input::TooLong(300_000, 1000), Input::line("isready"), Input::TooLong(200_001, 1000)]
        );
        // Exactly at the limit is fine.
        assert_eq!(lines_of(b"abcd\n", 4), vec![Input::line("abcd")]);
        assert_eq!(lines_of(b"abcde\n", 4), vec![Input::TooLong(5, 4)]);
    }

    #[test]
    fn invalid_utf8_is_replaced() {
        assert_eq!(lines_of(b"go \xff\xfe\n", 100), vec![Input::line("go \u{fffd}\u{fffd}")]);
    }

    #[test]
    fn a_huge_stream_without_newline_uses_bounded_memory() {
        /// An endless-looking reader producing `left` bytes of 'z' and no newline.
        struct Endless {
            left: u64,
        }
        impl Read for Endless {
            fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
                let n = (buf.len() as u64).min(self.left) as usize;
                buf[..n].fill(b'z');
                self.left -= n as u64;
                Ok(n)
            }
        }
        let mut seen = Vec::new();
        read_lines(Endless { left: 3 << 30 }, MAX_LINE, |i| {
            seen.push(i);
            true
        });
        assert_eq!(seen, vec![Input::TooLong(3 << 30, MAX_LINE)]);
    }
}
