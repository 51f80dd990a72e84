"""Lazuli behind PolyGlot, the UCI-to-xboard adapter (Debian's `polyglot` package), driven
headlessly by python-chess speaking the xboard protocol. Skipped where PolyGlot is not installed."""

import os
import shutil

import chess
import chess.engine
import pytest

from conftest import engine_path, play_timed_game


def polyglot_path():
    return shutil.which("polyglot") or next(
        (p for p in ["/usr/games/polyglot", "/usr/bin/polyglot"] if os.access(p, os.X_OK)), None
    )


@pytest.fixture
def xboard_engine():
    polyglot = polyglot_path()
    if polyglot is None:
        pytest.skip("polyglot is not installed (Debian package 'polyglot')")
    engine = chess.engine.SimpleEngine.popen_xboard([polyglot, "-noini", "-ec", engine_path()], timeout=10.0)
    yield engine
    engine.quit()


def test_timed_game_through_polyglot(xboard_engine):
    assert xboard_engine.id.get("name", "").startswith("Lazuli ")
    board, lowest = play_timed_game(xboard_engine, xboard_engine, base=3.0, inc=0.05, max_plies=40)
    assert board.ply() >= 20, board.move_stack
    assert min(lowest.values()) > 0.02, lowest


def test_analysis_through_polyglot(xboard_engine):
    board = chess.Board("6k1/5ppp/8/8/8/8/8/R5K1 w - - 0 1")
    info = xboard_engine.analyse(board, chess.engine.Limit(depth=4))
    assert info["pv"][0] == chess.Move.from_uci("a1a8")
    assert info["score"].relative.is_mate() or info["score"].relative.score() > 1000
