//! `lazuli serve`: its command line.

use std::net::{SocketAddr, ToSocketAddrs};
use std::time::Duration;
use uci::serve::Config;

const SERVE_USAGE: &str = "lazuli serve [--listen ADDR:PORT] [--secret-file FILE] [options]";
const SERVE_HELP: &str =
    "Serves the engine to UCI clients on other machines: one engine session per connection,
over plain TCP (first line `auth SECRET`, then UCI lines) or WebSocket on the same port (first
text message `auth SECRET`, then one UCI line a message). `lazuli connect` relays a GUI to it.
Read docs/serve.md before listening on anything but this machine: the traffic is not encrypted.

  --listen ADDR:PORT     where to listen (default 127.0.0.1:9510, this machine only; another
                         address, such as 0.0.0.0:9510, only when given here)
  --secret-file FILE     the secret: the file's first line, at least 32 characters and 8
                         different ones (warned when others may read the file); without
                         it a random 256-bit secret is generated and printed once
  --syzygy PATH          Syzygy tables every session starts with (clients cannot change the
                         path without --allow-files)
  --max-connections N    connections served at once, the rest refused (default 4)
  --max-per-address N    connections open at once from one address, waiting for their secret
                         or served (default 8)
  --max-threads N        Threads a connection may set (default: the logical cores)
  --max-hash MB          Hash a connection may set, at least 16 (default 4096)
  --total-threads N      Threads of all connections together (default: the logical cores, or
                         --max-connections if more: each connection holds one from its start)
  --total-hash MB        Hash of all connections together (default 8192)
  --allow-files          let clients set the options that reach the server's files (Hash File,
                         Save Hash, Load Hash, Keep Hash File, EvalFile, SyzygyPath, Debug Log
                         File); refused
                         by default; each connection's EvalFile is its own. Debug Log File
                         records every connection and is refused unless --max-connections is 1
  --idle-timeout SECS    close a connection silent this long while it is not searching
                         (default 1800; 0: never)
  --auth-timeout SECS    time a client has to send its secret (default 10)
  --write-timeout SECS   close a client that reads none of its output for this long (default 30)
  --max-line BYTES       longest input line (default 262144)
  --lines-per-second N   input lines a connection may send a second, on average (default 200)

It prints `listening on ADDR:PORT` (and the generated secret) on standard output and its log
of connections on standard error.";

fn number(flag: &str, value: &str, lo: u64, hi: u64) -> Result<u64, String> {
    value
        .parse::<u64>()
        .ok()
        .filter(|v| (lo..=hi).contains(v))
        .ok_or_else(|| format!("{flag}: '{value}' is not a number from {lo} to {hi}"))
}

fn address(flag: &str, value: &str) -> Result<SocketAddr, String> {
    value
        .to_socket_addrs()
        .map_err(|e| format!("{flag}: '{value}': {e}"))?
        .next()
        .ok_or_else(|| format!("{flag}: '{value}' names no address"))
}

pub fn parse_serve(args: &[String]) -> Result<Config, String> {
    let mut config = Config::defaults();
    let mut total_threads = None;
    let mut it = args.iter();
    while let Some(flag) = it.next() {
        if flag == "--allow-files" {
            config.rules.allow_files = true;
            continue;
        }
        let value = it.next().ok_or_else(|| format!("{flag} needs a value"))?;
        match flag.as_str() {
            "--listen" => config.listen = address(flag, value)?,
            "--secret-file" => config.secret_file = Some(value.into()),
            "--syzygy" => config.syzygy = Some(value.clone()),
            "--max-connections" => config.max_connections = number(flag, value, 1, 1024)? as usize,
            "--max-per-address" => config.max_per_address = number(flag, value, 1, 1024)? as usize,
            "--max-threads" => config.rules.max_threads = number(flag, value, 1, 1024)? as usize,
            "--max-hash" => config.rules.max_hash_mb = number(flag, value, 16, 1 << 20)? as usize,
            "--total-threads" => total_threads = Some(number(flag, value, 1, 1 << 16)? as usize),
            "--total-hash" => config.rules.total_hash_mb = number(flag, value, 16, 1 << 24)? as usize,
            "--idle-timeout" => {
                let secs = number(flag, value, 0, 30 * 86_400)?;
                config.limits.idle = (secs > 0).then(|| Duration::from_secs(secs));
            }
            "--auth-timeout" => {
                config.limits.auth_timeout = Duration::from_secs(number(flag, value, 1, 3600)?)
            }
            "--write-timeout" => {
                config.limits.write_timeout = Duration::from_secs(number(flag, value, 1, 3600)?)
            }
            "--max-line" => config.limits.max_line = number(flag, value, 1024, 1 << 24)? as usize,
            "--lines-per-second" => {
                config.limits.lines_per_second = number(flag, value, 1, 1_000_000)? as u32
            }
            other => return Err(format!("unknown argument '{other}'")),
        }
    }
    // Every connection holds a thread from its start, searching or not.
    config.rules.total_threads =
        total_threads.unwrap_or(config.rules.total_threads.max(config.max_connections));
    Ok(config)
}

pub fn serve_command(args: &[String]) -> i32 {
    let config = match tools::args::parse_or_exit(args, SERVE_USAGE, SERVE_HELP, parse_serve) {
        Ok(c) => c,
        Err(code) => return code,
    };
    match uci::serve::run(config, |line| tools::outln!("{line}")) {
        Ok(()) => 0,
        Err(e) => {
            eprintln!("lazuli serve: {e}");
            1
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use uci::serve::DEFAULT_LISTEN;

    fn args(text: &str) -> Vec<String> {
        text.split_whitespace().map(String::from).collect()
    }

    #[test]
    fn serve_arguments() {
        let c = parse_serve(&[]).unwrap();
        assert_eq!(c.listen, DEFAULT_LISTEN.parse().unwrap());
        assert!(c.listen.ip().is_loopback() && !c.rules.allow_files && c.secret_file.is_none());
        let c = parse_serve(&args(
            "--listen 0.0.0.0:7000 --secret-file s --max-connections 1 --max-per-address 3 --max-threads 8 --max-hash 512 \
             --total-threads 16 --total-hash 2048 --allow-files --idle-timeout 0 --max-line 4096 --lines-per-second 10",
        ))
        .unwrap();
        assert_eq!(c.listen, "0.0.0.0:7000".parse().unwrap());
        assert_eq!(
            (c.max_connections, c.max_per_address, c.rules.max_threads, c.rules.max_hash_mb),
            (1, 3, 8, 512)
        );
        assert_eq!((c.rules.total_threads, c.rules.total_hash_mb, c.rules.allow_files), (16, 2048, true));
        assert_eq!((c.limits.idle, c.limits.max_line, c.limits.lines_per_second), (None, 4096, 10));
        for bad in [
            "--listen",
            "--listen nowhere",
            "--max-connections 0",
            "--max-per-address 0",
            "--max-threads x",
            "--bogus 1",
            "--max-line 10",
        ] {
            assert!(parse_serve(&args(bad)).is_err(), "{bad}");
        }
    }
}
