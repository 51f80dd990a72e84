//! The table's sizes, saves and loads (`smp::Engine::set_hash`, `save_hash`, `load_hash`) as
//! the session tells them.

use smp::{Loaded, LoadedMemory, Saved, TableRefusal};
use std::path::Path;

/// A `Save Hash` done.
pub(super) fn saved(saved: &Saved, path: &Path) -> String {
    let Saved { mb, roots, bytes } = saved;
    let roots = searched_roots(*roots);
    format!(
        "saved the hash ({mb} MB), the search's histories and {roots}, {bytes} bytes, to '{}'",
        path.display()
    )
}

/// A `Load Hash` done.
pub(super) fn loaded(loaded: &Loaded, path: &Path) -> String {
    let Loaded { mb, was_mb, memory } = loaded;
    let what = match memory {
        LoadedMemory::Histories { roots } => {
            format!(", the search's histories and {}", searched_roots(*roots))
        }
        LoadedMemory::SharedHistories => " and the search's shared histories (a version 2 file)".to_string(),
        LoadedMemory::Nothing => " (no histories in the file)".to_string(),
        LoadedMemory::Refused => String::new(),
    };
    let resized = if mb == was_mb { String::new() } else { format!("; Hash is now {mb} MB (was {was_mb})") };
    format!("loaded the hash ({mb} MB){what} from '{}'{resized}", path.display())
}

/// Why a new `Hash` of the kept `kept_mb` (no `loading`), or the load of a file, changed nothing.
pub(super) fn refused(refusal: &TableRefusal, loading: Option<&Path>, kept_mb: usize) -> String {
    let file = loading.map(|path| path.display().to_string()).unwrap_or_default();
    match (refusal, loading) {
        (TableRefusal::NoRoom { mb, room_mb }, None) => format!(
            "{mb} MB is more memory than this machine has free ({room_mb} MB with the table's {kept_mb}); kept {kept_mb} MB"
        ),
        (TableRefusal::NoRoom { mb, room_mb }, Some(_)) => format!(
            "cannot load the hash from '{file}': it holds {mb} MB, more memory than this machine has free ({room_mb} MB); the table is kept"
        ),
        (TableRefusal::NoMemory { mb }, None) => format!("could not allocate {mb} MB for the hash table; kept {kept_mb} MB"),
        (TableRefusal::NoMemory { mb }, Some(_)) => format!("cannot allocate {mb} MB to load '{file}'; the table is kept"),
        (TableRefusal::AboveMax { mb, max_mb }, _) => format!(
            "cannot load the hash from '{file}': it holds {mb} MB, more than Hash allows ({max_mb} MB); the table is kept"
        ),
        (TableRefusal::File(why), _) => why.clone(),
    }
}

fn searched_roots(count: usize) -> String {
    format!("{count} searched root{}", if count == 1 { "" } else { "s" })
}
