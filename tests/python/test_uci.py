"""Lazuli driven by a real UCI client, python-chess: handshake, MultiPV analysis with WDL, a timed
game against itself, pondering, `stop` during `go infinite`, and Chess960."""

import time

import chess
import chess.engine
import pytest

from conftest import play_timed_game, start_engine


def test_handshake_lists_the_options(engine):
    assert engine.id["name"].startswith("Lazuli")
    assert engine.id["author"]
    options = engine.options
    expected = {
        "Hash": "spin",
        "Threads": "spin",
        "MultiPV": "spin",
        "Move Overhead": "spin",
        "Contempt": "spin",
        "Ponder": "check",
        "UCI_Chess960": "check",
        "UCI_ShowWDL": "check",
        "Clear Hash": "button",
        "Debug Log File": "string",
    }
    for name, kind in expected.items():
        assert name in options, f"missing option {name}"
        assert options[name].type == kind, f"{name}: {options[name]}"
    assert (options["MultiPV"].default, options["MultiPV"].min, options["MultiPV"].max) == (1, 1, 256)
    assert options["Threads"].min == 1 and options["Threads"].default == 1
    assert options["Hash"].min == 1 and options["Hash"].default >= 1
    assert options["UCI_ShowWDL"].default is False
    assert (options["Contempt"].default, options["Contempt"].min, options["Contempt"].max) == (0, -100, 100)
    # Setting options through the client works and the engine still answers.
    engine.configure({"Hash": 8, "Threads": 2, "Move Overhead": 30, "Debug Log File": ""})
    engine.ping()


ANALYSIS_POSITIONS = [
    chess.STARTING_FEN,
    # A middlegame with several reasonable moves.
    "r1bq1rk1/pp2bppp/2n1pn2/3p4/2PP4/2N1PN2/PP3PPP/R2QKB1R w KQ - 0 8",
    # Black to move, a knight hangs: one clearly best line.
    "rnbqkb1r/pppp1ppp/8/4p3/4n3/2N5/PPPPQPPP/R1B1KBNR b KQkq - 0 4",
]


@pytest.mark.parametrize("fen", ANALYSIS_POSITIONS)
def test_multipv_3_with_wdl(engine, fen):
    engine.configure({"UCI_ShowWDL": True})
    board = chess.Board(fen)
    infos = engine.analyse(board, chess.engine.Limit(depth=9), multipv=3)
    assert len(infos) == 3
    assert [info["multipv"] for info in infos] == [1, 2, 3]
    first_moves = [info["pv"][0] for info in infos]
    assert len(set(first_moves)) == 3, f"lines must start with different moves: {first_moves}"
    for info in infos:
        assert all(move in board.legal_moves for move in info["pv"][:1])
        replay = board.copy()
        for move in info["pv"]:
            assert move in replay.legal_moves, f"illegal {move} in pv {info['pv']}"
            replay.push(move)
        assert info["depth"] == 9
        wdl = info["wdl"].relative
        assert wdl.wins + wdl.draws + wdl.losses == 1000
    # Lines are ordered best first, and the win/draw/loss estimate agrees with that order.
    scores = [info["score"].relative.score(mate_score=100_000) for info in infos]
    assert scores == sorted(scores, reverse=True), scores
    expectations = [info["wdl"].relative.expectation() for info in infos]
    assert expectations == sorted(expectations, reverse=True), expectations
    # The estimate points the same way as the score.
    for info in infos:
        cp = info["score"].relative.score(mate_score=100_000)
        wdl = info["wdl"].relative
        if cp > 50:
            assert wdl.wins > wdl.losses
        elif cp < -50:
            assert wdl.losses > wdl.wins


def test_multipv_lines_all_close_with_the_final_node_count(engine):
    # Stopped by the clock inside an iteration, where one move (taking the queen) is far the best,
    # so the principal line stands: every line, not only the principal one, is repeated before
    # `bestmove` with the whole search's node count.
    board = chess.Board("rnb1kbnr/pppp1ppp/8/4p3/3q4/2P5/PP1PPPPP/RNBQKBNR w KQkq - 0 3")
    for _ in range(3):
        infos = engine.analyse(board, chess.engine.Limit(time=0.3), multipv=3)
        assert [info["multipv"] for info in infos] == [1, 2, 3]
        assert infos[0]["pv"][0] == chess.Move.from_uci("c3d4")
        assert len({info["nodes"] for info in infos}) == 1, [info["nodes"] for info in infos]


def test_wdl_of_a_mate_is_certain(engine):
    engine.configure({"UCI_ShowWDL": True})
    board = chess.Board("6k1/5ppp/8/8/8/8/8/R5K1 w - - 0 1")
    infos = engine.analyse(board, chess.engine.Limit(depth=6), multipv=3)
    assert infos[0]["pv"][0] == chess.Move.from_uci("a1a8")
    assert infos[0]["score"].relative == chess.engine.Mate(1)
    assert tuple(infos[0]["wdl"].relative) == (1000, 0, 0)
    # Without the option there is no wdl.
    engine.configure({"UCI_ShowWDL": False})
    info = engine.analyse(board, chess.engine.Limit(depth=3))
    assert "wdl" not in info


def test_self_play_game_at_2s_plus_50ms():
    white, black = start_engine(), start_engine()
    try:
        board, lowest = play_timed_game(white, black, base=2.0, inc=0.05, max_plies=200)
    finally:
        white.quit()
        black.quit()
    # Every move was legal and in time (play_timed_game checks each); a game this short would
    # mean one side gave up or blundered into mate at once.
    assert board.ply() >= 20, board.move_stack
    # Neither side came close to flagging.
    assert min(lowest.values()) > 0.02, lowest


PONDER_LIMIT = chess.engine.Limit(white_clock=3.0, black_clock=3.0, white_inc=0.1, black_inc=0.1)


def test_ponderhit(transcript):
    engine = start_engine()
    try:
        game = object()
        board = chess.Board()
        first = engine.play(board, PONDER_LIMIT, ponder=True, game=game)
        assert first.move in board.legal_moves and first.ponder is not None
        board.push(first.move)
        assert first.ponder in board.legal_moves
        time.sleep(0.3)  # the engine ponders meanwhile
        board.push(first.ponder)  # the opponent plays the expected move
        mark = transcript.mark()
        started = time.perf_counter()
        second = engine.play(board, PONDER_LIMIT, ponder=True, game=game)
        used = time.perf_counter() - started
        sent = [line for _, d, line in transcript.since(mark) if d == "sent"]
        assert sent[:1] == ["ponderhit"], sent
        assert second.move in board.legal_moves
        # After the ponderhit the engine answers within its own clock.
        assert used < 3.0
    finally:
        engine.quit()


def test_missed_ponder_move(transcript):
    engine = start_engine()
    try:
        game = object()
        board = chess.Board()
        first = engine.play(board, PONDER_LIMIT, ponder=True, game=game)
        board.push(first.move)
        time.sleep(0.3)
        # The opponent plays something else than the move being pondered.
        other = next(m for m in board.legal_moves if m != first.ponder)
        board.push(other)
        mark = transcript.mark()
        second = engine.play(board, PONDER_LIMIT, ponder=True, game=game)
        lines = transcript.since(mark)
        sent = [line for _, d, line in lines if d == "sent"]
        assert sent[0] == "stop", sent
        assert "ponderhit" not in sent
        assert any(line.startswith("position") and other.uci() in line for line in sent), sent
        # The ponder search ends quickly after `stop`, and its bestmove is not mistaken for the answer.
        stop_at = next(t for t, d, line in lines if d == "sent" and line == "stop")
        ponder_best = next(t for t, d, line in lines if d == "received" and line.startswith("bestmove"))
        assert ponder_best - stop_at < 0.5
        assert second.move in board.legal_moves
    finally:
        engine.quit()


def wait_for_depth(analysis, depth):
    """Reads the analysis until an info line of at least `depth` (the search is then running)."""
    for info in analysis:
        if info.get("depth", 0) >= depth:
            return
    raise AssertionError(f"the search ended before depth {depth}")


# The last iteration a search runs (MAX_PLY - 1): after it, `go infinite` only waits for `stop`.
LAST_DEPTH = 127


def test_stop_during_go_infinite(engine, transcript):
    board = chess.Board("6k1/5ppp/8/8/8/8/8/R5K1 w - - 0 1")  # mate in one: every depth is quick
    mark = transcript.mark()
    with engine.analysis(board) as analysis:
        wait_for_depth(analysis, LAST_DEPTH)
        time.sleep(0.1)  # long enough for a bestmove that should not come to arrive
        assert not any(
            line.startswith("bestmove") for _, d, line in transcript.since(mark) if d == "received"
        ), "bestmove before stop during go infinite"
        stopped = time.perf_counter()
        analysis.stop()
        best = analysis.wait()
        latency = time.perf_counter() - stopped
    assert any(line == "go infinite" for line in transcript.sent())
    assert best.move == chess.Move.from_uci("a1a8")
    assert latency < 0.5, latency

    # The same from the start position, with two threads.
    engine.configure({"Threads": 2})
    with engine.analysis(chess.Board()) as analysis:
        wait_for_depth(analysis, 8)
        stopped = time.perf_counter()
        analysis.stop()
        best = analysis.wait()
        latency = time.perf_counter() - stopped
    assert best.move in chess.Board().legal_moves
    assert latency < 0.5, latency


def bestmove_line(transcript, mark):
    return next(line for _, d, line in transcript.since(mark) if d == "received" and line.startswith("bestmove"))


def test_chess960_game(transcript):
    engine = start_engine()
    try:
        board = chess.Board.from_chess960_pos(100)
        start_fen = board.fen(shredder=True)
        game = object()
        castles = []
        limit = chess.engine.Limit(time=0.03)
        while not board.is_game_over(claim_draw=True) and board.ply() < 120:
            mark = transcript.mark()
            result = engine.play(board, limit, game=game)
            assert result.move in board.legal_moves, f"illegal {result.move} in {board.fen()}"
            if board.is_castling(result.move):
                # python-chess keeps castling as king-takes-rook; so must the engine's text.
                castles.append((bestmove_line(transcript, mark).split()[1], result.move.uci()))
            board.push(result.move)
        for written, expected in castles:
            assert written == expected
        assert "setoption name UCI_Chess960 value true" in transcript.sent()
        assert any(line.startswith(f"position fen {start_fen}") for line in transcript.sent())
    finally:
        engine.quit()


# King on f1 between rooks on b1 and h1: king-side castling (f1h1) and the king's step f1g1 are
# different legal moves, so only king-takes-rook notation can tell them apart.
CASTLING_960 = "1r3k1r/pppppppp/8/8/8/8/PPPPPPPP/1R3K1R w HBhb - 0 1"


@pytest.mark.parametrize("castle, step", [("f1h1", "f1g1"), ("f1b1", "f1e1")])
def test_chess960_castling_is_king_takes_rook(engine, transcript, castle, step):
    board = chess.Board(CASTLING_960, chess960=True)
    castling = chess.Move.from_uci(castle)
    assert board.is_castling(castling) and chess.Move.from_uci(step) in board.legal_moves
    mark = transcript.mark()
    result = engine.play(board, chess.engine.Limit(depth=4), root_moves=[castling])
    assert bestmove_line(transcript, mark).split()[1] == castle
    assert result.move == castling
    # The plain king step stays a king step.
    mark = transcript.mark()
    result = engine.play(board, chess.engine.Limit(depth=4), root_moves=[chess.Move.from_uci(step)])
    assert bestmove_line(transcript, mark).split()[1] == step
    assert not board.is_castling(result.move)


def test_standard_castling_is_written_king_two_squares(engine, transcript):
    board = chess.Board("r3k2r/pppppppp/8/8/8/8/PPPPPPPP/R3K2R w KQkq - 0 1")
    mark = transcript.mark()
    result = engine.play(board, chess.engine.Limit(depth=4), root_moves=[chess.Move.from_uci("e1g1")])
    assert bestmove_line(transcript, mark).split()[1] == "e1g1"
    assert result.move == chess.Move.from_uci("e1g1")
