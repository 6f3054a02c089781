"""The course map: one entry per notebook, with the seed questions it answers.

This list is the single source of truth for notebook 00's map and for ``notebooks/README.md``
(``python -m agentproto.course.curriculum`` regenerates the README table; a test keeps the
two in step). A notebook counts as *available* when its file exists.

Seed 000 is a Chinese study guide on AG-UI and A2A organised as interview questions Q1–Q12;
seed 004 is a Chinese study note on A2A and multi-agent engineering in sections §1–§13.
"""

from __future__ import annotations

import csv
import io
from dataclasses import dataclass
from pathlib import Path

from agentproto.resources import read_text

__all__ = ["Lesson", "LESSONS", "available", "markdown_table", "glossary", "glossary_markdown"]


@dataclass(frozen=True)
class Lesson:
    number: int
    slug: str
    title: str
    part: str
    seed_000: str = ""
    seed_004: str = ""
    topic: str = ""

    @property
    def filename(self) -> str:
        return f"{self.number:02d}_{self.slug}.ipynb"

    def exists(self, directory: Path | None = None) -> bool:
        """Whether this notebook is in ``directory`` (default: the current folder, where a
        notebook runs)."""
        return ((directory or Path.cwd()) / self.filename).exists()


LESSONS: list[Lesson] = [
    Lesson(0, "start_here", "Start here", "Orientation", topic="setup check, how to use the kit, the map"),
    Lesson(
        1,
        "why_agui",
        "Why agents need an event protocol",
        "AG-UI",
        "Q1",
        topic="polling vs WebSocket vs raw SSE vs AG-UI",
    ),
    Lesson(
        2,
        "run_anatomy",
        "Anatomy of a run",
        "AG-UI",
        "Q2",
        topic="RunAgentInput, the event sequence, three invariants",
    ),
    Lesson(
        3,
        "event_catalogue",
        "The event catalogue",
        "AG-UI",
        "Q3",
        topic="every event family and its failure mode, CHUNK expansion",
    ),
    Lesson(
        4,
        "transport_sse_reconnect",
        "SSE transport and reconnecting",
        "AG-UI",
        "Q4",
        topic="SSE vs WebSocket, proxy buffering, snapshot recovery",
    ),
    Lesson(
        5,
        "shared_state",
        "Shared state",
        "AG-UI",
        "Q5",
        topic="snapshot vs delta, drift, resync, patch allow-lists",
    ),
    Lesson(
        6,
        "interrupts_resume",
        "Interrupts and resume",
        "AG-UI",
        "Q6",
        topic="human approval, the resume contract, idempotency, expiry",
    ),
    Lesson(
        7,
        "generative_ui_boundary",
        "Generative UI and its boundary",
        "AG-UI",
        "Q7, Q8",
        topic="component registry, UI intents, what goes in state",
    ),
    Lesson(
        8,
        "end_to_end_agui_mcp",
        "End to end: AG-UI with MCP tools",
        "AG-UI",
        "Q11",
        topic="the refund flow across server, tools and client",
    ),
    Lesson(
        9,
        "a2a_agent_card",
        "A2A Agent Cards",
        "A2A",
        "Q9",
        "§1, §2",
        topic="discovery, building and serving a card, A2A vs MCP",
    ),
    Lesson(
        10,
        "a2a_task_lifecycle",
        "The A2A task lifecycle",
        "A2A",
        "Q9",
        "§4",
        topic="the state machine, refused transitions, timelines",
    ),
    Lesson(
        11,
        "a2a_messaging_streaming_push",
        "Messaging, streaming and push",
        "A2A",
        "",
        "§3",
        topic="blocking vs polling vs streaming vs push, measured",
    ),
    Lesson(
        12,
        "protocol_stack",
        "The protocol stack",
        "A2A",
        "Q10",
        "§9",
        topic="MCP inside, A2A between, AG-UI to users",
    ),
    Lesson(
        13,
        "orchestrator_scheduling",
        "Orchestrator scheduling",
        "Multi-agent engineering",
        "",
        "§5",
        topic="priorities, preemption, starvation",
    ),
    Lesson(
        14,
        "dedup_idempotency_cache",
        "Dedup, idempotency and caching",
        "Multi-agent engineering",
        "",
        "§6",
        topic="exactly-once side effects, TTL caches",
    ),
    Lesson(
        15,
        "event_driven_plans",
        "Event-driven plans",
        "Multi-agent engineering",
        "",
        "§7",
        topic="Plan A/B/C switching on events",
    ),
    Lesson(
        16,
        "semantic_gap",
        "The semantic gap",
        "Multi-agent engineering",
        "",
        "§8",
        topic="error accumulation p^n, intent envelopes",
    ),
    Lesson(
        17,
        "trust_and_auth",
        "Trust and auth",
        "Multi-agent engineering",
        "Q12",
        "§10",
        topic="tokens, signed cards, forged resumes",
    ),
    Lesson(
        18,
        "deadlocks",
        "Deadlocks",
        "Multi-agent engineering",
        "",
        "§11",
        topic="wait-for graphs, detection, timeouts, escalation",
    ),
    Lesson(
        19,
        "when_humans_step_in",
        "When humans step in",
        "Multi-agent engineering",
        "",
        "§12",
        topic="four triggers, the cost of asking",
    ),
    Lesson(
        20,
        "feedback_loops",
        "Feedback loops",
        "Multi-agent engineering",
        "",
        "§13",
        topic="execute, observe, compare, correct",
    ),
    Lesson(
        21,
        "interview_drill",
        "Interview drill",
        "Review",
        "Q12",
        "all",
        topic="mixed questions, pass vs full-marks answers",
    ),
]


def available(directory: Path | None = None) -> list[Lesson]:
    return [lesson for lesson in LESSONS if lesson.exists(directory)]


def markdown_table(directory: Path | None = None, link_prefix: str = "") -> str:
    """The curriculum as a Markdown table; unwritten notebooks are marked as planned."""
    rows = ["| # | notebook | part | seed 000 | seed 004 | covers |", "|---|---|---|---|---|---|"]
    for lesson in LESSONS:
        name = (
            f"[{lesson.title}]({link_prefix}{lesson.filename})"
            if lesson.exists(directory)
            else f"{lesson.title} *(planned — not written yet)*"
        )
        rows.append(
            f"| {lesson.number:02d} | {name} | {lesson.part} | {lesson.seed_000 or '—'} | "
            f"{lesson.seed_004 or '—'} | {lesson.topic} |"
        )
    return "\n".join(rows)


def glossary() -> list[dict[str, str]]:
    """The course glossary (term, Chinese term, meaning), shipped with the package."""
    return list(csv.DictReader(io.StringIO(read_text("course", "glossary.csv"))))


def glossary_markdown() -> str:
    """The glossary as a Markdown table."""
    rows = "\n".join(f"| {r['term']} | {r['chinese']} | {r['meaning']} |" for r in glossary())
    return "| term | 中文 | meaning |\n|---|---|---|\n" + rows


BEGIN, END = "<!-- curriculum:begin -->", "<!-- curriculum:end -->"


def render_readme(text: str, directory: Path | None = None) -> str:
    """Replace the table between the curriculum markers in ``text``."""
    head, _, rest = text.partition(BEGIN)
    _, _, tail = rest.partition(END)
    return f"{head}{BEGIN}\n{markdown_table(directory)}\n{END}{tail}"


if __name__ == "__main__":  # run from the repository's root: regenerate notebooks/README.md's table
    readme = Path("notebooks") / "README.md"
    readme.write_text(render_readme(readme.read_text(), Path("notebooks")))
    print(f"updated {readme}")
