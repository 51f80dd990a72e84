"""Tests of the SPSA tool: the schedule, the update's direction, the state file and a run.

Run: .venv/bin/python -m unittest discover -s scripts/tests
"""

import json
import os
import random
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
SCRIPTS = os.path.dirname(HERE)
sys.path.insert(0, SCRIPTS)

from lazuli_match.spsa import (Param, Schedule, State, Tally, apply_to_source,  # noqa: E402
                               option_arguments, parse_params, replace_file, tuned_values)

FAKE = os.path.join(HERE, "fake_engine.py")
SPSA = os.path.join(SCRIPTS, "spsa.py")
ROOT = os.path.dirname(SCRIPTS)

SOURCE = """\
tunables! {
    // Razoring: drop into quiescence when far below alpha.
    RAZOR_MAX_DEPTH = 3, 1..=5, step 1;
    RAZOR_MARGIN = 250, 100..=500, step 25;
    // RAZOR_MARGIN = 200, 100..=500, step 25;
    RAZOR_MARGIN_X = 5, 1..=9, step 1;
    LMR_NOISY_BASE = -10, -100..=100, step 10;
}
"""


def source_state(values):
    """A run over SOURCE's constants, started from its defaults, now at ``values``."""
    declared = {"RAZOR_MAX_DEPTH": (3, 1, 5), "RAZOR_MARGIN": (250, 100, 500),
                "RAZOR_MARGIN_X": (5, 1, 9), "LMR_NOISY_BASE": (-10, -100, 100)}
    return new_state([Param(name, float(value), *declared[name], 1.0, 0.002)
                      for name, value in values.items()])

LISTING = """\
RAZOR_MARGIN, int, 250, 100, 500, 25, 0.002
TM_SOFT_PERCENT, int, 60, 40, 90, 5, 0.002
LMR_QUIET_BASE, int, 80, 0, 200, 10, 0.002
"""


def new_state(params, iterations=2000, seed=7):
    return State(seed=seed, schedule=Schedule(iterations), limit={"nodes": 1000}, options={},
                 pairs_per_iteration=2, params=params)


def synthetic_iteration(state, k, targets, rng):
    """Two pairs where each game goes to the side nearer its targets with probability 0.7
    (a parameter without a target plays no part: its games are coin flips)."""
    plus, minus = state.sides(k)
    nearer = sum(abs(minus[n] - t) - abs(plus[n] - t) for n, t in targets.items())
    p_plus = 0.5 if nearer == 0 else (0.7 if nearer > 0 else 0.3)
    tally = Tally()
    for _ in range(2 * state.pairs_per_iteration):
        if rng.random() < p_plus:
            tally.wins += 1
        else:
            tally.losses += 1
    return tally


class SpsaArithmeticTest(unittest.TestCase):
    def test_the_schedule_ends_at_the_declared_step_and_rate(self):
        param = Param("X", 100.0, 100, 0, 200, 10.0, 0.002)
        schedule = Schedule(5000)
        self.assertAlmostEqual(schedule.step(param, 5000), 10.0)
        self.assertAlmostEqual(schedule.rate(param, 5000), 0.002 * 100)
        self.assertGreater(schedule.step(param, 1), schedule.step(param, 2500))
        self.assertGreater(schedule.rate(param, 1), schedule.rate(param, 2500))

    def test_values_climb_to_what_wins_and_a_parameter_that_plays_no_part_stays_near_its_start(self):
        state = new_state([Param("GOOD", 50.0, 50, 0, 100, 5.0, 0.002),
                           Param("IDLE", 50.0, 50, 0, 100, 5.0, 0.002)])
        rng = random.Random(3)
        for k in range(1, 2001):
            state.update(k, synthetic_iteration(state, k, {"GOOD": 80}, rng))
        good, idle = state.params
        self.assertLess(abs(good.value - 80), 8, f"GOOD ended at {good.value}")
        self.assertLess(abs(idle.value - 50), 12, f"IDLE wandered to {idle.value}")
        self.assertEqual(state.tally.games, 8000)

    def test_values_stay_inside_their_range(self):
        state = new_state([Param("LOW", 2.0, 2, 0, 10, 3.0, 0.5)])
        for k in range(1, 200):
            plus, minus = state.sides(k)
            self.assertTrue(0 <= minus["LOW"] <= plus["LOW"] + 6 and plus["LOW"] <= 10)
            # The minus side always wins: the value is pushed down against its floor.
            wins = 4 if state.direction(k)[0] < 0 else 0
            state.update(k, Tally(wins=wins, losses=4 - wins))
            self.assertGreaterEqual(state.params[0].value, 0.0)
        self.assertEqual(state.params[0].value, 0.0)

    def test_a_run_stopped_and_resumed_from_its_file_ends_where_an_unbroken_one_does(self):
        def params():
            return [Param("A", 50.0, 50, 0, 100, 5.0, 0.002), Param("B", 10.0, 10, 0, 40, 2.0, 0.002)]

        whole = new_state(params())
        rng_whole = random.Random(11)
        for k in range(1, 301):
            whole.update(k, synthetic_iteration(whole, k, {"A": 70, "B": 5}, rng_whole))

        broken = new_state(params())
        rng_broken = random.Random(11)
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "state.json")
            for k in range(1, 301):
                broken.update(k, synthetic_iteration(broken, k, {"A": 70, "B": 5}, rng_broken))
                if k % 100 == 0:
                    broken.save(path)
                    broken = State.load(path)
            self.assertEqual(os.listdir(tmp), ["state.json"], "no temporary file left")
        self.assertEqual(broken.to_json(), whole.to_json())

    def test_an_iteration_applied_twice_or_out_of_order_is_refused(self):
        state = new_state([Param("A", 50.0, 50, 0, 100, 5.0, 0.002)])
        state.update(1, Tally(wins=1, draws=3))
        with self.assertRaises(ValueError):
            state.update(1, Tally(wins=1, draws=3))
        with self.assertRaises(ValueError):
            state.update(3, Tally(draws=4))

    def test_the_engine_listing_is_read_with_its_filters(self):
        names = [p.name for p in parse_params(LISTING + "note: not a parameter\n")]
        self.assertEqual(names, ["RAZOR_MARGIN", "TM_SOFT_PERCENT", "LMR_QUIET_BASE"])
        self.assertEqual([p.name for p in parse_params(LISTING, skip_prefixes=["TM_"])],
                         ["RAZOR_MARGIN", "LMR_QUIET_BASE"])
        razor = parse_params(LISTING, only=["RAZOR_MARGIN"])[0]
        self.assertEqual((razor.value, razor.low, razor.high, razor.c_end), (250.0, 100, 500, 25.0))
        with self.assertRaises(ValueError):
            parse_params(LISTING, only=["NO_SUCH"])
        with self.assertRaises(ValueError):
            parse_params("X, float, 1.5, 0, 2, 0.1, 0.002\n")


class SpsaResultTest(unittest.TestCase):
    """What a run's values become: options to test them with, then the source's defaults."""

    def test_the_values_become_the_sources_defaults_and_nothing_else_changes(self):
        state = source_state({"RAZOR_MARGIN": 231.4, "LMR_NOISY_BASE": -13.6, "RAZOR_MAX_DEPTH": 3.2})
        changed, changes = apply_to_source(SOURCE, state)
        self.assertEqual(changes, [("RAZOR_MARGIN", 250, 231), ("LMR_NOISY_BASE", -10, -14)])
        expected = SOURCE.replace("    RAZOR_MARGIN = 250,", "    RAZOR_MARGIN = 231,").replace(
            "LMR_NOISY_BASE = -10,", "LMR_NOISY_BASE = -14,")
        self.assertEqual(changed, expected)
        # Applied again, the values change nothing.
        self.assertEqual(apply_to_source(changed, state), (changed, []))
        # The commented-out declaration and the constant whose name starts the same are kept.
        self.assertIn("// RAZOR_MARGIN = 200,", changed)
        self.assertIn("RAZOR_MARGIN_X = 5,", changed)

    def test_a_constant_the_source_does_not_declare_as_the_run_began_is_refused(self):
        state = source_state({"RAZOR_MARGIN": 200.0})
        state.params.append(Param("NO_SUCH", 1.0, 1, 0, 2, 1.0, 0.002))
        with self.assertRaisesRegex(ValueError, "NO_SUCH is declared 0 times"):
            apply_to_source(SOURCE, state)
        twice = SOURCE + "    RAZOR_MARGIN = 250, 100..=500, step 25;\n"
        with self.assertRaisesRegex(ValueError, "RAZOR_MARGIN is declared 2 times"):
            apply_to_source(twice, source_state({"RAZOR_MARGIN": 200.0}))
        # A default or a range edited by hand since the run began is not overwritten.
        for edited in ("RAZOR_MARGIN = 260, 100..=500", "RAZOR_MARGIN = 250, 100..=600"):
            source = SOURCE.replace("RAZOR_MARGIN = 250, 100..=500", edited, 1)
            with self.assertRaisesRegex(ValueError, "the run started from 250 in 100..=500"):
                apply_to_source(source, source_state({"RAZOR_MARGIN": 200.0}))

    def test_the_values_are_given_rounded_as_match_options(self):
        state = new_state([Param("A", 49.6, 50, 0, 100, 5.0, 0.002),
                           Param("B", -3.4, -2, -10, 10, 1.0, 0.002)])
        self.assertEqual(option_arguments(tuned_values(state)), ["option.A=50", "option.B=-3"])

    def test_the_committed_run_starts_from_the_engines_declarations(self):
        state = State.load(os.path.join(ROOT, "notes", "data", "spsa", "state.json"))
        with open(os.path.join(ROOT, "engine", "src", "search", "params.rs"), encoding="utf-8") as f:
            source = f.read()
        # ValueError for a constant not declared once, or with another range, or a default that
        # is neither the run's start nor (once applied) its value.
        apply_to_source(source, state)

    def test_apply_writes_the_file_only_when_every_constant_is_found(self):
        with tempfile.TemporaryDirectory() as tmp:
            state_path = os.path.join(tmp, "state.json")
            source_path = os.path.join(tmp, "params.rs")
            with open(source_path, "w", encoding="utf-8", newline="") as handle:
                handle.write(SOURCE.replace("\n", "\r\n"))
            source_state({"RAZOR_MARGIN": 231.4}).save(state_path)
            spsa = [sys.executable, SPSA, "apply", "--state", state_path, "--source", source_path]
            done = subprocess.run(spsa, capture_output=True, text=True, timeout=60)
            self.assertEqual(done.returncode, 0, done.stderr)
            self.assertIn("RAZOR_MARGIN 250 -> 231", done.stdout)
            with open(source_path, "rb") as handle:
                written = handle.read()
            self.assertEqual(written, SOURCE.replace("    RAZOR_MARGIN = 250,", "    RAZOR_MARGIN = 231,")
                             .replace("\n", "\r\n").encode())
            # A run whose start is no longer the source's leaves the file as it was.
            source_state({"RAZOR_MARGIN": 180.0}).save(state_path)
            done = subprocess.run(spsa, capture_output=True, text=True, timeout=60)
            self.assertEqual(done.returncode, 1)
            self.assertIn("RAZOR_MARGIN is 231", done.stderr)
            self.assertNotIn("Traceback", done.stderr)
            with open(source_path, "rb") as handle:
                self.assertEqual(handle.read(), written)
            self.assertEqual(os.listdir(tmp).count("params.rs.tmp"), 0)

    def test_a_failed_replacement_leaves_the_old_file_and_no_temporary_one(self):
        with tempfile.TemporaryDirectory() as tmp:
            target = os.path.join(tmp, "params.rs")
            os.mkdir(target)  # a directory cannot be replaced by a file
            with self.assertRaises(OSError):
                replace_file(target, "text\n")
            self.assertEqual(sorted(os.listdir(tmp)), ["params.rs"])
            self.assertTrue(os.path.isdir(target))

    def test_options_prints_the_values_for_match_py(self):
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "state.json")
            source_state({"RAZOR_MARGIN": 231.4, "RAZOR_MAX_DEPTH": 3.2}).save(path)
            spsa = [sys.executable, SPSA, "options", "--state", path]
            every = subprocess.run(spsa, capture_output=True, text=True, timeout=60)
            self.assertEqual(every.stdout.split(), ["option.RAZOR_MARGIN=231", "option.RAZOR_MAX_DEPTH=3"])
            moved_only = subprocess.run([*spsa, "--moved"], capture_output=True, text=True, timeout=60)
            self.assertEqual(moved_only.stdout.split(), ["option.RAZOR_MARGIN=231"])
            source_state({"RAZOR_MAX_DEPTH": 3.2}).save(path)
            none = subprocess.run([*spsa, "--moved"], capture_output=True, text=True, timeout=60)
            self.assertEqual((none.returncode, none.stdout), (1, ""))
            self.assertIn("no value has moved", none.stderr)


class SpsaRunTest(unittest.TestCase):
    """The tool against the fake engine, whose Hash option stands in for a search constant."""

    def write_state(self, tmp):
        state = State(seed=5, schedule=Schedule(100), limit={"nodes": 100}, options={"Threads": "1"},
                      pairs_per_iteration=2, params=[Param("Hash", 16.0, 16, 1, 64, 4.0, 0.002)])
        path = os.path.join(tmp, "state.json")
        state.save(path)
        return path

    def spsa(self, *args):
        return subprocess.run([sys.executable, SPSA, *args], capture_output=True, text=True,
                              timeout=120)

    def test_a_run_plays_its_iterations_and_saves_them(self):
        with tempfile.TemporaryDirectory() as tmp:
            path = self.write_state(tmp)
            engine = f"{sys.executable} {FAKE} good"
            done = self.spsa("run", "--state", path, "--engine", engine, "--count", "2")
            self.assertEqual(done.returncode, 0, done.stderr)
            with open(path, encoding="utf-8") as handle:
                saved = json.load(handle)
            self.assertEqual(saved["iteration"], 2)
            self.assertEqual(sum(saved["tally"].values()), 8)
            again = self.spsa("run", "--state", path, "--engine", engine, "--count", "1")
            self.assertEqual(again.returncode, 0, again.stderr)
            self.assertEqual(State.load(path).iteration, 3)
            shown = self.spsa("show", "--state", path)
            self.assertIn("iteration 3 of 100", shown.stdout)
            self.assertRegex(shown.stdout, r"Hash\s+16 ->")

    def test_a_run_stops_at_the_end_of_its_schedule(self):
        with tempfile.TemporaryDirectory() as tmp:
            path = self.write_state(tmp)
            state = State.load(path)
            state.schedule = Schedule(3)
            state.save(path)
            engine = f"{sys.executable} {FAKE} good"
            done = self.spsa("run", "--state", path, "--engine", engine, "--count", "5")
            self.assertEqual(done.returncode, 0, done.stderr)
            self.assertEqual(State.load(path).iteration, 3)
            self.assertIn("the run is complete", done.stdout)
            again = self.spsa("run", "--state", path, "--engine", engine, "--count", "1")
            self.assertEqual(again.returncode, 0, again.stderr)
            self.assertEqual(State.load(path).iteration, 3)
            self.assertIn("the run is complete", again.stdout)

    def test_an_engine_that_crashes_stops_the_run_and_the_iteration_does_not_count(self):
        with tempfile.TemporaryDirectory() as tmp:
            path = self.write_state(tmp)
            done = self.spsa("run", "--state", path, "--engine", f"{sys.executable} {FAKE} crash 2",
                             "--count", "3")
            self.assertEqual(done.returncode, 2, done.stdout)
            self.assertIn("iteration 1 not counted", done.stderr)
            self.assertIn("crash", done.stderr)
            self.assertEqual(State.load(path).iteration, 0)

    def test_a_damaged_state_is_named_and_left_alone(self):
        with tempfile.TemporaryDirectory() as tmp:
            path = self.write_state(tmp)
            with open(path, encoding="utf-8") as handle:
                text = handle.read()
            for damaged in (text[: len(text) // 2], text.replace('"params"', '"parameters"'), "[]"):
                with open(path, "w", encoding="utf-8") as handle:
                    handle.write(damaged)
                done = self.spsa("show", "--state", path)
                self.assertEqual(done.returncode, 1, done.stderr)
                self.assertIn(path, done.stderr)
                self.assertNotIn("Traceback", done.stderr)
                with open(path, encoding="utf-8") as handle:
                    self.assertEqual(handle.read(), damaged)

    def test_init_refuses_to_overwrite_a_run(self):
        with tempfile.TemporaryDirectory() as tmp:
            path = self.write_state(tmp)
            done = self.spsa("init", "--state", path, "--engine", "true", "--iterations", "10",
                             "--nodes", "1000")
            self.assertEqual(done.returncode, 1)
            self.assertIn("exists", done.stderr)
            self.assertEqual(State.load(path).iteration, 0)


if __name__ == "__main__":
    unittest.main()
