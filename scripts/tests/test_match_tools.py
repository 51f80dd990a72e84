"""Tests of the match tooling: statistics, adjudication, clocks, openings and bug detection.

Run: .venv/bin/python -m unittest discover -s scripts/tests
"""

import math
import os
import sys
import tempfile
import threading
import time
import unittest

import chess

HERE = os.path.dirname(os.path.abspath(__file__))
SCRIPTS = os.path.dirname(HERE)
sys.path.insert(0, SCRIPTS)

from lazuli_match import transcript  # noqa: E402
from lazuli_match.adjudication import AdjudicationRules, Adjudicator  # noqa: E402
from lazuli_match.engines import EnginePlayer, EngineSpec  # noqa: E402
from lazuli_match.game import (  # noqa: E402
    BUG_CRASH, BUG_ILLEGAL_MOVE, BUG_TIME_FORFEIT, GameSettings, play_game, rules_outcome,
)
from lazuli_match.openings import Opening, load_openings  # noqa: E402
from lazuli_match.stats import (  # noqa: E402
    NELO_SCALE, PAIR_SCORES, Sprt, format_elo, logistic_elo, logistic_score, pentanomial_elo,
)
from lazuli_match.timecontrol import TimeControl  # noqa: E402

FAKE = os.path.join(HERE, "fake_engine.py")


def approx_llr_logistic(penta, elo0, elo1):
    """The normal approximation of the GSPRT, which the exact LLR must approach."""
    pairs = sum(penta)
    probs = [c / pairs for c in penta]
    mu = sum(s * p for s, p in zip(PAIR_SCORES, probs))
    var = sum(p * (s - mu) ** 2 for s, p in zip(PAIR_SCORES, probs))
    s0, s1 = logistic_score(elo0), logistic_score(elo1)
    return pairs * (s1 - s0) * (2 * mu - s0 - s1) / (2 * var)


def approx_llr_normalized(penta, elo0, elo1):
    pairs = sum(penta)
    probs = [c / pairs for c in penta]
    mu = sum(s * p for s, p in zip(PAIR_SCORES, probs))
    var = sum(p * (s - mu) ** 2 for s, p in zip(PAIR_SCORES, probs))
    t = (mu - 0.5) / math.sqrt(var)
    t0, t1 = (math.sqrt(2) * e / NELO_SCALE for e in (elo0, elo1))
    return pairs * (t1 - t0) * (2 * t - t0 - t1) / 2


class StatsTest(unittest.TestCase):
    def test_even_match_is_zero_elo(self):
        est = pentanomial_elo([10, 40, 100, 40, 10])
        self.assertAlmostEqual(est.elo, 0.0)
        self.assertAlmostEqual(est.lower, -est.upper)
        self.assertAlmostEqual(est.los, 0.5)

    def test_mirrored_results_mirror_elo(self):
        a = pentanomial_elo([5, 30, 100, 50, 15])
        b = pentanomial_elo([15, 50, 100, 30, 5])
        self.assertAlmostEqual(a.elo, -b.elo)
        self.assertAlmostEqual(a.error, b.error)

    def test_error_shrinks_with_games(self):
        small = pentanomial_elo([5, 30, 100, 50, 15])
        big = pentanomial_elo([50, 300, 1000, 500, 150])
        self.assertAlmostEqual(small.elo, big.elo)
        self.assertAlmostEqual(small.error / big.error, math.sqrt(10), delta=0.05)

    def test_lopsided_results_keep_a_finite_lower_bound(self):
        # 13 pairs, one drawn game: the upper end is infinite, the lower end still bounds.
        est = pentanomial_elo([0, 0, 0, 1, 12])
        self.assertTrue(math.isinf(est.upper) and math.isinf(est.error))
        self.assertTrue(math.isfinite(est.lower) and 0 < est.lower < est.elo)
        self.assertRegex(format_elo(est), r"^\+\d+\.\d \[\+\d+, \+inf\]$")
        self.assertNotIn("+- inf", format_elo(est))
        self.assertRegex(format_elo(pentanomial_elo([5, 30, 100, 50, 15])), r"^\+\d+\.\d \+- \d+\.\d$")

    def test_all_pairs_alike_use_the_rule_of_three(self):
        est = pentanomial_elo([0, 0, 0, 0, 30])
        self.assertAlmostEqual(est.lower, logistic_elo(1.0 - 3.0 / 30))
        self.assertTrue(math.isinf(est.elo) and math.isinf(est.upper))
        lost = pentanomial_elo([30, 0, 0, 0, 0])
        self.assertAlmostEqual(lost.upper, -est.lower)
        self.assertTrue(math.isinf(pentanomial_elo([0, 0, 0, 0, 2]).lower))
        drawn = pentanomial_elo([0, 0, 40, 0, 0])
        self.assertAlmostEqual(drawn.elo, 0.0)
        self.assertAlmostEqual(drawn.lower, -drawn.upper)
        self.assertLess(drawn.upper, 60)

    def test_exact_llr_matches_normal_approximation_on_large_samples(self):
        penta = [300, 2000, 5000, 2300, 400]
        for model, approx in (("logistic", approx_llr_logistic),
                              ("normalized", approx_llr_normalized)):
            exact = Sprt(0.0, 5.0, model=model).llr(penta)
            self.assertAlmostEqual(exact, approx(penta, 0.0, 5.0), delta=0.05 * abs(exact))

    def test_sprt_decisions(self):
        sprt = Sprt(0.0, 10.0)
        self.assertAlmostEqual(sprt.upper_bound, math.log(19))
        self.assertEqual(sprt.decision(3.0), "H1")
        self.assertEqual(sprt.decision(-3.0), "H0")
        self.assertIsNone(sprt.decision(0.0))
        self.assertGreater(sprt.llr([5, 50, 200, 150, 60]), sprt.upper_bound)
        self.assertLess(sprt.llr([60, 150, 200, 50, 5]), sprt.lower_bound)


class AdjudicationTest(unittest.TestCase):
    def test_resign_needs_both_sides_for_four_moves(self):
        adj = Adjudicator(AdjudicationRules())
        board = chess.Board()
        for _ in range(3):
            adj.record(chess.WHITE, 1200)
            adj.record(chess.BLACK, 1100)
        self.assertIsNone(adj.verdict(board))
        adj.record(chess.WHITE, 1200)
        self.assertIsNone(adj.verdict(board))
        adj.record(chess.BLACK, 1100)
        self.assertEqual(adj.verdict(board)[0], chess.WHITE)

    def test_resign_needs_agreement(self):
        adj = Adjudicator(AdjudicationRules())
        for _ in range(4):
            adj.record(chess.WHITE, 1200)
            adj.record(chess.BLACK, -1100)
        self.assertIsNone(adj.verdict(chess.Board()))

    def test_draw_only_after_move_40(self):
        adj = Adjudicator(AdjudicationRules())
        for _ in range(8):
            adj.record(chess.WHITE, 5)
            adj.record(chess.BLACK, -3)
        early = chess.Board()
        late = chess.Board()
        late.fullmove_number = 40
        self.assertIsNone(adj.verdict(early))
        self.assertEqual(adj.verdict(late), (None, "both engines agree the game is drawn"))
        adj.record(chess.WHITE, None)
        self.assertIsNone(adj.verdict(late))


class RulesAndClockTest(unittest.TestCase):
    def test_repetition_ends_only_when_it_happened(self):
        board = chess.Board()
        for move in ("g1f3", "g8f6", "f3g1", "f6g8", "g1f3", "g8f6", "f3g1"):
            board.push_uci(move)
            self.assertIsNone(rules_outcome(board))
        board.push_uci("f6g8")
        self.assertEqual(rules_outcome(board), ("1/2-1/2", "threefold repetition"))

    def test_clock_flags_without_grace(self):
        clock = TimeControl.parse_clock("1+0.1").new_clock()
        self.assertTrue(clock.spend(chess.WHITE, 0.9))
        self.assertAlmostEqual(clock.remaining[chess.WHITE], 0.2)
        self.assertFalse(clock.spend(chess.WHITE, 0.2001))

    def test_time_odds_give_each_side_its_own_clock(self):
        white, black = TimeControl.parse_clock("2+0.2"), TimeControl.parse_clock("1+0.1")
        clock = white.new_clock(black)
        limit = clock.limit(chess.WHITE)
        self.assertEqual((limit.white_clock, limit.black_clock), (2.0, 1.0))
        self.assertEqual((limit.white_inc, limit.black_inc), (0.2, 0.1))
        self.assertTrue(clock.spend(chess.WHITE, 1.5))
        self.assertAlmostEqual(clock.remaining[chess.WHITE], 0.7)
        self.assertTrue(clock.spend(chess.BLACK, 0.5))
        self.assertAlmostEqual(clock.remaining[chess.BLACK], 0.6)
        self.assertFalse(clock.spend(chess.BLACK, 0.61))
        with self.assertRaises(ValueError):
            TimeControl(movetime=1.0).new_clock(black)

    def test_fixed_depth_limit_sends_go_depth_and_charges_no_clock(self):
        tc = TimeControl(depth=9)
        self.assertEqual((tc.describe(), tc.pgn_tag()), ("depth 9", "-"))
        clock = tc.new_clock()
        limit = clock.limit(chess.BLACK)
        self.assertEqual((limit.depth, limit.time, limit.nodes, limit.white_clock), (9, None, None, None))
        self.assertTrue(clock.spend(chess.BLACK, 100.0))

    def test_engine_clock_setting(self):
        spec = EngineSpec.parse(["cmd=/bin/true", "tc=20+0.2"])
        self.assertEqual(spec.tc, TimeControl(base=20.0, increment=0.2))
        self.assertIn("clock 20+0.2", spec.describe())
        self.assertIsNone(EngineSpec.parse(["cmd=/bin/true"]).tc)
        with self.assertRaises(ValueError):
            EngineSpec.parse(["cmd=/bin/true", "tc=fast"])

    def test_move_count_clock_refills_after_each_period(self):
        tc = TimeControl.parse_clock("2/1+0.1")
        self.assertEqual(tc, TimeControl(base=1.0, increment=0.1, moves=2))
        self.assertEqual((tc.describe(), tc.pgn_tag()), ("2/1+0.1", "2/1+0.1"))
        clock = tc.new_clock()
        self.assertEqual(clock.limit(chess.WHITE).remaining_moves, 2)
        self.assertTrue(clock.spend(chess.WHITE, 0.5))
        self.assertEqual(clock.limit(chess.WHITE).remaining_moves, 1)
        self.assertEqual(clock.limit(chess.BLACK).remaining_moves, 2)
        # The second move ends the period: increment, then a new base.
        self.assertTrue(clock.spend(chess.WHITE, 0.5))
        self.assertAlmostEqual(clock.remaining[chess.WHITE], 1.2)
        self.assertEqual(clock.limit(chess.WHITE).remaining_moves, 2)
        # Flagging on the last move of a period gets no refill.
        self.assertFalse(clock.spend(chess.BLACK, 0.5) and clock.spend(chess.BLACK, 0.61))
        self.assertIsNone(TimeControl.parse_clock("10+0.1").new_clock().limit(chess.WHITE).remaining_moves)

    def test_bad_time_controls(self):
        for text in ("", "10+", "abc", "0+1", "0/10+0.1", "/10", "4/"):
            with self.assertRaises(ValueError):
                TimeControl.parse_clock(text)


class OpeningsTest(unittest.TestCase):
    def test_project_openings_are_legal_balanced_and_distinct(self):
        import re
        for name, least in (("openings.epd", 250), ("openings-large.epd", 17_000)):
            path = os.path.join(SCRIPTS, name)
            openings = load_openings(path)
            self.assertGreaterEqual(len(openings), least, name)
            self.assertEqual(len({o.fen for o in openings}), len(openings), name)
            for opening in openings:
                self.assertFalse(opening.board().is_game_over(), opening.fen)
            with open(path, encoding="utf-8") as handle:
                scores = [int(re.search(r" ce (-?\d+);", line).group(1)) for line in handle]
            self.assertLessEqual(max(map(abs, scores)), 60, name)

    def test_more_pairs_than_openings_are_refused_unless_allowed(self):
        import match
        small = os.path.join(SCRIPTS, "openings.epd")
        words = ["--engine", "name=a", "cmd=x", "--engine", "name=b", "cmd=y", "--tc", "1+0.01",
                 "--openings", small]
        self.assertEqual(match.build_config(match.parse_args(words + ["--pairs", "250"])).pairs,
                         250)
        with self.assertRaisesRegex(ValueError, "251 pairs but 250 openings"):
            match.build_config(match.parse_args(words + ["--pairs", "251"]))
        with self.assertRaisesRegex(ValueError, "251 pairs but 250 openings"):
            match.build_config(match.parse_args(words + ["--games", "502"]))
        allowed = match.parse_args(words + ["--pairs", "251", "--allow-reuse"])
        self.assertEqual(match.build_config(allowed).pairs, 251)


class BugDetectionTest(unittest.TestCase):
    """Games against a fake engine that misbehaves after a few moves."""

    @classmethod
    def setUpClass(cls):
        transcript.install()

    def play(self, mode, hang_timeout=0.3):
        good = EnginePlayer(EngineSpec("good", sys.executable, [FAKE, "good"]), "good")
        bad = EnginePlayer(EngineSpec("bad", sys.executable, [FAKE, mode]), "bad")
        settings = GameSettings(TimeControl.parse_clock("1+0.01"), AdjudicationRules(),
                                hang_timeout=hang_timeout)
        opening = Opening(0, "test", chess.STARTING_FEN)
        try:
            return play_game(good, bad, opening, settings, "1.1", threading.Event())
        finally:
            good.close()
            bad.close()

    def check(self, mode, kind, hang_timeout=0.3):
        result = self.play(mode, hang_timeout)
        self.assertIsNotNone(result.bug)
        self.assertEqual(result.bug.engine, "bad")
        self.assertEqual(result.bug.kind, kind)
        self.assertEqual(result.result, "1-0")
        self.assertTrue(any("go " in line for line in result.bug.transcript))
        return result

    def test_illegal_move(self):
        self.check("illegal", BUG_ILLEGAL_MOVE)

    def test_crash(self):
        self.check("crash", BUG_CRASH)

    def test_hang(self):
        self.check("hang", BUG_TIME_FORFEIT)

    def test_late_move(self):
        # Answers after twice its clock, before the watchdog: charged and flagged, not killed.
        result = self.check("slow", BUG_TIME_FORFEIT, hang_timeout=5.0)
        self.assertIn("over by", result.bug.detail)

    def test_clean_game(self):
        result = self.play("good")
        self.assertIsNone(result.bug)
        self.assertIn(result.result, ("1-0", "0-1", "1/2-1/2"))

    def test_an_engine_killed_after_the_stop_loses_no_game(self):
        # A hard stop (second SIGTERM, Ctrl-C) and the engine dies mid-move: the game is
        # dropped like any game cut short, not scored as the engine's crash.
        good = EnginePlayer(EngineSpec("good", sys.executable, [FAKE, "good"]), "good")
        bad = EnginePlayer(EngineSpec("bad", sys.executable, [FAKE, "hang", "2"]), "bad")
        settings = GameSettings(TimeControl.parse_clock("30+0"), AdjudicationRules())
        abort = threading.Event()

        def stop_and_kill():
            deadline = time.monotonic() + 20
            while sum("go " in line for line in bad.transcript.tail()) < 3:
                if time.monotonic() > deadline:
                    return
                time.sleep(0.01)
            time.sleep(0.2)  # the third `go` stays unanswered: the engine is in its move
            abort.set()
            bad.kill()

        killer = threading.Thread(target=stop_and_kill, daemon=True)
        killer.start()
        try:
            result = play_game(good, bad, Opening(0, "test", chess.STARTING_FEN), settings,
                               "1.1", abort)
        finally:
            killer.join(timeout=10)
            good.close()
            bad.close()
        self.assertIsNone(result)

    def test_time_odds_game(self):
        # White has twice Black's clock: each `go` carries both clocks, the PGN both tags.
        fast = EngineSpec("fast", sys.executable, [FAKE, "good"], tc=TimeControl.parse_clock("1+0.01"))
        slow = EngineSpec("slow", sys.executable, [FAKE, "good"], tc=TimeControl.parse_clock("2+0.02"))
        white, black = EnginePlayer(slow, "slow"), EnginePlayer(fast, "fast")
        settings = GameSettings(TimeControl.parse_clock("1+0.01"), AdjudicationRules())
        opening = Opening(0, "test", chess.STARTING_FEN)
        try:
            result = play_game(white, black, opening, settings, "1.1", threading.Event())
            first_go = next(line for line in white.transcript.tail() if "go " in line)
        finally:
            white.close()
            black.close()
        self.assertIsNone(result.bug)
        self.assertEqual(result.pgn.headers["WhiteTimeControl"], "2+0.02")
        self.assertEqual(result.pgn.headers["BlackTimeControl"], "1+0.01")
        self.assertNotIn("TimeControl", result.pgn.headers)
        self.assertIn("winc 20", first_go)
        self.assertIn("binc 10", first_go)


class PonderTest(unittest.TestCase):
    """With --ponder, engines think on the opponent's time and the clock runs from ponderhit."""

    @classmethod
    def setUpClass(cls):
        transcript.install()

    def test_a_ponder_search_is_charged_from_its_ponderhit(self):
        record = transcript.Transcript("x")
        record.add("<<", "go ponder wtime 1000 btime 1000")
        time.sleep(0.2)
        record.add("<<", "ponderhit")
        record.add(">>", "bestmove e2e4")
        self.assertLess(record.think_time(), 0.1)
        record.add("<<", "go wtime 1000 btime 1000 ponder")
        time.sleep(0.05)
        record.add("<<", "stop")
        record.add(">>", "bestmove e2e4")
        record.add("<<", "go wtime 1000 btime 1000")
        record.add(">>", "bestmove d2d4")
        self.assertLess(record.think_time(), 0.04, "a missed ponder: charged from the new go")

    def test_pondering_engines_play_a_clean_game_with_ponderhits(self):
        white = EnginePlayer(EngineSpec("white", sys.executable, [FAKE, "ponder"]), "white")
        black = EnginePlayer(EngineSpec("black", sys.executable, [FAKE, "ponder"]), "black")
        settings = GameSettings(TimeControl.parse_clock("2+0.05"), AdjudicationRules(), ponder=True)
        try:
            result = play_game(white, black, Opening(0, "test", chess.STARTING_FEN), settings, "1.1",
                               threading.Event())
            sent = [line for line in white.transcript.tail(1000) if "<<" in line]
        finally:
            white.close()
            black.close()
        self.assertIsNone(result.bug)
        self.assertTrue(any(line.endswith("ponderhit") for line in sent), sent[-20:])
        self.assertTrue(any("go ponder" in line or line.endswith(" ponder") for line in sent), sent[-20:])


class TerminateTest(unittest.TestCase):
    """SIGTERM finishes the started pair and still writes the summary."""

    def test_sigterm_finishes_started_pairs(self):
        import json
        import signal
        import subprocess
        import time

        with tempfile.TemporaryDirectory() as tmp:
            out = os.path.join(tmp, "out.json")
            proc = subprocess.Popen(
                [sys.executable, os.path.join(SCRIPTS, "match.py"),
                 "--engine", "name=a", f"cmd={sys.executable}", f"arg={FAKE}", "arg=good",
                 "--engine", "name=b", f"cmd={sys.executable}", f"arg={FAKE}", "arg=good",
                 "--tc", "1+0.01", "--pairs", "50", "--no-adjudication", "--json", out],
                stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
            # Wait until the first game has been played, then ask the runner to finish.
            for line in proc.stdout:
                if line.startswith("[   1 "):
                    break
            time.sleep(0.2)
            proc.send_signal(signal.SIGTERM)
            rest = proc.stdout.read()
            status = proc.wait(timeout=60)
            self.assertEqual(status, 0, rest)
            self.assertIn("Terminated: finishing the started pairs", rest)
            with open(out, encoding="utf-8") as handle:
                data = json.load(handle)
            self.assertEqual(data["stopped"], "terminated")
            row = data["matchups"][0]
            # The started pair was completed; no new pair was started.
            self.assertGreaterEqual(row["pairs"], 1)
            self.assertLess(row["pairs"], 50)
            self.assertEqual(row["games"], 2 * row["pairs"])


def pgn_game(round_label, white, black, result, tc="10+0.1", fen=None):
    setup = f'[SetUp "1"]\n[FEN "{fen}"]\n' if fen else ""
    return (f'[Event "t"]\n[Round "{round_label}"]\n[White "{white}"]\n[Black "{black}"]\n'
            f'[Result "{result}"]\n[TimeControl "{tc}"]\n{setup}\n1. e4 e5 {result}\n\n')


class ResumeTest(unittest.TestCase):
    """An interrupted match read back from its PGN: finished pairs count, the rest is played."""

    def finished(self, games, opponents=("b",), tc="10+0.1"):
        from lazuli_match.resume import finished_pairs
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "m.pgn")
            with open(path, "w", encoding="utf-8") as handle:
                handle.write("".join(games))
            return finished_pairs(path, "a", list(opponents), tc)

    def test_only_pairs_with_both_games_count_and_later_games_win(self):
        pairs = self.finished([
            pgn_game("1.1", "a", "b", "1-0"), pgn_game("1.2", "b", "a", "1/2-1/2"),
            pgn_game("2.1", "a", "b", "0-1"),  # its second game never finished
            pgn_game("3.2", "b", "a", "1-0"), pgn_game("3.1", "a", "b", "1/2-1/2"),
            pgn_game("4.1", "a", "b", "1-0"),  # cut off, then played again below
            pgn_game("4.1", "a", "b", "0-1"), pgn_game("4.2", "b", "a", "0-1"),
        ])
        self.assertEqual(pairs, {"b": {0: (1.0, 0.5), 2: (0.5, 0.0), 3: (0.0, 1.0)}})

    def test_a_pgn_of_another_match_is_refused(self):
        for games, opponents, tc in [
            ([pgn_game("1.1", "x", "b", "1-0")], ("b",), "10+0.1"),
            ([pgn_game("1.1", "a", "c", "1-0")], ("b",), "10+0.1"),
            ([pgn_game("1.1", "a", "b", "1-0", tc="60+0.6")], ("b",), "10+0.1"),
            ([pgn_game("7", "a", "b", "1-0")], ("b",), "10+0.1"),
            ([pgn_game("1.2", "a", "b", "1-0")], ("b",), "10+0.1"),
        ]:
            with self.assertRaises(ValueError):
                self.finished(games, opponents, tc)

    def test_a_resume_that_would_play_other_openings_is_refused(self):
        from lazuli_match.resume import finished_pairs
        book = ["8/8/8/4k3/8/8/8/4K2R w K - 0 1", "8/8/8/4k3/8/8/8/R3K3 w Q - 0 1"]
        games = [pgn_game("1.1", "a", "b", "1-0", fen=book[0]),
                 pgn_game("1.2", "b", "a", "1-0", fen=book[0]),
                 pgn_game("2.1", "a", "b", "1-0", fen=book[1]),
                 pgn_game("2.2", "b", "a", "0-1", fen=book[1])]
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "m.pgn")
            with open(path, "w", encoding="utf-8") as handle:
                handle.write("".join(games))
            pairs = finished_pairs(path, "a", ["b"], "10+0.1", planned=lambda p: book[p])
            self.assertEqual(pairs, {"b": {0: (1.0, 0.0), 1: (1.0, 1.0)}})
            with self.assertRaisesRegex(ValueError, "pair 1 was played from"):
                finished_pairs(path, "a", ["b"], "10+0.1", planned=lambda p: book[1 - p])
            with self.assertRaisesRegex(ValueError, "pair 1 was played from"):
                finished_pairs(path, "a", ["b"], "10+0.1", planned=lambda p: chess.STARTING_FEN)

    def test_time_odds_are_not_checked_against_one_clock(self):
        pairs = self.finished([pgn_game("1.1", "a", "b", "1-0", tc="-"),
                               pgn_game("1.2", "b", "a", "1-0", tc="-")], tc=None)
        self.assertEqual(pairs, {"b": {0: (1.0, 0.0)}})

    def test_a_resumed_match_plays_only_the_missing_pairs(self):
        import json
        import subprocess

        def run(tmp, extra):
            out = os.path.join(tmp, "out.json")
            done = subprocess.run(
                [sys.executable, os.path.join(SCRIPTS, "match.py"),
                 "--engine", "name=a", f"cmd={sys.executable}", f"arg={FAKE}", "arg=good",
                 "--engine", "name=b", f"cmd={sys.executable}", f"arg={FAKE}", "arg=good",
                 "--depth", "1", "--pairs", "3",
                 "--pgn", os.path.join(tmp, "m.pgn"), "--json", out, *extra],
                capture_output=True, text=True, timeout=300)
            # No clock: a loaded machine cannot make the fake engines lose on time.
            self.assertEqual(done.returncode, 0, done.stdout + done.stderr)
            with open(out, encoding="utf-8") as handle:
                return done.stdout, json.load(handle)["matchups"][0]

        with tempfile.TemporaryDirectory() as tmp:
            _, first = run(tmp, ["--resume"])  # no PGN yet: a fresh start
            self.assertEqual(first["games"], 6)
            # Cut the PGN after its fourth game, as if the machine had gone away.
            path = os.path.join(tmp, "m.pgn")
            with open(path, encoding="utf-8") as handle:
                text = handle.read()
            starts = [i for i in range(len(text)) if text.startswith("[Event ", i)]
            with open(path, "w", encoding="utf-8") as handle:
                handle.write(text[:starts[4]])
            output, resumed = run(tmp, ["--resume"])
            self.assertIn("resumed against b: pairs 2", output)
            self.assertEqual(sum(line.startswith("[") for line in output.splitlines()), 2)
            self.assertIn("[   5 ", output)  # numbered on from the four games counted
            self.assertEqual((resumed["games"], resumed["pairs"]), (6, 3))
            # Resuming a finished match plays nothing more.
            output, again = run(tmp, ["--resume"])
            self.assertFalse(any(line.startswith("[") for line in output.splitlines()))
            self.assertEqual(again["pentanomial"], resumed["pentanomial"])

    def test_an_sprt_is_decided_where_it_first_crossed_a_bound(self):
        import json
        import subprocess
        from lazuli_match.stats import Sprt
        sprt = Sprt(0.0, 10.0)
        # Pairs of a win and a draw, and of two draws, until the LLR crosses H1; then lost pairs,
        # as if they had been in flight at the stop, until it is back under the bound.
        results, penta = [], [0, 0, 0, 0, 0]
        while sprt.llr(penta) < sprt.upper_bound:
            kind = len(results) % 2
            results.append(("1-0", "1/2-1/2") if kind == 0 else ("1/2-1/2", "1/2-1/2"))
            penta[3 if kind == 0 else 2] += 1
        crossed = len(results)
        while sprt.llr(penta) >= sprt.upper_bound:
            results.append(("0-1", "1-0"))
            penta[0] += 1
        book = load_openings(os.path.join(SCRIPTS, "openings-large.epd"))
        games = []
        for pair, (first, second) in enumerate(results, start=1):
            fen = book[pair - 1].fen
            games += [pgn_game(f"{pair}.1", "a", "b", first, fen=fen),
                      pgn_game(f"{pair}.2", "b", "a", second, fen=fen)]
        with tempfile.TemporaryDirectory() as tmp:
            pgn, out = os.path.join(tmp, "m.pgn"), os.path.join(tmp, "out.json")
            with open(pgn, "w", encoding="utf-8") as handle:
                handle.write("".join(games))
            done = subprocess.run(
                [sys.executable, os.path.join(SCRIPTS, "match.py"),
                 "--engine", "name=a", f"cmd={sys.executable}", f"arg={FAKE}", "arg=good",
                 "--engine", "name=b", f"cmd={sys.executable}", f"arg={FAKE}", "arg=good",
                 "--tc", "10+0.1", "--pairs", str(len(results) + 20), "--sprt", "0", "10",
                 "--pgn", pgn, "--json", out, "--resume"],
                capture_output=True, text=True, timeout=300)
            self.assertEqual(done.returncode, 0, done.stdout + done.stderr)
            self.assertFalse(any(line.startswith("[") for line in done.stdout.splitlines()))
            with open(out, encoding="utf-8") as handle:
                row = json.load(handle)["matchups"][0]
        self.assertEqual(row["sprt"], "H1")
        self.assertEqual(row["sprt_decided_at"]["pairs"], crossed)
        self.assertLess(row["llr"], sprt.upper_bound)
        self.assertIn(f"H1 (decided at {crossed} pairs", done.stdout)

    def test_resume_needs_the_pgn(self):
        import match
        args = match.parse_args(["--engine", "name=a", "cmd=x", "--engine", "name=b", "cmd=y",
                                 "--tc", "1+0.01", "--resume"])
        with self.assertRaises(ValueError):
            match.build_config(args)


class EachTest(unittest.TestCase):
    def test_each_given_twice_adds_up_and_an_engines_own_setting_wins(self):
        import match
        args = match.parse_args([
            "--engine", "name=a", "cmd=x", "--engine", "name=b", "cmd=y", "option.Hash=8",
            "--each", "option.Hash=16", "--tc", "1+0.01", "--each", "option.Contempt=12",
        ])
        engines = match.build_config(args).engines
        self.assertEqual(engines[0].options, {"Hash": "16", "Contempt": "12"})
        self.assertEqual(engines[1].options, {"Hash": "8", "Contempt": "12"})


class RunnerFailureTest(unittest.TestCase):
    """An error of the runner itself (not an engine bug) must not end with a clean exit."""

    def test_an_engine_that_cannot_start_is_fatal_before_any_game(self):
        import io
        import match
        from contextlib import redirect_stdout
        for broken in (["cmd=/nonexistent/engine"],
                       [f"cmd={sys.executable}", f"arg={FAKE}", "arg=good", "option.NoSuch=1"]):
            with self.subTest(broken=broken), tempfile.TemporaryDirectory() as tmp:
                pgn = os.path.join(tmp, "m.pgn")
                out = io.StringIO()
                with redirect_stdout(out):
                    status = match.main([
                        "--engine", "name=a", f"cmd={sys.executable}", f"arg={FAKE}", "arg=good",
                        "--engine", "name=b", *broken, "--depth", "1", "--pairs", "3",
                        "--pgn", pgn])
                self.assertEqual(status, 3, out.getvalue())
                self.assertIn("fatal error", out.getvalue())
                with open(pgn, encoding="utf-8") as handle:
                    self.assertEqual(handle.read(), "", "no game may be played")

    def test_runner_error_exits_3(self):
        import match
        from unittest import mock

        def broken(*_args, **_kwargs):
            raise RuntimeError("runner failure")

        with tempfile.TemporaryDirectory() as tmp, \
                mock.patch("lazuli_match.runner.play_game", broken):
            status = match.main([
                "--engine", "name=a", f"cmd={sys.executable}", f"arg={FAKE}", "arg=good",
                "--engine", "name=b", f"cmd={sys.executable}", f"arg={FAKE}", "arg=good",
                "--tc", "1+0.01", "--pairs", "1", "--json", f"{tmp}/out.json",
            ])
        self.assertEqual(status, 3)


if __name__ == "__main__":
    unittest.main()
