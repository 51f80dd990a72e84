//! Standard output of the command-line tools. `println!` panics when the reader has gone
//! (`lazuli "genfens 1000 seed 1 book None" | head`); these end the process instead: quietly
//! when the reader closed the pipe, since it has all it asked for, and with a message and
//! status 1 on any other write error (a full disk), so that a truncated output never looks
//! complete. The UCI loop writes through `output::Output`, which has its own rule.

use std::fmt::Arguments;
use std::io::{ErrorKind, Write};

/// Writes formatted text to standard output, or ends the process as the module says.
pub fn write(text: Arguments) {
    let mut out = std::io::stdout().lock();
    if let Err(e) = out.write_fmt(text).and_then(|()| out.flush()) {
        failed(&e);
    }
}

/// Ends the process after a write to standard output failed with `e`, as the module says.
pub fn failed(e: &std::io::Error) -> ! {
    if e.kind() == ErrorKind::BrokenPipe {
        std::process::exit(0);
    }
    let _ = writeln!(std::io::stderr(), "cannot write to standard output: {e}");
    std::process::exit(1);
}

/// `print!` through `stdout::write`.
#[macro_export]
macro_rules! out {
    ($($arg:tt)*) => { $crate::stdout::write(format_args!($($arg)*)) };
}

/// `println!` through `stdout::write`.
#[macro_export]
macro_rules! outln {
    () => { $crate::stdout::write(format_args!("\n")) };
    ($($arg:tt)*) => { $crate::stdout::write(format_args!("{}\n", format_args!($($arg)*))) };
}
