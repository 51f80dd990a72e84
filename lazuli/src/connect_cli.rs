//! `lazuli connect`: its command line.

use uci::connect::ConnectArgs;

const CONNECT_USAGE: &str = "lazuli connect HOST:PORT --secret-file FILE";
const CONNECT_HELP: &str =
    "Speaks UCI on standard input and output and relays it to a `lazuli serve` at HOST:PORT,
so that a GUI uses the remote engine as a local one: give the GUI this command line as the
engine. A refused or lost connection is told to the GUI as `info string` (with `bestmove 0000`
if a search was waiting for its answer), and the relay exits.";

fn parse_connect(args: &[String]) -> Result<ConnectArgs, String> {
    let (mut server, mut secret_file) = (None, None);
    let mut it = args.iter();
    while let Some(arg) = it.next() {
        match arg.as_str() {
            "--secret-file" => secret_file = Some(it.next().ok_or("--secret-file needs a value")?.into()),
            flag if flag.starts_with("--") => return Err(format!("unknown argument '{flag}'")),
            _ if server.is_some() => return Err(format!("one server only, found '{arg}' as well")),
            _ => server = Some(arg.clone()),
        }
    }
    let server = server.ok_or("the server's HOST:PORT is missing")?;
    let secret_file = secret_file.ok_or("--secret-file is missing")?;
    Ok(ConnectArgs { server, secret_file })
}

pub fn connect_command(args: &[String]) -> i32 {
    match tools::args::parse_or_exit(args, CONNECT_USAGE, CONNECT_HELP, parse_connect) {
        Ok(args) => uci::connect::run(&args),
        Err(code) => code,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(text: &str) -> Vec<String> {
        text.split_whitespace().map(String::from).collect()
    }

    #[test]
    fn connect_arguments() {
        let c = parse_connect(&args("host:9510 --secret-file s")).unwrap();
        assert_eq!((c.server.as_str(), c.secret_file.to_str()), ("host:9510", Some("s")));
        for bad in ["", "host:1", "--secret-file s", "a:1 b:2 --secret-file s", "a:1 --secret-file s --x"] {
            assert!(parse_connect(&args(bad)).is_err(), "{bad}");
        }
    }
}
