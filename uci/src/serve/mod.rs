//! `lazuli serve`: the engine for clients on other machines, one session per connection, over
//! plain TCP lines or WebSocket on one port (told apart by the first byte: a WebSocket client
//! opens with an HTTP `GET`). Design and threat model: docs/serve.md.

mod auth;
mod conn;
mod limits;
mod websocket;

pub use auth::Secret;
pub use limits::{Budget, Rules};

use crate::host::Host;
use crate::output::Output;
use crate::session::Session;
use engine::tb::Tablebases;
use parking_lot::Mutex;
use smp::StopHandle;
use std::collections::HashMap;
use std::io::Write;
use std::net::{IpAddr, SocketAddr, TcpListener, TcpStream};
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, OnceLock};
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
    /// Connections from one address at once, waiting or served.
    pub max_per_address: usize,
    pub rules: Rules,
    pub limits: InputLimits,
}

impl Config {
    pub fn defaults() -> Config {
        let cores = smp::available_cores();
        Config {
            listen: DEFAULT_LISTEN.parse().expect("a socket address"),
            secret_file: None,
            syzygy: None,
            max_connections: 4,
            max_per_address: 8,
            rules: Rules {
                max_threads: cores,
                max_hash_mb: 4096,
                total_threads: cores,
                total_hash_mb: 8192,
                allow_files: false,
                single_connection: false,
                max_perft_depth: 6,
                max_bench_depth: 13,
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
    /// The operator's tablebases (`--syzygy`), opened once and shared by every session.
    syzygy: Option<(String, Arc<Tablebases>)>,
    slots: Slots,
    /// The start of the current window of the refusals log and the refusals in it.
    refusals: Mutex<(Instant, u64)>,
}

/// Refused connections logged one by one in each window; the rest are counted, and the count is
/// logged with the first refusal of a later window, so a flood of connections cannot fill the
/// log.
const REFUSALS_LOGGED: u64 = 20;
const REFUSAL_WINDOW: Duration = Duration::from_secs(10);

/// Connections being served, and connections still to show their secret: counted apart, so
/// that clients without the secret cannot take the served ones' places.
struct Slots {
    served: AtomicUsize,
    max_served: usize,
    waiting: AtomicUsize,
    /// Connections open from each address, so that one machine cannot take every place.
    per_address: Mutex<HashMap<IpAddr, usize>>,
    max_per_address: usize,
}

/// Connections at once that have not yet sent their secret.
const MAX_WAITING: usize = 32;

/// A place among the served or the waiting connections, given back when dropped.
struct Slot<'a>(&'a AtomicUsize);

impl Drop for Slot<'_> {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::SeqCst);
    }
}

/// A connection's place among those from its address, given back when dropped.
struct AddressSlot<'a> {
    slots: &'a Slots,
    address: IpAddr,
}

impl Slots {
    /// Takes a place for a connection from `address`, if that address has one left.
    fn take_address(&self, address: IpAddr) -> bool {
        let mut open = self.per_address.lock();
        let count = open.entry(address).or_insert(0);
        if *count >= self.max_per_address {
            return false;
        }
        *count += 1;
        true
    }

    fn release_address(&self, address: IpAddr) {
        let mut open = self.per_address.lock();
        if let Some(count) = open.get_mut(&address) {
            *count -= 1;
            if *count == 0 {
                open.remove(&address);
            }
        }
    }
}

impl Drop for AddressSlot<'_> {
    fn drop(&mut self) {
        self.slots.release_address(self.address);
    }
}

fn take_slot(counter: &AtomicUsize, max: usize) -> Option<Slot<'_>> {
    counter
        .fetch_update(Ordering::SeqCst, Ordering::SeqCst, |n| (n < max).then_some(n + 1))
        .ok()
        .map(|_| Slot(counter))
}

impl Server {
    /// Logs that `who` was refused, and why (`REFUSALS_LOGGED`).
    fn refused(&self, who: &str, why: &str) {
        let mut window = self.refusals.lock();
        if window.0.elapsed() >= REFUSAL_WINDOW {
            if window.1 > REFUSALS_LOGGED {
                let (more, secs) = (window.1 - REFUSALS_LOGGED, REFUSAL_WINDOW.as_secs());
                tracing::warn!("{more} more connections refused in {secs} s (not logged one by one)");
            }
            *window = (Instant::now(), 0);
        }
        window.1 += 1;
        if window.1 <= REFUSALS_LOGGED {
            tracing::warn!("{who}: refused: {why}");
        }
    }

    /// What a client that showed the secret is given: a served place and its share of the
    /// threads and hash; or why it is refused.
    fn admit(&self) -> Result<(Slot<'_>, limits::RemoteGate), String> {
        let max = self.slots.max_served;
        let served = take_slot(&self.slots.served, max)
            .ok_or_else(|| format!("the server takes at most {max} connections"))?;
        let gate = self.budget.admit().ok_or("the server's threads and hash are all in use")?;
        Ok((served, gate))
    }

    /// A new client's session, hosted: the operator's settings, then the client's limits; its
    /// output goes to `writer`, whose first failure stops the search and calls `on_closed`. Why
    /// not, when the system refuses the session's memory.
    fn host(
        &self,
        writer: Box<dyn Write + Send>,
        gate: limits::RemoteGate,
        on_closed: impl FnOnce() + Send + 'static,
    ) -> Result<Host, String> {
        let stopper: Arc<OnceLock<StopHandle>> = Arc::default();
        let stopper_here = Arc::clone(&stopper);
        let on_closed = move || {
            if let Some(stopper) = stopper_here.get() {
                stopper.stop();
            }
            on_closed();
        };
        let out = Output::with_closed_hook(writer, Box::new(on_closed));
        let mut session = Session::try_new(out.clone())
            .ok_or("the system refused the memory of another session's table")?;
        if let Some((path, tables)) = &self.syzygy {
            session.share_tablebases(path, Arc::clone(tables));
        }
        session.set_gate(Box::new(gate));
        let host = Host::new(session, out);
        let _ = stopper.set(host.inlet().stop_handle());
        Ok(host)
    }
}

/// Tells a client that showed the secret why it is not served, in one line, and closes.
fn refuse(server: &Server, stream: &TcpStream, who: &str, why: &str) {
    server.refused(who, why);
    let _ = stream.set_write_timeout(Some(Duration::from_secs(1)));
    let _ = (&*stream).write_all(format!("error {why}\n").as_bytes());
}

/// Serves until the process is killed. Where it listens, and the secret when it was generated,
/// go to `announce` (the command line prints them on standard output).
pub fn run(config: Config, announce: impl Fn(&str)) -> Result<(), String> {
    crate::log::server_events_to_stderr();
    let secret = match &config.secret_file {
        Some(path) => {
            if Secret::readable_by_others(path) == Some(true) {
                tracing::warn!(
                    "{}: other users of this machine can read the secret (chmod 600 it)",
                    path.display()
                );
            }
            Secret::from_file(path)?
        }
        None => Secret::generate()?,
    };
    let listener =
        TcpListener::bind(config.listen).map_err(|e| format!("cannot listen on {}: {e}", config.listen))?;
    let address = listener.local_addr().map_err(|e| e.to_string())?;
    let mut rules = config.rules.clone();
    rules.single_connection = config.max_connections == 1;
    let syzygy = match &config.syzygy {
        Some(paths) => {
            let separator = if cfg!(windows) { ';' } else { ':' };
            if let Some(bad) = paths.split(separator).find(|p| !std::path::Path::new(p).is_dir()) {
                return Err(format!("--syzygy {paths}: '{bad}' is not a directory"));
            }
            let (tables, warnings) = Tablebases::open(paths);
            for warning in warnings {
                tracing::warn!("--syzygy: {warning}");
            }
            tracing::info!(
                "--syzygy: {} Syzygy table files (up to {} pieces)",
                tables.files(),
                tables.max_pieces()
            );
            Some((paths.clone(), Arc::new(tables)))
        }
        None => None,
    };
    let server = Arc::new(Server {
        secret,
        budget: Budget::new(rules),
        limits: config.limits.clone(),
        syzygy,
        slots: Slots {
            served: AtomicUsize::new(0),
            max_served: config.max_connections,
            waiting: AtomicUsize::new(0),
            per_address: Mutex::default(),
            max_per_address: config.max_per_address,
        },
        refusals: Mutex::new((Instant::now(), 0)),
    });
    announce(&format!("listening on {address}"));
    if config.secret_file.is_none() {
        announce(&format!("secret {}", server.secret.as_str()));
        announce(
            "(generated for this run; clients need it: save it to a file for lazuli connect --secret-file)",
        );
    }
    if !address.ip().is_loopback() {
        tracing::warn!("listening on {address}, reachable from other machines: see docs/serve.md");
    }
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
        let Ok(peer) = stream.peer_addr() else {
            server.refused(&format!("connection {id}"), "its address is unknown (gone already)");
            continue;
        };
        let who = format!("connection {id} from {peer}");
        if server.slots.waiting.load(Ordering::SeqCst) >= MAX_WAITING {
            server.refused(&who, &format!("{MAX_WAITING} connections are already waiting to authenticate"));
            continue;
        }
        let _ = stream.set_nodelay(true);
        keep_alive(&stream);
        if !server.slots.take_address(peer.ip()) {
            let open = server.slots.max_per_address;
            server.refused(&who, &format!("{open} connections from one address are open already"));
            continue;
        }
        let server_here = Arc::clone(&server);
        server.slots.waiting.fetch_add(1, Ordering::SeqCst);
        let spawned = std::thread::Builder::new().name(format!("lazuli-serve-{id}")).spawn(move || {
            let _address = AddressSlot { slots: &server_here.slots, address: peer.ip() };
            let waiting = Slot(&server_here.slots.waiting);
            serve_connection(stream, &server_here, &who, waiting);
        });
        if let Err(e) = spawned {
            server.slots.waiting.fetch_sub(1, Ordering::SeqCst);
            server.slots.release_address(peer.ip());
            tracing::warn!("connection {id}: cannot start a thread: {e}");
        }
    }
    Ok(())
}

/// TCP keep-alive probes, so that a peer that vanished without closing (a machine switched
/// off, a network gone) is noticed within a couple of minutes even while nothing is sent.
pub(crate) fn keep_alive(stream: &TcpStream) {
    let probes = socket2::TcpKeepalive::new()
        .with_time(Duration::from_secs(60))
        .with_interval(Duration::from_secs(10));
    let _ = socket2::SockRef::from(stream).set_tcp_keepalive(&probes);
}

/// One connection from accept to close: it must show its secret before `auth_timeout` has
/// passed since it was accepted (its first bytes tell the framing).
fn serve_connection(stream: TcpStream, server: &Server, who: &str, waiting: Slot<'_>) {
    tracing::info!("{who}: accepted");
    let deadline = Instant::now() + server.limits.auth_timeout;
    let _ = stream.set_read_timeout(Some(server.limits.auth_timeout));
    let mut first = [0u8; 1];
    match stream.peek(&mut first) {
        Ok(1) if first[0] == b'G' => websocket::serve(stream, server, who, deadline, waiting),
        Ok(1) => conn::serve(stream, server, who, deadline, waiting),
        _ => server.refused(who, "closed or silent before sending anything"),
    }
}
