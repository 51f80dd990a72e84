//! Every option the `uci` answer offers, set through the binary with a value of its kind and
//! with one outside it: the first is taken without a complaint, the second refused with one
//! `info string` that names the option, and the engine searches afterwards.

use std::time::Duration;

mod common;
use common::Engine;

/// One `option name ...` line: the name, the type and the rest of the words.
fn parse(line: &str) -> (String, String, Vec<String>) {
    let words: Vec<&str> = line.split_whitespace().collect();
    let type_at = words.iter().position(|w| *w == "type").expect("a type");
    let name = words[2..type_at].join(" ");
    (name, words[type_at + 1].to_string(), words[type_at + 2..].iter().map(|w| w.to_string()).collect())
}

fn field(rest: &[String], key: &str) -> Option<String> {
    rest.iter().position(|w| w == key).map(|i| rest[i + 1].clone())
}

/// A value of the option's kind, and one that is not (`None` where every text is a value).
fn values(kind: &str, rest: &[String]) -> (Option<String>, Option<String>) {
    match kind {
        "spin" => {
            let max: i64 = field(rest, "max").unwrap().parse().unwrap();
            (field(rest, "default"), Some((max + 1).to_string()))
        }
        "check" => (field(rest, "default"), Some("maybe".into())),
        "combo" => (field(rest, "default"), Some("nonsense".into())),
        "string" => (Some("<empty>".into()), None),
        "button" => (None, None),
        other => panic!("an option of unknown type {other}"),
    }
}

fn complaints(lines: &[String]) -> Vec<&String> {
    lines
        .iter()
        .filter(|l| {
            l.starts_with("info string")
                && ["unknown option", "must be", "needs", "cannot take"].iter().any(|w| l.contains(w))
        })
        .collect()
}

#[test]
fn every_option_takes_a_value_of_its_kind_and_refuses_one_outside_it() {
    let mut engine = Engine::start();
    engine.send("uci");
    let lines = engine.read_until("uciok", Duration::from_secs(5));
    let options: Vec<_> = lines.iter().filter(|l| l.starts_with("option name ")).map(|l| parse(l)).collect();
    assert!(options.len() >= 28, "{} options", options.len());
    for (name, kind, rest) in &options {
        let (good, bad) = values(kind, rest);
        match &good {
            Some(value) => engine.send(&format!("setoption name {name} value {value}")),
            None => engine.send(&format!("setoption name {name}")),
        }
        let answer = engine.sync();
        assert!(complaints(&answer).is_empty(), "{name} = {good:?}: {answer:?}");
        if let Some(value) = bad {
            engine.send(&format!("setoption name {name} value {value}"));
            let answer = engine.sync();
            let refused = complaints(&answer);
            assert_eq!(refused.len(), 1, "{name} = {value}: {answer:?}");
            assert!(refused[0].contains(name.as_str()), "the refusal names {name}: {answer:?}");
        }
    }
    engine.send("setoption name No Such Option value 1");
    let answer = engine.sync();
    assert!(answer.iter().any(|l| l.contains("unknown option 'No Such Option'")), "{answer:?}");
    engine.send("position startpos");
    engine.send("go depth 3");
    let lines = engine.read_until("bestmove", Duration::from_secs(10));
    assert!(lines.last().is_some_and(|l| l.starts_with("bestmove ") && !l.contains("0000")), "{lines:?}");
}
