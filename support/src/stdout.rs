//! Standard output of the command-line programs. `println!` panics when the reader has gone
//! (`lazuli "genfens 1000 seed 1 book None" | head`, `lazuli-train info net.lznn | head -1`);
//! these end the process instead: quietly when the reader closed the pipe, since it has all it
//! asked for, and with a message and status 1 on any other write error (a full disk), so that a
//! truncated output never looks complete. The UCI loop writes through its own `Output`, which
//! has its own rule.

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
    let _ = writeln!(std::io::stderr(), "{}", failure_message(program().as_deref(), e));
    std::process::exit(1);
}

/// The running program's name, as it was invoked without its directory (`lazuli-train`), so that
/// the message says which program of a pipeline failed.
fn program() -> Option<String> {
    let first = std::env::args_os().next()?;
    let name = std::path::Path::new(&first).file_name()?.to_string_lossy().into_owned();
    (!name.is_empty()).then_some(name)
}

fn failure_message(program: Option<&str>, e: &std::io::Error) -> String {
    match program {
        Some(name) => format!("{name}: cannot write to standard output: {e}"),
        None => format!("cannot write to standard output: {e}"),
    }
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_message_names_the_program_when_known() {
        let e = std::io::Error::from(ErrorKind::StorageFull);
        let named = failure_message(Some("lazuli-train"), &e);
        assert!(named.starts_with("lazuli-train: cannot write to standard output: "), "{named}");
        let bare = failure_message(None, &e);
        assert!(bare.starts_with("cannot write to standard output: "), "{bare}");
    }
}
