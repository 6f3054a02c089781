"""The ``agentproto`` command line.

Each sub-command lives next to the code it drives and registers itself here through a
``configure(parser)`` function that sets ``parser.set_defaults(handler=...)``; a handler takes the
parsed arguments and returns the process exit code.

Imports are lazy: :func:`main` looks at the command line first and imports only the module of
the command being run, so ``agentproto lint`` pays for the AG-UI pipeline and nothing else — not
for the web server behind ``serve``, the HTTP client behind ``a2a`` or the notebook machinery
behind ``doctor``. ``agentproto --help`` imports no command module at all (the one-line help
of every command is in :data:`COMMANDS`). Keep it that way: this module imports only the
standard library and :mod:`agentproto` itself.

Run as the program (``argv`` not given), :func:`main` also keeps the cyclic garbage collector
off while the command's module is imported: building the pydantic event models allocates
hundreds of thousands of objects, none of them garbage, and the collector's full passes
over them were about a tenth of ``agentproto lint``'s start-up. Afterwards
:func:`gc.freeze` moves those long-lived objects out of the collector's sight and the
collector runs again as usual for the command itself.

=========================  ===================================================  ==============
command                    what it does                                         lives in
=========================  ===================================================  ==============
``lint``                   check a captured AG-UI stream for conformance        agui/_lint.py
``serve``                  run the demo agents (AG-UI + A2A) on loopback        demo/serve.py
``a2a send``, ``a2a card`` send a message / fetch a card from an A2A agent      a2a/_cli.py
``doctor``                 check the environment (same as notebook 00)          course/doctor.py
=========================  ===================================================  ==============
"""

from __future__ import annotations

import argparse
import gc
import importlib
import os
import sys
from collections.abc import Iterable, Sequence

from agentproto import __version__

__all__ = ["main", "build_parser", "COMMANDS", "EXTRAS"]

#: (name, help, module path). The module defines ``configure(parser)``.
COMMANDS: list[tuple[str, str, str]] = [
    (
        "lint",
        "check a captured AG-UI event stream (SSE or JSON lines) for conformance",
        "agentproto.agui._lint",
    ),
    (
        "serve",
        "run the demo agents (AG-UI at /ag-ui/agent, A2A at /a2a) on loopback",
        "agentproto.demo.serve",
    ),
    ("a2a", "talk to an A2A agent (sub-commands: send, card)", "agentproto.a2a._cli"),
    ("doctor", "check that the environment has everything the course needs", "agentproto.course.doctor"),
    (
        "lab",
        "copy the course into a folder of your own and open JupyterLab there",
        "agentproto.course.launcher",
    ),
]

_NAMES = frozenset(name for name, _, _ in COMMANDS)


#: The pip extra a command needs beyond the base install (``pip install "agentproto[server]"``).
EXTRAS: dict[str, str] = {"serve": "server", "a2a": "server"}


def build_parser(commands: Iterable[str] | None = None) -> argparse.ArgumentParser:
    """The argument parser; *commands* names the sub-commands to configure (default: all).

    Every sub-command is listed in the help either way; only the configured ones import
    their module and know their own arguments. :func:`main` configures just the command it
    is about to run. A command whose dependencies are not installed gets a handler that says
    which extra to install (exit 2) instead of its options.
    """
    wanted = _NAMES if commands is None else frozenset(commands)
    parser = argparse.ArgumentParser(
        prog="agentproto",
        description="Reference tools for the AG-UI and A2A agent protocols.",
    )
    parser.add_argument("--version", action="version", version=f"agentproto {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name, help_text, module_path in COMMANDS:
        sp = sub.add_parser(name, help=help_text, description=help_text)
        if name in wanted:
            problem = _configure(sp, name, module_path)
            if problem is not None:
                sp.set_defaults(handler=_Unavailable(problem))
            elif name == "serve":
                _serve_clients(sp)
    return parser


def _configure(sp: argparse.ArgumentParser, name: str, module_path: str) -> str | None:
    """Import the command's module and let it register its options; or say why it cannot."""
    try:
        importlib.import_module(module_path).configure(sp)
    except ModuleNotFoundError as exc:
        missing = exc.name or ""
        if missing == module_path:
            return f"agentproto {name}: not available in this version"
        if missing == "agentproto" or missing.startswith("agentproto."):
            raise  # a bug in this package, not a missing extra: let it surface
        extra = EXTRAS.get(name)
        fix = (
            f'pip install "agentproto[{extra}]"'
            if extra is not None
            else f"pip install {missing.split('.')[0]}"
        )
        return (
            f"agentproto {name}: needs {missing.split('.')[0]}, which is not installed; "
            f"install it with: {fix}"
        )
    return None


#: ``serve --client NAME`` reads the secret from this variable + NAME (upper case, others ``_``);
#: the clients' side (``a2a send --client-id``, :mod:`agentproto.client_auth`) reads the same one.
CLIENT_SECRET_ENV = "AGENTPROTO_CLIENT_SECRET_"


def _serve_clients(sp: argparse.ArgumentParser) -> None:
    """How ``serve --auth`` gets its clients without putting secrets in the process list:
    ``--client NAME`` with the secret in ``AGENTPROTO_CLIENT_SECRET_<NAME>``, or
    ``--clients-file PATH`` (mode 0600, lines ``NAME:SECRET``). ``--client NAME:SECRET``
    still works, with a warning. The handler resolves them (``demo.auth.resolve_clients``),
    refuses short secrets, and hands ``serve`` the clients."""
    for action in sp._actions:
        if action.dest == "client":
            action.metavar = "NAME[:SECRET]"
            action.help = (
                "a client allowed to get tokens in --auth mode (repeatable). The secret comes "
                f"from the environment variable {CLIENT_SECRET_ENV}<NAME> (NAME upper-cased, "
                "other characters as _); NAME:SECRET also works but every user of the "
                "machine can read it in the process list. Secrets have 16 characters or more"
            )
    sp.add_argument(
        "--clients-file",
        default=None,
        metavar="PATH",
        help="read --auth clients from PATH, one NAME:SECRET a line (# comments); the file "
        "must be yours with mode 0600 (chmod 600 PATH)",
    )
    run = sp.get_default("handler")
    if run is not None:
        sp.set_defaults(handler=_ServeWithClients(run))


class _ServeWithClients:
    """``serve``'s handler, after the clients are resolved and checked (exit 2 if they fail)."""

    def __init__(self, run: object) -> None:
        self.run = run

    def __call__(self, args: argparse.Namespace) -> int:
        specs = list(getattr(args, "client", None) or [])
        clients_file = getattr(args, "clients_file", None)
        if specs or clients_file is not None:
            from agentproto.demo.auth import resolve_clients  # cryptography, PyJWT: auth mode only

            try:
                clients, warnings = resolve_clients(specs, clients_file=clients_file)
            except ValueError as exc:
                print(f"agentproto serve: {exc}", file=sys.stderr)
                return 2
            for warning in warnings:
                print(f"agentproto serve: {warning}", file=sys.stderr)
            args.client = [f"{name}:{secret}" for name, secret in clients.items()]  # memory only
        if getattr(args, "auth", False) and not args.client:
            print(
                "agentproto serve: --auth needs at least one client: --client NAME with "
                f"{CLIENT_SECRET_ENV}<NAME> set, or --clients-file PATH",
                file=sys.stderr,
            )
            return 2
        return int(self.run(args) or 0)  # type: ignore[operator]


def _command_of(argv: Sequence[str]) -> str | None:
    """The sub-command named on the command line, if any (the first non-option word).

    The top level has only flag options (``--help``, ``--version``), so the first word that
    does not start with ``-`` is the command.
    """
    for arg in argv:
        if arg == "--":
            return None
        if not arg.startswith("-"):
            return arg if arg in _NAMES else None
    return None


class _Unavailable:
    """The handler of a command that cannot run here: prints why, exits 2."""

    def __init__(self, message: str) -> None:
        self.message = message

    def __call__(self, _args: argparse.Namespace) -> int:
        print(self.message, file=sys.stderr)
        return 2


def _subparser(parser: argparse.ArgumentParser, name: str) -> argparse.ArgumentParser:
    for action in parser._subparsers._group_actions if parser._subparsers else ():
        if isinstance(action, argparse._SubParsersAction):
            return action.choices[name]
    raise KeyError(name)


def main(argv: Sequence[str] | None = None) -> int:
    """Run one command; return its exit code. ``argv`` defaults to ``sys.argv[1:]``."""
    program = argv is None and gc.isenabled()  # in-process callers keep their GC as it is
    if argv is None:
        argv = sys.argv[1:]
    if program:
        gc.disable()
    try:
        command = _command_of(argv)
        parser = build_parser([command] if command is not None else [])
    finally:
        if program:
            gc.freeze()
            gc.enable()
    if command is not None:
        # A command that could not be configured says why, even for `--help`.
        handler = _subparser(parser, command).get_default("handler")
        if isinstance(handler, _Unavailable):
            return handler(argparse.Namespace())
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
