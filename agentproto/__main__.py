"""``python -m agentproto`` is the same as the ``agentproto`` command."""

from agentproto.cli import main

raise SystemExit(main())
