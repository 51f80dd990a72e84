"""One matchup's summary row (JSON) and its lines in the printed result."""

from __future__ import annotations

from typing import Dict, List, Sequence

from .stats import PENTA_LABELS, format_elo, pentanomial_elo


def elo_fields(penta: Sequence[int]) -> Dict[str, object]:
    """The Elo part of a summary row, from the pentanomial counts."""
    est = pentanomial_elo(penta)
    return {
        "elo": est.elo if est else None,
        "elo_error_95": est.error if est else None,
        "elo_interval_95": [est.lower, est.upper] if est else None,
        "los": est.los if est else None,
        "nelo": est.nelo if est else None,
    }


def matchup_lines(row: Dict[str, object]) -> List[str]:
    """A summary row as the printed result shows it."""
    games = row["games"]
    head = f"{row['engine']} vs {row['opponent']}: {games} games, W/D/L {row['wins']}/{row['draws']}/{row['losses']}"
    if games:
        head += f", score {100.0 * (row['wins'] + 0.5 * row['draws']) / games:.1f}%"
    lines = [head]
    penta = [row["pentanomial"][label] for label in PENTA_LABELS]
    est = pentanomial_elo(penta)
    if est is not None:
        lines.append(f"  pairs {sum(penta)}: " + " ".join(f"{k} {v}" for k, v in zip(PENTA_LABELS, penta)))
        lines.append(f"  Elo {format_elo(est)} (95%, pentanomial), LOS {100.0 * est.los:.1f}%, "
                     f"nElo {est.nelo:+.1f}")
    if row.get("llr") is not None:
        line = f"  SPRT LLR {row['llr']:.2f}: {row.get('sprt') or 'undecided'}"
        decided = row.get("sprt_decided_at")
        if decided and decided["pairs"] != sum(penta):
            line += f" (decided at {decided['pairs']} pairs, LLR {decided['llr']:.2f}; later pairs were in flight)"
        lines.append(line)
    for name, kinds in row["bugs"].items():
        counts = ", ".join(f"{kind} {count}" for kind, count in kinds.items())
        lines.append(f"  bugs of {name}: {counts}")
    return lines
