"""Calibrating the reading stage's MARGIN (kkvision/vision/reading.py).

With --calibrate W a benchmark answers every picture whose most probable
reading has a solution (MARGIN 0) and measures, up to W nats, how much more
probable that reading is than the likeliest reading with another solution
(its odds).  margin_table then shows, for each margin kkvision could use,
how many answers would be given right, given WRONG, and refused: MARGIN is
chosen where WRONG is 0 with room to spare.
"""

from __future__ import annotations

import math

MARGINS = (0.0, 1.0, 2.0, 3.0, math.log(50), 5.0, 7.0, 10.0)


def widen(window: float) -> None:
    """Answer whatever the odds, and measure them up to `window` nats."""
    from kkvision.vision import reading

    reading.MARGIN = 0.0
    reading.ODDS_SEEN = window


def margin_table(answers: list[tuple[float, bool]]) -> str:
    """answers: (odds in nats, answer right) for every picture answered at margin 0."""
    lines = ["| margin (nats) | x more probable | answered right | answered WRONG | refused by the margin |",
             "|---|---|---|---|---|"]
    for m in MARGINS:
        kept = [right for odds, right in answers if odds >= m]
        lines.append(f"| {m:.2f} | {math.exp(m):.0f} | {sum(kept)} | {len(kept) - sum(kept)}"
                     f" | {len(answers) - len(kept)} |")
    wrong = sorted(odds for odds, right in answers if not right)
    lines.append("")
    lines.append("odds of the wrong answers (nats): " + (", ".join(f"{o:.2f}" for o in wrong) or "none"))
    return "\n".join(lines)
