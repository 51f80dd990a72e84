//! The shared secret a client must send before anything else, and how it is checked.

use std::path::Path;

/// Shortest secret accepted from a file: 32 characters, 128 bits when they are hexadecimal.
pub const MIN_SECRET_LEN: usize = 32;
/// Fewest different characters in a secret from a file: 32 random hexadecimal digits have about
/// 14, and fewer than 8 about once in 30 million draws; a repeated pattern has fewer.
pub const MIN_DIFFERENT: usize = 8;
/// Longest first line read while waiting for the secret.
pub const MAX_AUTH_LINE: usize = 512;

#[derive(Clone)]
pub struct Secret(String);

impl Secret {
    /// The first line of `path`, trimmed: at least `MIN_SECRET_LEN` printable characters.
    pub fn from_file(path: &Path) -> Result<Secret, String> {
        let name = path.display();
        if let Some(what) = engine::files::not_regular(path) {
            return Err(format!("{name}: it is {what}, not a regular file"));
        }
        let text = std::fs::read_to_string(path).map_err(|e| format!("{name}: {e}"))?;
        let secret = text.lines().next().unwrap_or_default().trim();
        if secret.len() < MIN_SECRET_LEN {
            return Err(format!("{name}: the secret must be at least {MIN_SECRET_LEN} characters"));
        }
        if !secret.bytes().all(|b| b.is_ascii_graphic()) {
            return Err(format!("{name}: the secret must be printable ASCII without spaces"));
        }
        let mut seen = [false; 128];
        secret.bytes().for_each(|b| seen[b as usize] = true);
        let different = seen.iter().filter(|&&s| s).count();
        if different < MIN_DIFFERENT {
            return Err(format!(
                "{name}: the secret has {different} different characters, fewer than {MIN_DIFFERENT}: a repeated pattern is guessed at once (make one with `openssl rand -hex 32`)"
            ));
        }
        Ok(Secret(secret.to_string()))
    }

    /// Whether the file at `path` can be read by other users than its owner (`None` where the
    /// system has no such permissions, or the file cannot be read).
    pub fn readable_by_others(path: &Path) -> Option<bool> {
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            Some(std::fs::metadata(path).ok()?.permissions().mode() & 0o077 != 0)
        }
        #[cfg(not(unix))]
        {
            let _ = path;
            None
        }
    }

    /// 256 random bits from the operating system, as 64 hexadecimal digits.
    pub fn generate() -> Result<Secret, String> {
        let mut bytes = [0u8; 32];
        getrandom::fill(&mut bytes).map_err(|e| format!("no random numbers from the system: {e}"))?;
        Ok(Secret(bytes.iter().map(|b| format!("{b:02x}")).collect()))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// Whether `line` is `auth <secret>`. The secret is compared in time that depends on the
    /// lengths only, never on where the first difference lies.
    pub fn accepts(&self, line: &str) -> bool {
        let Some(given) = line.trim_end_matches(['\r', '\n']).strip_prefix("auth ") else { return false };
        constant_time_eq(given.trim().as_bytes(), self.0.as_bytes())
    }
}

/// Compares every byte whatever the differences found; a length mismatch is still compared
/// over the longer length.
fn constant_time_eq(a: &[u8], b: &[u8]) -> bool {
    let n = a.len().max(b.len());
    let mut diff = u8::from(a.len() != b.len());
    for i in 0..n {
        let x = a.get(i).copied().unwrap_or(0);
        let y = b.get(i).copied().unwrap_or(0xff);
        diff |= x ^ y;
    }
    std::hint::black_box(diff) == 0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_exact_secret_is_accepted() {
        let secret = Secret("0123456789abcdef0123456789abcdef".into());
        assert!(secret.accepts("auth 0123456789abcdef0123456789abcdef"));
        assert!(secret.accepts("auth 0123456789abcdef0123456789abcdef\r\n"));
        for wrong in [
            "",
            "auth",
            "auth ",
            "0123456789abcdef0123456789abcdef",
            "auth 0123456789abcdef0123456789abcdeF",
            "auth 0123456789abcdef0123456789abcde",
            "auth 0123456789abcdef0123456789abcdef0",
            "uci",
        ] {
            assert!(!secret.accepts(wrong), "{wrong}");
        }
        assert!(constant_time_eq(b"", b""));
        assert!(!constant_time_eq(b"a", b""));
        assert!(!constant_time_eq(&[0xff], &[]));
    }

    #[test]
    fn generated_secrets_are_long_and_differ() {
        let (a, b) = (Secret::generate().unwrap(), Secret::generate().unwrap());
        assert_eq!(a.as_str().len(), 64);
        assert!(a.as_str().bytes().all(|c| c.is_ascii_hexdigit()));
        assert_ne!(a.as_str(), b.as_str());
    }

    #[test]
    fn a_secret_file_must_hold_a_long_printable_first_line() {
        let dir = std::env::temp_dir().join(format!("lazuli-secret-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let file = dir.join("secret");
        std::fs::write(&file, "  abcdefghijklmnopqrstuvwxyz0123456789  \nsecond line\n").unwrap();
        assert_eq!(Secret::from_file(&file).unwrap().as_str(), "abcdefghijklmnopqrstuvwxyz0123456789");
        std::fs::write(&file, "short\n").unwrap();
        assert!(Secret::from_file(&file).err().unwrap().contains("at least 32"));
        std::fs::write(&file, "abcdefghijklmnop qrstuvwxyz0123456789\n").unwrap();
        assert!(Secret::from_file(&file).is_err());
        assert!(Secret::from_file(&dir.join("missing")).is_err());
        assert!(Secret::from_file(&dir).err().unwrap().contains("not a regular file"));
        // Long but guessable: a character or a short pattern repeated.
        for weak in ["a".repeat(40), "ab".repeat(20), "abc1".repeat(10)] {
            std::fs::write(&file, format!("{weak}\n")).unwrap();
            let refused = Secret::from_file(&file).err().unwrap_or_default();
            assert!(refused.contains("different characters"), "{weak}: {refused}");
        }
        std::fs::remove_dir_all(&dir).ok();
    }
}
