"""The ``agentproto`` command line.

Each sub-command lives next to the code it drives and registers itself here through a
``configure(parser)`` function that sets ``parser.set_defaults(handler=...)``; a handler takes the
parsed arguments and returns the process exit code. Imports are lazy so that ``agentproto lint``
does not pay for starting a web server's dependencies.

=========================  ===================================================  ============
command                    what it does                                         lives in
=========================  ===================================================  ============
``lint``                   check a captured AG-UI stream for conformance        agui/lint.py
``serve``                  run the demo agents (AG-UI + A2A) on loopback        demo/serve.py
``a2a send``, ``a2a card`` send a message / fetch a card from an A2A agent      a2a/cli.py
``doctor``                 check the environment (same as notebook 00)          teaching/doctor.py
=========================  ===================================================  ============
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
from collections.abc import Sequence

from agentproto import __version__

__all__ = ["main", "build_parser"]

#: (name, help, module path). The module defines ``configure(parser)``.
COMMANDS: list[tuple[str, str, str]] = [
    ("lint", "check a captured AG-UI event stream (SSE or JSON lines) for conformance",
     "agentproto.agui.lint"),
    ("serve", "run the demo agents (AG-UI at /ag-ui/agent, A2A at /a2a) on loopback",
     "agentproto.demo.serve"),
    ("a2a", "talk to an A2A agent (sub-commands: send, card)", "agentproto.a2a.cli"),
    ("doctor", "check that the environment has everything the course needs",
     "agentproto.course.doctor"),
]


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="agentproto",
        description="Reference tools for the AG-UI and A2A agent protocols.",
    )
    parser.add_argument("--version", action="version", version=f"agentproto {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name, help_text, module_path in COMMANDS:
        sp = sub.add_parser(name, help=help_text, description=help_text)
        try:
            module = importlib.import_module(module_path)
        except ModuleNotFoundError as exc:
            if exc.name != module_path:  # a real missing dependency: let it surface
                raise
            sp.set_defaults(handler=_not_available(name))
            continue
        module.configure(sp)
    return parser


def _not_available(name: str):
    def handler(_args: argparse.Namespace) -> int:
        print(f"agentproto {name}: not available in this version", file=sys.stderr)
        return 2

    return handler


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    handler = getattr(args, "handler", None)
    if handler is None:
        parser.print_help()
        return 2
    try:
        return int(handler(args) or 0)
    except BrokenPipeError:  # e.g. `agentproto a2a send ... | head`: the reader left early
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())  # keep Python from complaining at exit
        return 0
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
