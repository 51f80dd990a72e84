"""SPSA over the engine's search constants: the state of a tuning run and its arithmetic.

The state is one small JSON file, written after every iteration, that holds everything a run
needs to go on from where it stopped on any machine: the parameters' current values, the
iteration, the seed, the schedule and the limit the games are played at. Each iteration draws
a random direction (+1 or -1 for every parameter) from the seed and the iteration's number,
plays game pairs between the values moved one step each way, and moves the values along the
direction in proportion to how much the one side outscored the other.

The schedule is the usual one (Spall), given as OpenBench's tuner gives it: per parameter the
step ``c_end`` and the learning rate ``r_end`` the run should have reached at its last
iteration ``N``; then at iteration ``k``

    c_k = c_end * (N / k) ** gamma
    a_k = r_end * c_end ** 2 * ((A + N) / (A + k)) ** alpha,      A = a_ratio * N

and the update is ``value += a_k * (wins - losses) * direction / c_k``.
"""

from __future__ import annotations

import json
import os
import random
import re
from dataclasses import asdict, dataclass, field
from typing import Dict, List, Optional, Sequence, Tuple

FORMAT = 1


@dataclass
class Param:
    name: str
    value: float  # the current estimate; the engine is given it rounded
    start: int
    low: int
    high: int
    c_end: float
    r_end: float

    def clamp(self, value: float) -> float:
        return min(float(self.high), max(float(self.low), value))


@dataclass
class Schedule:
    iterations: int  # N: the run's planned length, which fixes the gains
    alpha: float = 0.602
    gamma: float = 0.101
    a_ratio: float = 0.1

    def step(self, param: Param, k: int) -> float:
        """c_k: how far each side of iteration ``k`` (1-based) moves ``param``."""
        return param.c_end * (self.iterations / k) ** self.gamma

    def rate(self, param: Param, k: int) -> float:
        """a_k: the learning rate of iteration ``k``."""
        big_a = self.a_ratio * self.iterations
        return param.r_end * param.c_end**2 * ((big_a + self.iterations) / (big_a + k)) ** self.alpha


@dataclass
class Tally:
    """Games of the plus side against the minus side."""

    wins: int = 0
    draws: int = 0
    losses: int = 0

    @property
    def games(self) -> int:
        return self.wins + self.draws + self.losses


@dataclass
class State:
    seed: int
    schedule: Schedule
    limit: Dict[str, object]  # {"nodes": N} or {"tc": "BASE+INC"}
    options: Dict[str, str]  # UCI options for both sides (Hash, Threads)
    pairs_per_iteration: int
    params: List[Param]
    iteration: int = 0  # iterations done
    tally: Tally = field(default_factory=Tally)

    # --- one iteration ------------------------------------------------------------------------

    def direction(self, k: int) -> List[int]:
        """Iteration ``k``'s direction: the same on every machine for one seed."""
        rng = random.Random(f"spsa-direction:{self.seed}:{k}")
        return [rng.choice((-1, 1)) for _ in self.params]

    def opening_picks(self, k: int, count: int) -> List[int]:
        """Which of ``count`` openings each pair of iteration ``k`` starts from."""
        rng = random.Random(f"spsa-openings:{self.seed}:{k}")
        return [rng.randrange(count) for _ in range(self.pairs_per_iteration)]

    def sides(self, k: int) -> Tuple[Dict[str, int], Dict[str, int]]:
        """The values the plus and the minus side of iteration ``k`` play with (rounded)."""
        plus: Dict[str, int] = {}
        minus: Dict[str, int] = {}
        for param, sign in zip(self.params, self.direction(k)):
            step = self.schedule.step(param, k) * sign
            plus[param.name] = round(param.clamp(param.value + step))
            minus[param.name] = round(param.clamp(param.value - step))
        return plus, minus

    def update(self, k: int, tally: Tally) -> None:
        """Moves every value along iteration ``k``'s direction by the plus side's margin."""
        if k != self.iteration + 1:
            raise ValueError(f"iteration {k} applied after {self.iteration}")
        margin = tally.wins - tally.losses
        for param, sign in zip(self.params, self.direction(k)):
            gain = self.schedule.rate(param, k) / self.schedule.step(param, k)
            param.value = param.clamp(param.value + gain * margin * sign)
        self.iteration = k
        self.tally.wins += tally.wins
        self.tally.draws += tally.draws
        self.tally.losses += tally.losses

    # --- reading and writing --------------------------------------------------------------------

    def to_json(self) -> str:
        data = {"format": FORMAT, **asdict(self)}
        return json.dumps(data, indent=1) + "\n"

    @staticmethod
    def from_json(text: str) -> "State":
        """The state in ``text``; ValueError naming the problem if it is not one."""
        try:
            data = json.loads(text)
            if not isinstance(data, dict) or data.get("format") != FORMAT:
                found = data.get("format") if isinstance(data, dict) else None
                raise ValueError(f"SPSA state format {found!r}, this tool reads {FORMAT}")
            return State._from_dict(data)
        except (KeyError, TypeError, AttributeError) as err:
            raise ValueError(f"not an SPSA state: {err!r}") from err

    @staticmethod
    def _from_dict(data: dict) -> "State":
        return State(
            seed=int(data["seed"]),
            schedule=Schedule(**data["schedule"]),
            limit=dict(data["limit"]),
            options={str(k): str(v) for k, v in data["options"].items()},
            pairs_per_iteration=int(data["pairs_per_iteration"]),
            params=[Param(**p) for p in data["params"]],
            iteration=int(data["iteration"]),
            tally=Tally(**data["tally"]),
        )

    def save(self, path: str) -> None:
        """Writes the state so that a crash at any moment leaves the old or the new file."""
        replace_file(path, self.to_json())

    @staticmethod
    def load(path: str) -> "State":
        with open(path, encoding="utf-8") as handle:
            try:
                return State.from_json(handle.read())
            except ValueError as err:
                raise ValueError(f"{path}: {err}") from err


def replace_file(path: str, text: str) -> None:
    """Writes ``text`` (line endings as they are) to ``path`` through a temporary file beside it,
    renamed over it once written and synced: a crash or an error at any moment leaves the old
    file or the new one, and no temporary file."""
    temporary = f"{path}.tmp"
    try:
        with open(temporary, "w", encoding="utf-8", newline="") as handle:
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(temporary, path)
    finally:
        if os.path.exists(temporary):
            os.remove(temporary)


def parse_params(text: str, only: Optional[Sequence[str]] = None,
                 skip_prefixes: Sequence[str] = ()) -> List[Param]:
    """Parameters from ``lazuli spsa`` output (``name, int, value, min, max, C_end, R_end``)."""
    params: List[Param] = []
    for number, line in enumerate(text.splitlines(), start=1):
        fields = [f.strip() for f in line.split(",")]
        if len(fields) != 7:
            continue  # the note that a plain build has no such options, blank lines
        name, kind, value, low, high, c_end, r_end = fields
        if kind != "int":
            raise ValueError(f"line {number}: parameter {name} is {kind!r}, not int")
        if only is not None and name not in only:
            continue
        if any(name.startswith(prefix) for prefix in skip_prefixes):
            continue
        params.append(Param(name, float(value), int(value), int(low), int(high),
                            float(c_end), float(r_end)))
    if only is not None:
        missing = set(only) - {p.name for p in params}
        if missing:
            raise ValueError(f"the engine has no tunable {sorted(missing)}")
    if not params:
        raise ValueError("no parameters to tune")
    return params


def moved(state: State) -> List[Tuple[str, int, int]]:
    """(name, start, current value rounded) of every parameter whose rounded value moved."""
    return [(p.name, p.start, round(p.value)) for p in state.params if round(p.value) != p.start]


def tuned_values(state: State) -> Dict[str, int]:
    """Every parameter's current value, rounded as the engine is given it."""
    return {p.name: round(p.value) for p in state.params}


def option_arguments(values: Dict[str, int]) -> List[str]:
    """``option.NAME=VALUE`` for each value: an ``--engine`` entry of match.py for an ``spsa``
    build that plays with them."""
    return [f"option.{name}={value}" for name, value in values.items()]


def apply_to_source(source: str, state: State) -> Tuple[str, List[Tuple[str, int, int]]]:
    """``source`` (``engine/src/search/params.rs``) with each of the run's constants' default
    replaced by its value (rounded), and (name, old, new) for each default that changed; a
    source that already holds the values comes back unchanged. ValueError names a constant the
    source does not declare exactly once, or declares with another range, or with a default
    that is neither the run's start nor its value (a hand edit the run knows nothing of)."""
    changes: List[Tuple[str, int, int]] = []
    for param in state.params:
        declaration = re.compile(
            rf"^([ \t]*{re.escape(param.name)} = )(-?\d+)(, (-?\d+)\.\.=(-?\d+), step \d+;)",
            re.MULTILINE)
        found = declaration.findall(source)
        if len(found) != 1:
            raise ValueError(f"{param.name} is declared {len(found)} times in the source, not once")
        _, old, _, low, high = found[0]
        declared, value = int(old), round(param.value)
        # The start (not applied yet) or the value itself (applied before: nothing to do).
        if declared not in (param.start, value) or (int(low), int(high)) != (param.low, param.high):
            raise ValueError(
                f"{param.name} is {declared} in {low}..={high} in the source, "
                f"the run started from {param.start} in {param.low}..={param.high}")
        if value != declared:
            changes.append((param.name, declared, value))
        source = declaration.sub(lambda m, v=value: f"{m.group(1)}{v}{m.group(3)}", source)
    return source, changes
