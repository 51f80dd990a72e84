"""Match statistics: W/D/L, pentanomial Elo with a 95% interval, and the SPRT.

Games are played in pairs (same opening, colours reversed), so the unit of observation is the
pair. A pair scores 0, 1/2, 1, 3/2 or 2 points; the five counts are the *pentanomial*
(LL, LD, DD+WL, WD, WW). Treating pairs as independent samples of the per-game score
``x in {0, 1/4, 1/2, 3/4, 1}`` captures the correlation between the two games of a pair, which
the trinomial (W/D/L) model ignores and which makes its error bars too wide with balanced
openings.

Elo: the mean pair score ``mu`` maps to logistic Elo ``-400 log10(1/mu - 1)``; the 95% interval
maps ``mu +- 1.96 * sqrt(var / pairs)`` the same way, and the reported error is half its width.
Near a 100% (or 0%) score one end of the interval is infinite; the report then gives the interval
itself, whose other end still bounds the Elo. When every pair scored the same (all won, say) the
variance is zero and says nothing; the bound then comes from the "rule of three": with ``n``
pairs and no other outcome seen, the share of other outcomes is below ``3 / n`` at 95%, and
counting each as a lost pair gives ``mu >= 1 - 3 / n``.

SPRT: the log-likelihood ratio is the generalised SPRT used by fastchess and fishtest (after
Michel Van den Bergh, "Comments on Normalized Elo"): for each hypothesis, the pentanomial
distribution closest to the observed one (maximum likelihood) under the constraint that it has
the hypothesised Elo; ``LLR = pairs * sum(phat_i * log(p1_i / p0_i))``. Empty cells are replaced
by 1e-3 so that the logarithms exist. Two Elo models:

- ``normalized`` (default, as fastchess): the constraint is on the normalised t-value
  ``(mu - 1/2) / sigma``, with nElo = t * 800 / ln(10) / sqrt(2) per pair (so nElo is
  per-game-normalised);
- ``logistic``: the constraint is on the mean score, ``mu = 1 / (1 + 10^(-elo/400))``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Callable, List, Optional, Sequence

PAIR_SCORES = (0.0, 0.25, 0.5, 0.75, 1.0)
PENTA_LABELS = ("LL", "LD", "DD/WL", "WD", "WW")
Z_95 = 1.959963984540054
NELO_SCALE = 800.0 / math.log(10.0)
REGULARIZE = 1e-3


@dataclass
class Tally:
    """Results from the point of view of one engine against one opponent."""

    wins: int = 0
    draws: int = 0
    losses: int = 0
    penta: List[int] = field(default_factory=lambda: [0, 0, 0, 0, 0])

    @property
    def games(self) -> int:
        return self.wins + self.draws + self.losses

    @property
    def pairs(self) -> int:
        return sum(self.penta)

    @property
    def points(self) -> float:
        return self.wins + 0.5 * self.draws

    def add_game(self, score: float) -> None:
        if score == 1.0:
            self.wins += 1
        elif score == 0.5:
            self.draws += 1
        else:
            self.losses += 1

    def add_pair(self, first: float, second: float) -> None:
        self.penta[int(round((first + second) * 2))] += 1


def logistic_elo(score: float) -> float:
    """Elo difference for an expected score (infinite at 0 and 1)."""
    if score <= 0.0:
        return -math.inf
    if score >= 1.0:
        return math.inf
    return -400.0 * math.log10(1.0 / score - 1.0)


def logistic_score(elo: float) -> float:
    return 1.0 / (1.0 + 10.0 ** (-elo / 400.0))


def _mean_var(values: Sequence[float], probs: Sequence[float]) -> tuple:
    mu = sum(v * p for v, p in zip(values, probs))
    var = sum(p * (v - mu) ** 2 for v, p in zip(values, probs))
    return mu, var


@dataclass(frozen=True)
class EloEstimate:
    elo: float
    lower: float
    upper: float
    error: float  # half-width of the 95% interval
    score: float  # mean score per game
    los: float  # likelihood of superiority
    nelo: float  # normalised Elo (per-game scale)
    nelo_error: float


def pentanomial_elo(penta: Sequence[int]) -> Optional[EloEstimate]:
    """Elo and 95% interval from pentanomial counts; None without any pair."""
    pairs = sum(penta)
    if pairs == 0:
        return None
    probs = [count / pairs for count in penta]
    mu, var = _mean_var(PAIR_SCORES, probs)
    stderr = math.sqrt(var / pairs)
    lower = logistic_elo(mu - Z_95 * stderr)
    upper = logistic_elo(mu + Z_95 * stderr)
    if stderr == 0.0:
        # Every pair scored the same: bound the share of unseen outcomes by 3 / pairs.
        unseen = 3.0 / pairs
        lower = logistic_elo(mu - unseen) if mu - unseen > 0.0 else -math.inf
        upper = logistic_elo(mu + unseen) if mu + unseen < 1.0 else math.inf
    error = (upper - lower) / 2.0 if math.isfinite(upper - lower) else math.inf
    if stderr > 0.0:
        los = 0.5 * (1.0 + math.erf((mu - 0.5) / (stderr * math.sqrt(2.0))))
        sigma_game = math.sqrt(2.0 * var)
        nelo = (mu - 0.5) / sigma_game * NELO_SCALE
        nelo_error = Z_95 * stderr / sigma_game * NELO_SCALE
    else:
        los = 1.0 if mu > 0.5 else 0.0 if mu < 0.5 else 0.5
        nelo = math.copysign(math.inf, mu - 0.5) if mu != 0.5 else 0.0
        nelo_error = math.inf
    return EloEstimate(logistic_elo(mu) + 0.0, lower, upper, error, mu, los, nelo, nelo_error)


def format_elo(est: EloEstimate) -> str:
    """``+12.3 +- 4.5``, or the interval itself (``+683.0 [+493, +inf]``) when one end of it is
    infinite."""
    if math.isfinite(est.error):
        return f"{est.elo:+.1f} +- {est.error:.1f}"
    return f"{est.elo:+.1f} [{est.lower:+.0f}, {est.upper:+.0f}]"


# --- SPRT -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Sprt:
    elo0: float
    elo1: float
    alpha: float = 0.05
    beta: float = 0.05
    model: str = "normalized"

    def __post_init__(self) -> None:
        if not self.elo0 < self.elo1:
            raise ValueError("SPRT needs elo0 < elo1")
        if not (0.0 < self.alpha < 1.0 and 0.0 < self.beta < 1.0 and self.alpha + self.beta < 1.0):
            raise ValueError("SPRT needs 0 < alpha, beta and alpha + beta < 1")
        if self.model not in ("normalized", "logistic"):
            raise ValueError("SPRT model is normalized or logistic")

    @property
    def lower_bound(self) -> float:
        return math.log(self.beta / (1.0 - self.alpha))

    @property
    def upper_bound(self) -> float:
        return math.log((1.0 - self.beta) / self.alpha)

    def llr(self, penta: Sequence[int]) -> float:
        return pentanomial_llr(penta, self.elo0, self.elo1, self.model)

    def decision(self, llr: float) -> Optional[str]:
        """``"H1"`` (accept elo1), ``"H0"`` (accept elo0) or None (keep playing)."""
        if llr >= self.upper_bound:
            return "H1"
        if llr <= self.lower_bound:
            return "H0"
        return None


def pentanomial_llr(penta: Sequence[int], elo0: float, elo1: float, model: str) -> float:
    if sum(penta) == 0:
        return 0.0
    counts = [count if count > 0 else REGULARIZE for count in penta]
    total = sum(counts)
    phat = [count / total for count in counts]
    if model == "normalized":
        t0 = math.sqrt(2.0) * elo0 / NELO_SCALE
        t1 = math.sqrt(2.0) * elo1 / NELO_SCALE
        p0 = mle_given_t(PAIR_SCORES, phat, 0.5, t0)
        p1 = mle_given_t(PAIR_SCORES, phat, 0.5, t1)
    else:
        p0 = mle_given_mean(PAIR_SCORES, phat, logistic_score(elo0))
        p1 = mle_given_mean(PAIR_SCORES, phat, logistic_score(elo1))
    return total * sum(q * (math.log(b) - math.log(a)) for q, a, b in zip(phat, p0, p1))


def _solve_decreasing(f: Callable[[float], float], lo: float, hi: float) -> float:
    """Root of a function decreasing on the open interval (lo, hi), from +inf to -inf."""
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        if mid in (lo, hi):
            break
        if f(mid) > 0.0:
            lo = mid
        else:
            hi = mid
    return 0.5 * (lo + hi)


def _reweight(phat: Sequence[float], phi: Sequence[float]) -> List[float]:
    """``p_i = phat_i / (1 + theta phi_i)`` with theta making ``sum p_i phi_i = 0``.

    This is the maximum-likelihood distribution (relative to ``phat``) under the linear
    constraint ``E[phi] = 0``; the function of theta below is strictly decreasing between its
    poles, so bisection finds the one root.
    """
    lo = -1.0 / max(phi)
    hi = -1.0 / min(phi)
    theta = _solve_decreasing(
        lambda x: sum(q * v / (1.0 + x * v) for q, v in zip(phat, phi)), lo, hi
    )
    return [q / (1.0 + theta * v) for q, v in zip(phat, phi)]


def mle_given_mean(values: Sequence[float], phat: Sequence[float], mean: float) -> List[float]:
    """The distribution closest to ``phat`` whose expectation is ``mean``."""
    return _reweight(phat, [v - mean for v in values])


def mle_given_t(
    values: Sequence[float], phat: Sequence[float], mu_ref: float, t: float
) -> List[float]:
    """The distribution closest to ``phat`` with ``(mean - mu_ref) / sigma = t``.

    The constraint is not linear; it is linearised around the current estimate and the
    reweighting repeated until the estimate stops moving (a handful of iterations).
    """
    p = [1.0 / len(values)] * len(values)
    for _ in range(100):
        mu, var = _mean_var(values, p)
        sigma = math.sqrt(var)
        phi = [
            v - mu_ref - 0.5 * t * sigma * (1.0 + ((v - mu) / sigma) ** 2) for v in values
        ]
        new_p = _reweight(phat, phi)
        moved = max(abs(a - b) for a, b in zip(new_p, p))
        p = new_p
        if moved < 1e-9:
            break
    return p
