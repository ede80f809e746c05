"""What every chapter's figures_values test checks first: the lesson's generated prose follows the
committed results. Every inline value the README shows is one the results give (never figures.MISSING),
no value sits where Doxygen would mangle it, and the prose outside generated text types no measured
number (a decimal followed by x, ×, ms, µs, GB/s or %). The Exercises section states grading
thresholds (targets, not measurements) and is left out."""
import importlib.util
import json
import pathlib
import re


def load_chapter(chapter: pathlib.Path):
    """The chapter's figures module and its committed results (gpu slug -> results JSON)."""
    spec = importlib.util.spec_from_file_location(f"figures_{chapter.name[:2]}", chapter / "figures.py")
    figures = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(figures)
    committed = {path.parent.name: json.loads(path.read_text())
                 for path in sorted((chapter.parent / "results").glob(f"*/{chapter.name}.json"))}
    return figures, committed


def prose_failures(chapter: pathlib.Path, figures, committed) -> list[str]:
    failures = []
    readme = (chapter / "README.md").read_text()
    given = figures.values(committed)
    for name in re.findall(r"<!-- value:([\w.-]+) -->", readme):
        if given.get(name, figures.MISSING) == figures.MISSING:
            failures.append(f"value {name}: the committed results do not give it")
    for line in readme.splitlines():
        if re.match(r"\s*<!-- value:", line) or "<!-- /value --> " in line:
            failures.append(f"README line starts with a value, or a plain space follows one: {line.strip()}")
    prose = re.sub(r"<!-- BEGIN generated:([\w.-]+) -->.*?<!-- END generated:\1 -->", "", readme, flags=re.S)
    prose = re.sub(r"<!-- value:[\w.-]+ -->.*?<!-- /value -->", "", prose, flags=re.S)
    prose = re.sub(r"```.*?```", "", prose, flags=re.S)
    prose = re.sub(r"\n## Exercises\n.*?(?=\n## |\Z)", "\n", prose, flags=re.S)
    for typed in re.findall(r"\d+\.\d+\s*(?:x|×|ms|µs|us|GB/s|%)(?!\w)", prose):
        failures.append(f"a measured number typed into the prose: {typed}")
    return failures
