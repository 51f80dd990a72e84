//! `lazuli connect`: a GUI's engine that is really a `lazuli serve` elsewhere. Lines from
//! standard input go to the server, lines from the server to standard output; the relay tells
//! the GUI, as UCI, when it cannot reach the server or loses it.

use crate::command::Command;
use crate::protocol::{read_lines, Input, MAX_LINE};
use crate::serve::Secret;
use std::io::{BufRead, BufReader, Write};
use std::net::{Shutdown, TcpStream, ToSocketAddrs};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

const CONNECT_TIMEOUT: Duration = Duration::from_secs(10);
/// Time the server has to answer the secret (it waits a second before refusing a wrong one).
const AUTH_ANSWER_TIMEOUT: Duration = Duration::from_secs(15);

/// Where `lazuli connect` relays to, and the secret it shows there.
pub struct ConnectArgs {
    pub server: String,
    pub secret_file: std::path::PathBuf,
}

/// A line to the GUI; a GUI that has gone ends the relay.
fn to_gui(text: &str) {
    let mut out = std::io::stdout().lock();
    if writeln!(out, "{text}").and_then(|()| out.flush()).is_err() {
        std::process::exit(0);
    }
}

fn tell(text: &str) {
    to_gui(&format!("info string lazuli connect: {text}"));
}

/// Opens the connection and presents the secret; the reader is positioned after `authok`.
fn open(args: &ConnectArgs) -> Result<(TcpStream, BufReader<TcpStream>), String> {
    let secret = Secret::from_file(&args.secret_file)?;
    let addresses: Vec<_> =
        args.server.to_socket_addrs().map_err(|e| format!("{}: {e}", args.server))?.collect();
    let mut last = format!("{}: no address", args.server);
    for address in addresses {
        let stream = match TcpStream::connect_timeout(&address, CONNECT_TIMEOUT) {
            Ok(s) => s,
            Err(e) => {
                last = format!("cannot connect to {address}: {e}");
                continue;
            }
        };
        let _ = stream.set_nodelay(true);
        crate::serve::keep_alive(&stream);
        let mut writer = stream.try_clone().map_err(|e| e.to_string())?;
        writer
            .write_all(format!("auth {}\n", secret.as_str()).as_bytes())
            .map_err(|e| format!("{address}: {e}"))?;
        stream.set_read_timeout(Some(AUTH_ANSWER_TIMEOUT)).map_err(|e| e.to_string())?;
        let mut reader = BufReader::new(stream.try_clone().map_err(|e| e.to_string())?);
        let mut answer = String::new();
        let got = reader.read_line(&mut answer);
        stream.set_read_timeout(None).map_err(|e| e.to_string())?;
        return match got {
            Ok(_) if answer.trim_end() == "authok" => Ok((writer, reader)),
            Ok(0) => Err(format!("{address} closed the connection: a wrong secret?")),
            Ok(_) => Err(format!("{address} refused: {}", answer.trim_end().trim_start_matches("error "))),
            Err(e) => Err(format!("{address} did not answer the secret: {e}")),
        };
    }
    Err(last)
}

pub fn run(args: &ConnectArgs) -> i32 {
    let (mut to_server, from_server) = match open(args) {
        Ok(pair) => pair,
        Err(e) => {
            tell(&e);
            eprintln!("lazuli connect: {e}");
            return 1;
        }
    };
    // Whether a `go` waits for its `bestmove`, and whether the GUI said `quit`.
    let searching = Arc::new(AtomicBool::new(false));
    let quitting = Arc::new(AtomicBool::new(false));
    let (searching_in, quitting_in) = (Arc::clone(&searching), Arc::clone(&quitting));
    let closer = to_server.try_clone();
    let spawned = std::thread::Builder::new().name("lazuli-connect-in".into()).spawn(move || {
        let mut sent_all = true;
        read_lines(std::io::stdin().lock(), MAX_LINE, |input| {
            let Input::Line(line) = input else {
                tell("input line too long; not sent");
                return true;
            };
            match line.command() {
                // A `go perft` answers without a `bestmove`.
                Some(Command::Go(params)) if params.perft.is_none() => {
                    searching_in.store(true, Ordering::SeqCst)
                }
                Some(Command::Quit) => quitting_in.store(true, Ordering::SeqCst),
                _ => {}
            }
            if to_server.write_all(format!("{}\n", line.text).as_bytes()).is_err() {
                sent_all = false;
            }
            sent_all
        });
        // The GUI has gone (or said quit): the server ends the session when its input ends.
        // A write that failed is the server's loss, told by the other thread.
        if sent_all {
            quitting_in.store(true, Ordering::SeqCst);
        }
        if let Ok(s) = closer {
            let _ = s.shutdown(Shutdown::Write);
        }
    });
    if spawned.is_err() {
        tell("cannot start the input thread");
        return 1;
    }
    for line in from_server.lines() {
        let Ok(line) = line else { break };
        if line.starts_with("bestmove") {
            searching.store(false, Ordering::SeqCst);
        }
        to_gui(&line);
    }
    if quitting.load(Ordering::SeqCst) {
        return 0;
    }
    tell(&format!("lost the connection to {}", args.server));
    if searching.load(Ordering::SeqCst) {
        to_gui("bestmove 0000");
    }
    1
}
