//! What the subcommands share in reading their arguments.

/// A subcommand's arguments: `--help` prints the usage and the help (exit 0), bad
/// arguments the problem and the usage (exit 2); otherwise what `parse` read.
pub fn parse_or_exit<T>(
    args: &[String],
    usage: &str,
    help: &str,
    parse: impl FnOnce(&[String]) -> Result<T, String>,
) -> Result<T, i32> {
    if args.iter().any(|a| a == "--help" || a == "-h") {
        crate::outln!("usage: {usage}\n\n{help}");
        return Err(0);
    }
    parse(args).map_err(|e| {
        eprintln!("{e}\nusage: {usage}");
        2
    })
}
