//! UCI on standard input and output, hosted as every front end is (`crate::host`), and the
//! reader that splits any input into lines.
//!
//! Input is read in bounded chunks, so a line of gigabytes without a newline costs at most
//! `MAX_LINE` bytes of memory: the excess is discarded as it arrives and the line is reported as
//! too long once its newline (or the end of input) comes.

use crate::host::Host;
use crate::output::Output;
use crate::session::Session;
use std::io::{BufRead, BufReader, Read};

/// Longest input line accepted (a `position` with tens of thousands of moves fits).
pub const MAX_LINE: usize = 1 << 20;
/// Bytes read from the input at a time.
const CHUNK: usize = 64 << 10;

pub use crate::input::Input;

pub fn run_stdio() {
    let out = Output::stdout();
    let host = Host::new(stdio_session(out.clone()), out);
    run_or_exit(host, "lazuli-stdin", |inlet| {
        read_lines(std::io::stdin().lock(), MAX_LINE, |input| inlet.deliver(input));
    });
}

/// The session of a process that speaks UCI on standard output, logging as the environment
/// says (`crate::log`).
pub fn stdio_session(out: Output) -> Session {
    if let Err(e) = crate::log::init_from_env() {
        eprintln!("{e}");
    }
    let mut session = Session::new(out);
    session.report_kernel_selection();
    session
}

/// Runs `host` with `source` on a thread named `name` (`Host::run`); the process ends if the
/// system refuses that thread.
pub fn run_or_exit(host: Host, name: &str, source: impl FnOnce(&crate::host::Inlet) + Send + 'static) {
    if let Err(e) = host.run(name, source) {
        // Nothing can be read without it: say so and end, rather than panic.
        eprintln!("lazuli: the system refused the input thread: {e}");
        std::process::exit(1);
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
