"""Links in a handout that lead nowhere (issue 30): the handout leaves instructor-only pages out
(docs/instructors.md, every instructor/ folder), so a page that links one of them would send a student
to a missing file. `handout --check` reports each such link as a violation."""
from __future__ import annotations

import posixpath
import re
from pathlib import Path

MARKDOWN_LINK = re.compile(r"\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
EXTERNAL = re.compile(r"^(?:[a-z][a-z0-9+.-]*:|#|/)", re.IGNORECASE)  # http:, mailto:, an anchor, a site path


def dead_links(folder: Path, files: list[str]) -> list[str]:
    """'README.md:72: links docs/instructors.md, which is not in the handout' for every relative Markdown
    link of the handout's .md files (`files`: paths relative to `folder`) whose target it does not hold."""
    present = set(files)
    problems = []
    for path in sorted(f for f in files if f.endswith(".md")):
        try:
            text = (folder / path).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            continue
        for number, line in enumerate(text.splitlines(), 1):
            for match in MARKDOWN_LINK.finditer(line):
                target = match.group(1).split("#", 1)[0]
                if not target or EXTERNAL.match(match.group(1)):
                    continue
                resolved = posixpath.normpath(posixpath.join(posixpath.dirname(path), target))
                if resolved not in present and not (folder / resolved).is_dir():
                    problems.append(f"{path}:{number}: links {resolved}, which is not in the handout")
    return problems
