"""The cluster build under `mpirun`, driven by python-chess through rank 0: a timed game against
the plain engine, every move legal and in time, and every rank gone after `quit`.

Runs where `LAZULI_CLUSTER_BIN` names a build with the `cluster` feature and `mpirun` is on the
path (scripts/test-all.sh sets it wherever MPICH is installed, as under CI); skipped elsewhere."""

import os
import shutil

import chess
import chess.engine
import pytest

from conftest import play_timed_game, start_engine

CLUSTER_BIN = os.environ.get("LAZULI_CLUSTER_BIN")

pytestmark = pytest.mark.skipif(
    not CLUSTER_BIN or shutil.which("mpirun") is None,
    reason="no cluster build named by LAZULI_CLUSTER_BIN, or no mpirun",
)


def test_python_chess_plays_a_timed_game_through_rank_0_of_two():
    plain = start_engine(Hash=16)
    try:
        cluster = chess.engine.SimpleEngine.popen_uci(["mpirun", "-np", "2", CLUSTER_BIN], timeout=20.0)
        try:
            assert cluster.id["name"].startswith("Lazuli")
            cluster.configure({"Hash": 16})
            board, _ = play_timed_game(cluster, plain, base=3.0, inc=0.05, max_plies=60)
        finally:
            cluster.quit()
    finally:
        plain.quit()
    # play_timed_game checked every move's legality and clock; the game ran its length or ended.
    assert board.ply() == 60 or board.is_game_over(claim_draw=True), board.move_stack
    # `quit` reached the follower too: mpirun returns only when both ranks have ended.
    assert cluster.transport.get_returncode() == 0
