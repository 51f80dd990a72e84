//! The README's options table is the users' reference: every option the engine offers must be
//! in it with its type, default and range, and it must list no other.

use uci::options::{OptionKind, OPTIONS};

/// The rows of the table under `## UCI options`: (name, type, default, range), as written.
fn readme_rows() -> Vec<[String; 4]> {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../README.md");
    let text = std::fs::read_to_string(path).expect("README.md beside the workspace");
    let section = text.split("\n## UCI options").nth(1).expect("a '## UCI options' section");
    let section = section.split("\n## ").next().unwrap_or_default();
    section
        .lines()
        .filter(|l| l.starts_with("| `"))
        .map(|l| {
            let cells: Vec<String> = l.split('|').map(|c| c.trim().to_string()).collect();
            [cells[1].trim_matches('`').to_string(), cells[2].clone(), cells[3].clone(), cells[4].clone()]
        })
        .collect()
}

fn expected(kind: OptionKind) -> (&'static str, String, String) {
    match kind {
        OptionKind::Spin { default, min, max } => ("spin", default.to_string(), format!("{min} - {max}")),
        OptionKind::Check { default } => ("check", default.to_string(), String::new()),
        OptionKind::Button => ("button", String::new(), String::new()),
        OptionKind::String { default } => {
            ("string", format!("`{}`", if default.is_empty() { "<empty>" } else { default }), String::new())
        }
        OptionKind::Combo { default, vars } => {
            let vars: Vec<String> = vars.iter().map(|v| format!("`{v}`")).collect();
            ("combo", format!("`{default}`"), vars.join(", "))
        }
    }
}

#[test]
fn the_readme_lists_every_option_as_the_engine_offers_it() {
    let rows = readme_rows();
    for option in OPTIONS {
        let row = rows.iter().find(|r| r[0] == option.name);
        let row = row.unwrap_or_else(|| panic!("README.md has no row for the option '{}'", option.name));
        let (kind, default, range) = expected(option.kind);
        assert_eq!(
            (row[1].as_str(), row[2].as_str(), row[3].as_str()),
            (kind, default.as_str(), range.as_str()),
            "README.md row of '{}': type, default, range",
            option.name
        );
    }
    for row in &rows {
        assert!(
            OPTIONS.iter().any(|o| o.name == row[0]),
            "README.md lists '{}', which the engine does not offer",
            row[0]
        );
    }
    let readme_order: Vec<&str> = rows.iter().map(|r| r[0].as_str()).collect();
    let uci_order: Vec<&str> = OPTIONS.iter().map(|o| o.name).collect();
    assert_eq!(readme_order, uci_order, "README.md lists the options in another order than `uci` does");
}
