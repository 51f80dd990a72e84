//! The UCI loop: a reader thread turns stdin into lines on a channel (so `stop`, `isready` and
//! `quit` are handled while a search runs); end of input means `quit`.

use crate::output::Output;
use crate::session::{Flow, Session};
use crossbeam_channel::unbounded;
use std::io::BufRead;
use std::time::Instant;

/// Longest input line kept; the rest of a longer line is dropped.
const MAX_LINE: usize = 1 << 20;

pub fn run_stdio() {
    let (lines, inbox) = unbounded::<(String, Instant)>();
    std::thread::Builder::new()
        .name("lazuli-stdin".into())
        .spawn(move || {
            let stdin = std::io::stdin();
            let mut reader = stdin.lock();
            let mut buffer = Vec::new();
            loop {
                buffer.clear();
                match reader.read_until(b'\n', &mut buffer) {
                    Ok(0) | Err(_) => break,
                    Ok(_) => {
                        buffer.truncate(MAX_LINE);
                        let line = String::from_utf8_lossy(&buffer).into_owned();
                        if lines.send((line, Instant::now())).is_err() {
                            return;
                        }
                    }
                }
            }
            let _ = lines.send(("quit".to_string(), Instant::now()));
        })
        .expect("spawn the input thread");

    let mut session = Session::new(Output::stdout());
    while let Ok((line, received)) = inbox.recv() {
        if session.handle_line(&line, received) == Flow::Quit {
            break;
        }
    }
}
