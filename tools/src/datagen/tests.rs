use super::game::{verdict, Outcome, DECIDED_PLIES};
use super::inspect::inspect;
use super::viri::{DataError, GameReader};
use super::*;
use engine::board::Position;
use engine::movegen::legal_moves;

fn config(dir: &Path, games: u64) -> DatagenConfig {
    DatagenConfig {
        games,
        soft_nodes: 300,
        hard_nodes: 3_000,
        threads: 2,
        random_plies: 8,
        dfrc_percent: 50,
        start_balance: 300,
        seed: 42,
        output: dir.join("data.vf"),
        decided_score: 1_500,
        syzygy: String::new(),
        network: engine::nnue::default_network(),
        evaluation: "test".to_string(),
    }
}

fn temp_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("lazuli-datagen-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("temp dir");
    dir
}

fn generate(config: &DatagenConfig) -> DatagenStats {
    run(config, Duration::from_secs(3600), |_| {}).expect("datagen runs")
}

/// The games of a file, in the order it holds them.
fn games(path: &Path) -> Vec<viri::DecodedGame> {
    let mut reader = GameReader::new(File::open(path).expect("data file"));
    let mut games = Vec::new();
    while let Some(game) = reader.next_game().expect("a readable file") {
        games.push(game);
    }
    games
}

#[test]
fn games_are_legal_reproducible_and_resumable() {
    let dir = temp_dir("resume");
    let (a, b) = (dir.join("a"), dir.join("b"));
    std::fs::create_dir_all(&a).unwrap();
    std::fs::create_dir_all(&b).unwrap();
    generate(&config(&a, 6));
    // Interrupted runs: two games, then a crash that left a half-written game and a done line
    // pointing past the end of the file, then the rest.
    generate(&config(&b, 2));
    let data = b.join("data.vf");
    let mut file = OpenOptions::new().append(true).open(&data).unwrap();
    file.write_all(&[7; 50]).unwrap();
    let mut done = OpenOptions::new().append(true).open(done_path(&data)).unwrap();
    writeln!(done, "5 999999").unwrap();
    let resumed = generate(&config(&b, 6));
    assert_eq!(resumed.resumed_games, 2);
    assert_eq!(resumed.games, 4);

    let (ga, gb) = (games(&a.join("data.vf")), games(&data));
    assert_eq!(ga.len(), 6);
    assert_eq!(ga, gb, "a resumed run writes the same games as an uninterrupted one");
    assert!(
        std::fs::read(a.join("data.vf")).unwrap() == std::fs::read(&data).unwrap(),
        "in the same order: the same bytes"
    );
    // One thread or three: the same file.
    let c = dir.join("c");
    std::fs::create_dir_all(&c).unwrap();
    generate(&DatagenConfig { threads: 3, ..config(&c, 6) });
    assert!(std::fs::read(a.join("data.vf")).unwrap() == std::fs::read(c.join("data.vf")).unwrap());
    assert!(
        ga.iter().any(|g| g.start.castle_rook(engine::board::Color::White, true).file() != 7
            || g.start.castle_rook(engine::board::Color::White, false).file() != 0),
        "some Chess960 starts"
    );
    for game in &ga {
        assert!(!game.moves.is_empty());
        let mut pos = game.start;
        for (mv, _) in &game.moves {
            assert!(legal_moves(&pos).contains(*mv));
            pos.make_move(*mv);
        }
        let no_moves = legal_moves(&pos).is_empty();
        if no_moves && pos.in_check() {
            assert_ne!(game.outcome, Outcome::Draw, "a mated side does not draw");
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn games_are_written_in_index_order_around_those_done_before() {
    let dir = temp_dir("order");
    let open = |name: &str| OpenOptions::new().create(true).append(true).open(dir.join(name)).unwrap();
    let done: HashSet<u64> = [1, 3].into_iter().collect();
    let mut sink = Sink { data: open("data"), done: open("done"), end: 0, next: 0, waiting: BTreeMap::new() };
    assert_eq!(sink.finish(4, vec![4, 4], 2, &done).unwrap(), (0, 0), "4 waits for 0 and 2");
    assert_eq!(sink.finish(2, vec![2], 1, &done).unwrap(), (0, 0), "2 waits for 0");
    assert_eq!(sink.finish(0, vec![0], 1, &done).unwrap(), (3, 4), "0 lets 2 and 4 follow");
    assert_eq!(sink.finish(5, vec![5], 1, &done).unwrap(), (1, 1));
    assert_eq!(std::fs::read(dir.join("data")).unwrap(), [0, 2, 4, 4, 5]);
    assert_eq!(std::fs::read_to_string(dir.join("done")).unwrap(), "0 1\n2 2\n4 4\n5 5\n");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_resumed_run_with_other_settings_is_refused_and_writes_nothing() {
    let dir = temp_dir("settings");
    let first = DatagenConfig { threads: 1, ..config(&dir, 1) };
    generate(&first);
    let data = dir.join("data.vf");
    let before = (std::fs::read(&data).unwrap(), std::fs::read(done_path(&data)).unwrap());
    for other in [
        DatagenConfig { seed: 43, ..first.clone() },
        DatagenConfig { evaluation: "another network".to_string(), ..first.clone() },
        DatagenConfig { soft_nodes: 301, games: 2, ..first.clone() },
    ] {
        let error = run(&other, Duration::from_secs(3600), |_| {}).expect_err("other settings are refused");
        assert_eq!(error.kind(), std::io::ErrorKind::InvalidInput);
        assert!(error.to_string().contains("1 games made with other settings"), "{error}");
        let after = (std::fs::read(&data).unwrap(), std::fs::read(done_path(&data)).unwrap());
        assert!(after == before, "a refused run leaves the data and its done list as they were");
    }
    // A damaged settings file is not taken for this run's settings.
    let settings = settings::settings_path(&data);
    let recorded = std::fs::read(&settings).unwrap();
    std::fs::write(&settings, [0xFF, 0xFE, b'\n']).unwrap();
    let error =
        run(&first, Duration::from_secs(3600), |_| {}).expect_err("a damaged settings file is refused");
    assert_eq!(error.kind(), std::io::ErrorKind::InvalidInput);
    std::fs::write(&settings, recorded).unwrap();
    // More games and more threads change no game: the run goes on.
    let more = generate(&DatagenConfig { games: 2, threads: 2, ..first.clone() });
    assert_eq!((more.resumed_games, more.games), (1, 1));
    // A file begun before settings were recorded is taken as it is, and its settings recorded.
    std::fs::remove_file(settings::settings_path(&data)).unwrap();
    generate(&DatagenConfig { games: 3, seed: 44, ..first.clone() });
    let recorded = std::fs::read_to_string(settings::settings_path(&data)).unwrap();
    assert!(recorded.contains("seed 44\n"), "{recorded}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn soft_node_limit_finishes_the_iteration_and_hard_limit_caps_it() {
    use engine::search::{Limits, Searcher};
    let board = engine::board::Board::new(Position::startpos());
    let tt = TranspositionTable::new(16);
    let mut searcher = Searcher::new();
    let soft = Limits { soft_nodes: Some(2_000), nodes: Some(1_000_000), ..Limits::default() };
    let result = searcher.search_alone(&board, &soft, &tt, None);
    assert!(result.nodes >= 2_000, "the soft limit ends only a completed iteration: {}", result.nodes);
    assert!(result.nodes < 1_000_000);
    searcher.clear();
    tt.clear(1);
    let hard = Limits { soft_nodes: Some(1_000_000), nodes: Some(5_000), ..Limits::default() };
    let result = searcher.search_alone(&board, &hard, &tt, None);
    assert!(result.nodes <= 5_000 + 2_048, "the hard limit stops mid-iteration: {}", result.nodes);
    assert!(!result.best_move.is_null());
}

#[test]
fn inspect_counts_a_file_and_names_truncation_and_corruption() {
    let dir = temp_dir("inspect");
    let stats = generate(&DatagenConfig { threads: 1, ..config(&dir, 3) });
    let bytes = std::fs::read(dir.join("data.vf")).unwrap();
    let mut text = Vec::new();
    let summary = inspect(&bytes[..], Some(&mut text)).unwrap();
    assert_eq!(summary.games, 3);
    assert_eq!(summary.positions, stats.positions);
    assert!(summary.error.is_none());
    assert_eq!(summary.results.iter().sum::<u64>(), 3);
    let lines = String::from_utf8(text).unwrap();
    assert_eq!(lines.lines().count() as u64, summary.exportable);
    let mut earliest = usize::MAX;
    for line in lines.lines() {
        let fields: Vec<&str> = line.split(" | ").collect();
        let pos = Position::from_fen(fields[0]).expect(line);
        assert!(["1.0", "0.5", "0.0"].contains(&fields[2]), "{line}");
        // Plies into the game, counted from its start (before the random opening).
        let ply = 2 * (usize::from(pos.fullmove_number()) - 1)
            + usize::from(pos.side_to_move() == engine::board::Color::Black);
        earliest = earliest.min(ply);
    }
    // The random opening (8 or 9 plies) counts: the first kept positions come at ply 16, not 24.
    assert!((16..24).contains(&earliest), "the earliest exported position is at ply {earliest}");

    let truncated = inspect(&bytes[..bytes.len() - 3], None).unwrap();
    assert_eq!(truncated.games, 2);
    assert!(matches!(truncated.error, Some(DataError::Truncated { game: 2, .. })), "{:?}", truncated.error);
    assert!(truncated.report().contains("truncated"));

    let mut corrupt = bytes.clone();
    corrupt[30] = 9; // the first game's result byte
    let summary = inspect(&corrupt[..], None).unwrap();
    assert_eq!(summary.games, 0);
    assert!(matches!(summary.error, Some(DataError::Corrupt { game: 0, offset: 0, .. })));
    let mut corrupt = bytes.clone();
    corrupt[32] ^= 0x3F; // the first move's from-square
    corrupt[33] ^= 0x0F;
    let summary = inspect(&corrupt[..], None).unwrap();
    assert!(matches!(summary.error, Some(DataError::Corrupt { game: 0, .. })), "{:?}", summary.error);
    for garbage in [vec![0xFF; 100], vec![0; 31], vec![]] {
        let _ = inspect(&garbage[..], None).unwrap().report();
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn the_viriformat_crate_reads_the_file_back() {
    use viriformat::dataformat::{Filter, Game};
    let dir = temp_dir("crate");
    generate(&DatagenConfig { threads: 1, ..config(&dir, 4) });
    let bytes = std::fs::read(dir.join("data.vf")).unwrap();
    let ours = games(&dir.join("data.vf"));
    let mut reader = std::io::BufReader::new(&bytes[..]);
    let mut theirs = Vec::new();
    while reader.fill_buf().map(|b| !b.is_empty()).unwrap() {
        theirs.push(Game::deserialise_from(&mut reader, Vec::new()).expect("the crate reads our game"));
    }
    assert_eq!(theirs.len(), ours.len());
    let our_lengths: Vec<usize> = ours.iter().map(|g| g.moves.len()).collect();
    let their_lengths: Vec<usize> = theirs.iter().map(Game::len).collect();
    assert_eq!(our_lengths, their_lengths);
    for (ours, theirs) in ours.iter().zip(&theirs) {
        let result = match ours.outcome {
            Outcome::WhiteWins => viriformat::dataformat::WDL::Win,
            Outcome::Draw => viriformat::dataformat::WDL::Draw,
            Outcome::BlackWins => viriformat::dataformat::WDL::Loss,
        };
        assert_eq!(theirs.outcome(), result, "the crate reads the result we wrote, from White's view");
        let mut their_scores = Vec::new();
        theirs.visit_positions(|_, eval| their_scores.push(eval));
        let our_scores: Vec<i32> = ours.moves.iter().map(|(_, score)| i32::from(*score)).collect();
        assert_eq!(our_scores, their_scores, "the crate reads the scores we wrote");
    }
    for game in &theirs {
        let mut boards = 0;
        let count = |_| {
            boards += 1;
            Ok(())
        };
        game.splat_to_bulletformat(count, &Filter::UNRESTRICTED).expect("bullet's layout");
        assert_eq!(boards, game.len());
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// Every game's result against how it ended: a mate goes to the side that mated, stalemate and
/// the drawing rules to a draw, and a win adjudicated by the searches' scores to the side those
/// scores favour, with the scores from White's view (the last `DECIDED_PLIES` decided scores,
/// searched by both sides in turn, all carry the winner's sign).
#[test]
fn labels_follow_how_each_game_ended() {
    let dir = temp_dir("labels");
    let config = DatagenConfig { decided_score: 600, ..config(&dir, 12) };
    generate(&config);
    let (mut natural, mut adjudicated) = (0, 0);
    for game in games(&dir.join("data.vf")) {
        let mut board = engine::board::Board::new(game.start);
        for (mv, _) in &game.moves {
            board.make_move(*mv);
        }
        let pos = *board.position();
        if let Some(outcome) = verdict(&board, None) {
            natural += 1;
            let mated = legal_moves(&pos).is_empty() && pos.in_check();
            let expected = match (mated, pos.side_to_move()) {
                (true, engine::board::Color::White) => Outcome::BlackWins,
                (true, engine::board::Color::Black) => Outcome::WhiteWins,
                (false, _) => Outcome::Draw,
            };
            assert_eq!((outcome, game.outcome), (expected, expected), "{}", pos.to_fen());
            continue;
        }
        adjudicated += 1;
        let sign = match game.outcome {
            Outcome::WhiteWins => 1,
            Outcome::BlackWins => -1,
            Outcome::Draw => panic!("a game that nothing ended is a draw: {}", pos.to_fen()),
        };
        let scores: Vec<i32> = game.moves.iter().map(|(_, s)| i32::from(*s)).collect();
        let decided = scores.iter().rev().take_while(|s| s.abs() >= config.decided_score).count();
        let last = *scores.last().expect("an adjudicated game has moves");
        assert_eq!(last.signum(), sign, "the last score favours the winner: {scores:?}");
        if decided >= DECIDED_PLIES as usize {
            let tail = &scores[scores.len() - DECIDED_PLIES as usize..];
            assert!(tail.iter().all(|s| s.signum() == sign), "scores from White's view: {tail:?}");
        } else {
            assert!(
                engine::search::score::is_mate_score(last),
                "short of the decided plies, a mate: {scores:?}"
            );
        }
    }
    assert!(
        natural > 0 && adjudicated > 0,
        "both kinds of ending: {natural} natural, {adjudicated} adjudicated"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// The tablebase verdict, with the repository's tables: the side with the queen wins, whichever
/// side is to move; without tables the game goes on; mate and stalemate need no tables.
#[test]
fn tablebase_adjudication_gives_the_win_to_the_stronger_side() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/data/syzygy");
    let (tables, warnings) = engine::tb::Tablebases::open(path.to_str().unwrap());
    assert!(warnings.is_empty() && tables.files() > 0, "{warnings:?}");
    let board = |fen: &str| engine::board::Board::new(Position::from_fen(fen).unwrap());
    for (fen, expected) in [
        ("8/8/8/4k3/8/8/3QK3/8 w - - 0 1", Outcome::WhiteWins),
        ("8/8/8/4k3/8/8/3QK3/8 b - - 0 1", Outcome::WhiteWins),
        ("8/3qk3/8/8/4K3/8/8/8 w - - 0 1", Outcome::BlackWins),
        ("8/3qk3/8/8/4K3/8/8/8 b - - 0 1", Outcome::BlackWins),
        ("8/8/8/4k3/8/8/3RK3/8 b - - 0 1", Outcome::WhiteWins),
        ("8/8/8/3k4/8/3PK3/8/8 b - - 0 1", Outcome::Draw),
    ] {
        assert_eq!(verdict(&board(fen), Some(&tables)), Some(expected), "{fen}");
        assert_eq!(verdict(&board(fen), None), None, "{fen} without tables");
    }
    assert_eq!(verdict(&board("7k/6Q1/6K1/8/8/8/8/8 b - - 0 1"), None), Some(Outcome::WhiteWins));
    assert_eq!(verdict(&board("k7/2Q5/1K6/8/8/8/8/8 b - - 0 1"), None), Some(Outcome::Draw));
}
