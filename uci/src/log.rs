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
use std::sync::Once;

/// The environment variable naming a log file to open at startup.
pub const ENV_VAR: &str = "LAZULI_LOG";

static FILE: Mutex<Option<File>> = const_mutex(None);
static INSTALL: Once = Once::new();

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
            .with_writer(|| LogWriter)
            .with_ansi(false)
            .with_target(false)
            .with_thread_names(true)
            .finish();
        // Fails only if the embedding program installed its own subscriber: then logs go there.
        let _ = tracing::subscriber::set_global_default(subscriber);
    });
}

/// Writes each formatted event to the current log file, if there is one.
struct LogWriter;

impl Write for LogWriter {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        if let Some(file) = FILE.lock().as_mut() {
            // A full disk must not stop the engine: the line is dropped.
            let _ = file.write_all(buf);
        }
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}
