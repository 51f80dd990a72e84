//! `lazuli serve`: the engine for clients on other machines, one session per connection, over
//! plain TCP lines or WebSocket on one port (told apart by the first byte: a WebSocket client
//! opens with an HTTP `GET`). Design and threat model: docs/serve.md.

mod auth;
mod conn;
mod limits;
mod websocket;

pub use auth::Secret;
pub use limits::{Budget, Rules, FILE_OPTIONS, SHARED_OPTIONS};

use crate::output::Output;
use crate::session::Session;
use std::io::Write;
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// The address served when none is given: this machine only.
pub const DEFAULT_LISTEN: &str = "127.0.0.1:9510";
/// Wait before closing on a wrong secret, which slows down guessing.
pub const FAILED_AUTH_DELAY: Duration = Duration::from_secs(1);
/// How often a waiting reader looks at the idle clock.
const POLL: Duration = Duration::from_millis(500);

/// What each connection's input may be.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InputLimits {
    pub max_line: usize,
    pub lines_per_second: u32,
    /// Close a connection that sent nothing for this long while no search of its ran.
    pub idle: Option<Duration>,
    /// Time a client has to send its secret.
    pub auth_timeout: Duration,
    /// A write that cannot go on for this long means the client stopped reading.
    pub write_timeout: Duration,
}

#[derive(Clone, Debug)]
pub struct Config {
    pub listen: SocketAddr,
    pub secret_file: Option<PathBuf>,
    /// Syzygy tables every session starts with (`SyzygyPath`, which clients cannot change
    /// without `--allow-files`).
    pub syzygy: Option<String>,
    pub max_connections: usize,
    pub rules: Rules,
    pub limits: InputLimits,
}

impl Config {
    pub fn defaults() -> Config {
        let cores = num_cpus::get().max(1);
        Config {
            listen: DEFAULT_LISTEN.parse().expect("a socket address"),
            secret_file: None,
            syzygy: None,
            max_connections: 4,
            rules: Rules {
                max_threads: cores,
                max_hash_mb: 4096,
                total_threads: cores,
                total_hash_mb: 8192,
                allow_files: false,
                single_connection: false,
                max_perft_depth: 7,
                max_bench_depth: 16,
            },
            limits: InputLimits {
                max_line: 256 << 10,
                lines_per_second: 200,
                idle: Some(Duration::from_secs(1800)),
                auth_timeout: Duration::from_secs(10),
                write_timeout: Duration::from_secs(30),
            },
        }
    }
}

pub(super) struct Server {
    secret: Secret,
    budget: Arc<Budget>,
    limits: InputLimits,
    syzygy: Option<String>,
}

impl Server {
    /// A new client's session: the operator's settings, then the client's limits.
    fn session(&self, out: Output, gate: limits::RemoteGate) -> Session {
        let mut session = Session::new(out);
        if let Some(path) = &self.syzygy {
            session.handle_line(&format!("setoption name SyzygyPath value {path}"), Instant::now());
        }
        session.set_gate(Box::new(gate));
        session
    }
}

/// Tells a client why it is not served, in one line, and closes.
fn refuse(stream: &TcpStream, who: &str, why: &str) {
    tracing::warn!("{who}: refused: {why}");
    let _ = stream.set_write_timeout(Some(Duration::from_secs(1)));
    let _ = (&*stream).write_all(format!("error {why}\n").as_bytes());
}

/// Serves until the process is killed. The secret is printed (to standard output) only when
/// it was generated.
pub fn run(config: Config) -> Result<(), String> {
    crate::log::server_events_to_stderr();
    let secret = match &config.secret_file {
        Some(path) => Secret::from_file(path)?,
        None => Secret::generate()?,
    };
    let listener =
        TcpListener::bind(config.listen).map_err(|e| format!("cannot listen on {}: {e}", config.listen))?;
    let address = listener.local_addr().map_err(|e| e.to_string())?;
    let mut rules = config.rules.clone();
    rules.single_connection = config.max_connections == 1;
    if let Some(path) = &config.syzygy {
        if !std::path::Path::new(path).is_dir() {
            return Err(format!("--syzygy {path}: not a directory"));
        }
    }
    let server = Arc::new(Server {
        secret,
        budget: Budget::new(rules),
        limits: config.limits.clone(),
        syzygy: config.syzygy.clone(),
    });
    crate::outln!("listening on {address}");
    if config.secret_file.is_none() {
        crate::outln!("secret {}", server.secret.as_str());
        crate::outln!(
            "(generated for this run; clients need it: save it to a file for lazuli connect --secret-file)"
        );
    }
    if !address.ip().is_loopback() {
        tracing::warn!("listening on {address}, reachable from other machines: see docs/serve.md");
    }
    let active = Arc::new(AtomicUsize::new(0));
    let next = AtomicU64::new(1);
    for stream in listener.incoming() {
        let stream = match stream {
            Ok(s) => s,
            Err(e) => {
                // Out of descriptors or a connection reset before it was accepted: go on.
                tracing::warn!("accept failed: {e}");
                std::thread::sleep(Duration::from_millis(50));
                continue;
            }
        };
        let id = next.fetch_add(1, Ordering::Relaxed);
        let who = match stream.peer_addr() {
            Ok(peer) => format!("connection {id} from {peer}"),
            Err(_) => format!("connection {id}"),
        };
        if active.fetch_add(1, Ordering::SeqCst) >= config.max_connections {
            active.fetch_sub(1, Ordering::SeqCst);
            refuse(
                &stream,
                &who,
                &format!("the server takes at most {} connections", config.max_connections),
            );
            continue;
        }
        let _ = stream.set_nodelay(true);
        let (server, active_here) = (Arc::clone(&server), Arc::clone(&active));
        let spawned = std::thread::Builder::new().name(format!("lazuli-serve-{id}")).spawn(move || {
            serve_connection(stream, &server, &who);
            active_here.fetch_sub(1, Ordering::SeqCst);
        });
        if let Err(e) = spawned {
            active.fetch_sub(1, Ordering::SeqCst);
            tracing::warn!("connection {id}: cannot start a thread: {e}");
        }
    }
    Ok(())
}

fn serve_connection(stream: TcpStream, server: &Server, who: &str) {
    tracing::info!("{who}: accepted");
    let _ = stream.set_read_timeout(Some(server.limits.auth_timeout));
    let mut first = [0u8; 1];
    match stream.peek(&mut first) {
        Ok(1) if first[0] == b'G' => websocket::serve(stream, server, who),
        Ok(1) => conn::serve(stream, server, who),
        _ => tracing::warn!("{who}: refused: closed or silent before sending anything"),
    }
}
