"""agentproto on The Littlest JupyterHub: every learner's server starts with the course.

Install (as root, on the hub machine, after the kit is in TLJH's user environment — see
docs/workshop.md)::

    cp deploy/tljh/agentproto.py /opt/tljh/config/jupyterhub_config.d/agentproto.py
    tljh-config reload hub

TLJH's ``jupyterhub_config.py`` loads every ``*.py`` of that folder after its own settings.

Why it works this way: JupyterHub calls ``Spawner.pre_spawn_hook`` *before*
``Spawner.start()``, and TLJH's spawner (``tljh.user_creating_spawner.UserCreatingSpawner``)
creates the learner's system user ``jupyter-NAME`` — ``useradd --create-home`` — inside
``start()``; only then does systemdspawner start the server, as that user, in their home, with
``cmd + args``. So on a learner's first login the hook runs while there is no such user and no
home folder yet: a hook that looks the user up (``pwd.getpwnam``) or writes into the home fails.

This hook therefore touches nothing on disk. It wraps the server command instead::

    /bin/sh -c '<prepare>; exec "$@"' agentproto-prepare jupyterhub-singleuser ...

and the learner's own server process, after the user exists, as the learner, in their home,
on every start (first login and later ones):

1. copies the course into ``~/agentproto-course`` with the code of ``agentproto lab``
   (``python -m agentproto.course.launcher --dir ... --print-command``): missing files only,
   a notebook the learner edited is never replaced;
2. builds matplotlib's font cache in ``~/.cache/matplotlib`` if it is not there yet, so the
   learner's first plot does not pay for it;
3. then execs the real server command, unchanged. A failure in 1 or 2 is logged (the
   learner's journal: ``journalctl -u jupyter-NAME``) and the server still starts.

The files are created by the learner's process, so they belong to the learner. Nothing here
needs ``/opt/tljh/config`` to be readable by learners (TLJH keeps it private).
systemdspawner passes every ``cmd`` item through ``str.format`` (``{USERNAME}``, ``{USERID}``),
so the wrapper contains no braces.
"""

import os
import shlex

#: The Python of TLJH's user environment, where ``pip install ".[course]"`` put the kit
#: (TLJH's own default prefix, overridable the way TLJH is: ``TLJH_INSTALL_PREFIX``).
PYTHON = os.path.join(os.environ.get("TLJH_INSTALL_PREFIX", "/opt/tljh"), "user", "bin", "python")
#: The learner's course folder, relative to their home.
COURSE_DIR = "agentproto-course"
#: ``$0`` of the wrapper: how a command that is already wrapped is recognised.
MARKER = "agentproto-prepare"


def prepare_script(python=PYTHON, course_dir=COURSE_DIR):
    """The shell text the learner's server runs before ``exec "$@"`` (no braces, see above)."""
    py = shlex.quote(python)
    dest = '"$HOME"/' + shlex.quote(course_dir)
    return (
        f"{py} -m agentproto.course.launcher --dir {dest} --print-command >/dev/null"
        f' || echo "agentproto: the course was not copied into $HOME/{course_dir}" >&2; '
        f'test -d "$HOME/.cache/matplotlib" || {py} -c "import matplotlib.font_manager"'
        ' || echo "agentproto: the matplotlib font cache was not built" >&2; '
        'exec "$@"'
    )


def wrap_command(cmd, python=PYTHON, course_dir=COURSE_DIR):
    """*cmd* run by the wrapper; a command that is already wrapped is returned unchanged."""
    cmd = list(cmd)
    if len(cmd) > 3 and cmd[:2] == ["/bin/sh", "-c"] and cmd[3] == MARKER:
        return cmd
    return ["/bin/sh", "-c", prepare_script(python, course_dir), MARKER, *cmd]


def give_the_course(spawner):
    """``Spawner.pre_spawn_hook``: runs before the user exists, so it only rewrites ``cmd``.

    JupyterHub keeps a learner's spawner object between their starts, so wrapping is
    idempotent. TLJH loads this file with a fresh ``c`` that is merged into its config
    afterwards, so a ``pre_spawn_hook`` of your own elsewhere replaces this one (or this one
    replaces it): call ``give_the_course(spawner)`` from it instead.
    """
    spawner.cmd = wrap_command(spawner.cmd, PYTHON, COURSE_DIR)


c.Spawner.pre_spawn_hook = give_the_course  # noqa: F821 - `c`: the config the loader gives this file
