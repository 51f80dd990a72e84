//! Opening the files a user names (a network, a saved table) without ever waiting on them.
//!
//! `open` on a named pipe blocks until another process opens its other end, and a device such
//! as `/dev/zero` never ends: either would hang the engine inside `setoption`, with `isready`
//! unanswered. Only regular files are read. The path is checked before it is opened, the open
//! itself does not block (so a pipe swapped in between the two cannot hang it either), and the
//! opened file is checked again.

use std::fs::{File, FileType, OpenOptions};
use std::io::{Error, ErrorKind};
use std::path::Path;

/// What a file type is, in words, when it is not a regular file.
fn describe(kind: FileType) -> Option<&'static str> {
    if kind.is_file() {
        return None;
    }
    if kind.is_dir() {
        return Some("a directory");
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if kind.is_fifo() {
            return Some("a named pipe");
        }
        if kind.is_socket() {
            return Some("a socket");
        }
        if kind.is_char_device() || kind.is_block_device() {
            return Some("a device");
        }
    }
    Some("not a file")
}

fn refusal(what: &str) -> Error {
    Error::new(ErrorKind::InvalidInput, format!("it is {what}, not a regular file"))
}

/// Whether `path` names something other than a regular file (following links), and what:
/// `None` for a regular file or a path that does not exist.
pub fn not_regular(path: &Path) -> Option<&'static str> {
    std::fs::metadata(path).ok().and_then(|meta| describe(meta.file_type()))
}

/// Open a regular file for reading; anything else is refused with an error that says what it is.
pub fn open_regular(path: &Path) -> std::io::Result<File> {
    if let Some(what) = not_regular(path) {
        return Err(refusal(what));
    }
    let mut options = OpenOptions::new();
    options.read(true);
    #[cfg(target_os = "linux")]
    {
        use std::os::unix::fs::OpenOptionsExt;
        // Reads of a regular file ignore the flag; it only keeps the open from waiting.
        options.custom_flags(libc::O_NONBLOCK);
    }
    let file = options.open(path)?;
    match describe(file.metadata()?.file_type()) {
        Some(what) => Err(refusal(what)),
        None => Ok(file),
    }
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;

    #[test]
    fn only_regular_files_are_opened() {
        let dir = std::env::temp_dir().join(format!("lazuli-files-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let file = dir.join("plain");
        std::fs::write(&file, b"data").unwrap();
        assert!(open_regular(&file).is_ok());
        assert_eq!(not_regular(&file), None);
        assert_eq!(not_regular(&dir.join("missing")), None);
        assert!(open_regular(&dir.join("missing")).unwrap_err().kind() == ErrorKind::NotFound);
        let error = open_regular(&dir).unwrap_err().to_string();
        assert!(error.contains("a directory, not a regular file"), "{error}");
        let error = open_regular(Path::new("/dev/zero")).unwrap_err().to_string();
        assert!(error.contains("a device"), "{error}");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
