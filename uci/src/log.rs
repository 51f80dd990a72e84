//! The debug log: every input and output line, with a timestamp, written with `tracing` to a file
//! named by the `Debug Log File` option or, from startup, by the `LAZULI_LOG` environment
//! variable. Never to standard output, which belongs to the protocol.
//!
//! The subscriber is installed once, the first time a log file is opened; the file behind it can
//! be changed or closed at any time (an empty name closes it). Without a file, events are
//! discarded, and before the first file no subscriber exists at all, so logging costs nothing.

use parking_lot::{const_mutex, Mutex};
use std::fs::{File, OpenOptions};
use std::io::{self, Write};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Once;
use tracing_subscriber::fmt::MakeWriter;

/// The environment variable naming a log file to open at startup.
pub const ENV_VAR: &str = "LAZULI_LOG";

static FILE: Mutex<Option<File>> = const_mutex(None);
static INSTALL: Once = Once::new();
/// `lazuli serve`: its own events (connections, refusals) also go to standard error.
static SERVER_EVENTS: AtomicBool = AtomicBool::new(false);
/// The target of the server's events (its module path).
const SERVER_TARGET: &str = "uci::serve";

/// Sends the server's events to standard error as well as to the log file, if any.
pub fn server_events_to_stderr() {
    SERVER_EVENTS.store(true, Ordering::Relaxed);
    install();
}

/// Log to `path` (appending), or stop logging when `path` is empty. On failure the previous log
/// file stays in use and the error says why.
pub fn set_file(path: &str) -> Result<(), String> {
    if path.is_empty() {
        *FILE.lock() = None;
        return Ok(());
    }
    let fail = |e: String| format!("cannot open log file '{}': {e}", crate::command::shorten(path));
    // A pipe would block the open until a reader came, a device would swallow the log.
    if let Some(what) = engine::files::not_regular(std::path::Path::new(path)) {
        return Err(fail(format!("it is {what}, not a regular file")));
    }
    let mut options = OpenOptions::new();
    options.create(true).append(true);
    #[cfg(target_os = "linux")]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.custom_flags(libc::O_NONBLOCK);
    }
    let file = options.open(path).map_err(|e| fail(e.to_string()))?;
    *FILE.lock() = Some(file);
    install();
    tracing::info!("log opened by {}", crate::version::name());
    Ok(())
}

/// Open the file `LAZULI_LOG` names, if any.
pub fn init_from_env() -> Result<(), String> {
    match std::env::var_os(ENV_VAR) {
        Some(path) if !path.is_empty() => set_file(&path.to_string_lossy()),
        _ => Ok(()),
    }
}

fn install() {
    INSTALL.call_once(|| {
        let subscriber = tracing_subscriber::fmt()
            .with_writer(Writers)
            .with_ansi(false)
            .with_target(false)
            .with_thread_names(true)
            .finish();
        // Fails only if the embedding program installed its own subscriber: then logs go there.
        let _ = tracing::subscriber::set_global_default(subscriber);
    });
}

/// Chooses, for each event, where it goes.
struct Writers;

impl<'a> MakeWriter<'a> for Writers {
    type Writer = LogWriter;

    fn make_writer(&'a self) -> LogWriter {
        LogWriter { stderr: false }
    }

    fn make_writer_for(&'a self, meta: &tracing::Metadata<'_>) -> LogWriter {
        LogWriter {
            stderr: SERVER_EVENTS.load(Ordering::Relaxed) && meta.target().starts_with(SERVER_TARGET),
        }
    }
}

/// Writes each formatted event to the current log file, if there is one, and to standard
/// error when it is one of the server's.
struct LogWriter {
    stderr: bool,
}

impl Write for LogWriter {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        if let Some(file) = FILE.lock().as_mut() {
            // A full disk must not stop the engine: the line is dropped.
            let _ = file.write_all(buf);
        }
        if self.stderr {
            let _ = io::stderr().write_all(buf);
        }
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}
