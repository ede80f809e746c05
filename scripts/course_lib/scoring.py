"""The performance rule of `optimize` exercises (issue 30): nothing for doing nothing.

The grader's own clock (outside_timing.py) gives a time per repetition for the student's build, the
reference and the exercise's untouched stub (the handout's starting code), interleaved in rounds of one
grade; r = T / T_ref is the student's ratio and r0 the stub's, what doing nothing earns. Points:

- full at r <= FULL_AT (1.2: CS149's margin for noise),
- 0 at r >= r0 / (1 + BAND): a submission must beat the stub by more than the noise band to earn a point,
- in between, by the logarithm of the ratio (each halving of the time is worth the same), rounded down,
  so the points never grow with the time;
- where the stub is within the band of FULL_AT (05.3's stub measured 1.32x on the H100), the rule is
  all or nothing: full at r <= FULL_AT, 0 above; where the stub itself is within FULL_AT, the exercise
  cannot be graded by time here and is reported "error";
- a speed beyond FLAG_BEYOND (3x) that of the instructor's own answer (timed in the same rounds; the
  reference where no answer was timed) is not plausible: such a result is "flagged" for an instructor's
  review, 0 points until then;
- rounds: at least MIN_ROUNDS (student, reference, stub and `none` runs, in rotating order), more (up to
  MAX_ROUNDS) while the rounds' own scores differ by more than a band (a tenth of the points, at least
  one); the verdict takes the median round (the lower of an even count), so one disturbed round
  cannot move a score.
"""
from __future__ import annotations

import dataclasses
import math
import statistics
from typing import Callable

FULL_AT = 1.2
FLAG_BEYOND = 3.0
BAND = 0.10
MIN_ROUNDS, MAX_ROUNDS = 3, 7
RULE = ("optimize exercises: no performance points without correctness (Stanford CS149's rule): the exercise's "
        "grading probe must match the instructor's outputs before it is timed; then the grader clocks, from outside "
        "the processes, the probe's timed repetitions (inputs perturbed every repetition from a nonce sent after "
        "set-up, every repetition's answer checked) for the student's build, the reference and the untouched stub "
        "(both built from the instructor's tree, no student code in them), less a run that does everything but "
        f"the work, in interleaved rounds: with r = T / T_ref and r0 the stub's, full points at r <= {FULL_AT}, 0 "
        f"at r >= r0 / {1 + BAND:g} (doing nothing earns nothing), in between floor(points * log(r_zero / r) / "
        f"log(r_zero / 1.2)); a speed beyond {FLAG_BEYOND:g}x the instructor's answer's is flagged for review (0 points "
        f"until reviewed); the median of at least {MIN_ROUNDS} rounds, more while rounds disagree by more than a "
        "tenth of the points")


class PerfFailure(Exception):
    """A timed run that gave no timing: status (fail, timeout, needs_gpu, error) and one-line reason.
    `correctness`: a fail because an answer was wrong (the report says "no performance points without
    correctness"); False for a fail of another kind (the timed call was not the exercise's own work)."""

    def __init__(self, status: str, reason: str, correctness: bool = True):
        super().__init__(reason)
        self.status, self.reason, self.correctness = status, reason, correctness


def points_for(points: int, ratio: float, stub_ratio: float) -> int:
    """The rule above for one ratio, given the stub's. Monotone: never more points for a longer time."""
    if ratio <= FULL_AT:
        return points
    zero = stub_ratio / (1 + BAND)
    if ratio >= zero or zero <= FULL_AT:
        return 0
    return max(0, min(points, math.floor(points * math.log(zero / ratio) / math.log(zero / FULL_AT))))


@dataclasses.dataclass
class Verdict:
    status: str          # pass, partial, slow, flagged, error
    points: int
    ratio: float         # the student's median T / T_ref
    stub_ratio: float    # the stub's median
    time: float          # the student's median T and T_ref (for the report)
    reference_time: float
    rounds: list[dict]
    reason: str


def measure(student: Callable[[], tuple[float, float]], stub: Callable[[], tuple[float, float]],
            points: int, metric: str) -> Verdict:
    """Interleaved rounds of (student, stub) runs, each returning (T, T_ref) of one process; raises
    PerfFailure from a run that fails (the student's first: their failure is theirs)."""
    rounds: list[dict] = []
    while len(rounds) < MAX_ROUNDS:
        order = (("student", student), ("stub", stub)) if len(rounds) % 2 == 0 else \
            (("stub", stub), ("student", student))
        result = {}
        for side, run in order:
            t, t_ref = run()
            result[side] = (t, t_ref)
        result["points"] = points_for(points, result["student"][0] / result["student"][1],
                                      result["stub"][0] / result["stub"][1])
        rounds.append(result)
        spread = max(r["points"] for r in rounds) - min(r["points"] for r in rounds)
        if len(rounds) >= MIN_ROUNDS and spread <= max(1, points // 10):
            break
    return verdict(rounds, points, metric)


def verdict(rounds: list[dict], points: int, metric: str) -> Verdict:
    # The median round (the lower one of an even count): its T and T_ref are the ones reported, so that
    # ratio = time / reference_time holds in the report.
    by_ratio = sorted((r["student"] for r in rounds), key=lambda pair: pair[0] / pair[1])
    t, t_ref = by_ratio[(len(by_ratio) - 1) // 2]
    ratio = t / t_ref
    stub_ratio = statistics.median_low(r["stub"][0] / r["stub"][1] for r in rounds)
    table = [{"student": r["student"][0], "reference": r["student"][1], "stub": r["stub"][0],
              "stub_reference": r["stub"][1], "points": r["points"],
              **({"answer": r["answer"]} if r.get("answer") else {})} for r in rounds]
    said = (f"perf: {speed(ratio)} (student {t:.4g} {metric}, reference {t_ref:.4g} {metric}, clocked by the grader; the "
            f"untouched stub {speed(stub_ratio)}; median of {len(rounds)} interleaved rounds): ")
    if stub_ratio <= FULL_AT:  # the stub itself would earn full points: time cannot tell work from none
        return Verdict("error", 0, ratio, stub_ratio, t, t_ref, table, said + f"the stub is within {FULL_AT}x of "
                       "the reference here, so time cannot tell work from none; grade on an idle machine")
    # Plausible speed is anchored on the instructor's own answer where it was timed (04.3's answer is 4x its
    # reference, a slower rung, by design), else on the reference.
    anchors = [r["answer"] for r in rounds if r.get("answer")]
    anchor = statistics.median_low(anchors) if anchors else t_ref
    anchor_name = "the instructor's answer" if anchors else "the reference"
    if t < anchor / FLAG_BEYOND:
        return Verdict("flagged", 0, ratio, stub_ratio, t, t_ref, table, said + f"beyond {FLAG_BEYOND:g}x the "
                       f"speed of {anchor_name}: flagged for review (a result that skips work the checks do not "
                       "see?), 0 points until an instructor has read the code")
    got = points_for(points, ratio, stub_ratio)
    if got == points:
        return Verdict("pass", got, ratio, stub_ratio, t, t_ref, table, said + f"within {FULL_AT}x, full points")
    if got == 0:
        return Verdict("slow", 0, ratio, stub_ratio, t, t_ref, table, said + "no faster than the stub beyond the "
                       f"noise band ({zero_point(stub_ratio):.2f}x or slower), 0 points")
    return Verdict("partial", got, ratio, stub_ratio, t, t_ref, table, said + f"between the stub and {FULL_AT}x: "
                   f"{got} of {points} points")


def zero_point(stub_ratio: float) -> float:
    return stub_ratio / (1 + BAND)


def speed(ratio: float) -> str:
    """'1.92x slower than the reference' / '1.50x faster than the reference'."""
    if ratio >= 1.005:
        return f"{ratio:.2f}x slower than the reference"
    if ratio <= 0.995:
        return f"{1 / ratio:.2f}x faster than the reference"
    return "as fast as the reference"
