"""What the store puts on disk: private files (F9) and one server per database file (F10).

The tests run as root on the CI machine, so they check modes, never access: root reads
everything whatever the mode says.
"""

from __future__ import annotations

import os
import stat
import subprocess
import sys
import textwrap

import pytest

from agentproto.agui._threadstore import ThreadStore
from agentproto.store import DatabaseInUseError, Store, StoreError


def mode(path) -> int:
    return stat.S_IMODE(os.stat(path).st_mode)


def test_a_new_database_is_private_to_its_owner_directory_and_all(tmp_path):
    previous = os.umask(0o022)  # the usual umask: what made the files 0644 before
    try:
        db = tmp_path / "data" / "agentproto" / "agentproto.sqlite3"
        store = ThreadStore(db)
        store.start_run("t-1", "r-1")  # a write: WAL mode creates -wal and -shm
        assert (db.parent.parent / "agentproto").is_dir()
        assert mode(tmp_path / "data") == 0o700 and mode(db.parent) == 0o700
        for suffix in ("", "-wal", "-shm"):
            assert os.path.exists(f"{db}{suffix}"), suffix
            assert mode(f"{db}{suffix}") == 0o600, suffix
        store.close()
    finally:
        os.umask(previous)
    assert os.umask(previous) == previous  # the store left the process umask alone


def test_an_existing_database_readable_by_others_is_tightened(tmp_path, caplog):
    db = tmp_path / "old.sqlite3"
    Store(db).close()
    for suffix in ("", "-wal", "-shm"):
        path = f"{db}{suffix}"
        if not os.path.exists(path):
            open(path, "wb").close()  # left behind by a crash, say
        os.chmod(path, 0o644)
    os.chmod(tmp_path, 0o755)
    with caplog.at_level("WARNING", logger="agentproto.store"):
        store = Store(db)
    try:
        for suffix in ("", "-wal", "-shm"):
            assert mode(f"{db}{suffix}") == 0o600, suffix
        assert mode(tmp_path) == 0o755  # a directory the store did not create is left alone
        assert "0o644" in caplog.text and "0o600" in caplog.text
    finally:
        store.close()


def test_an_in_memory_store_touches_no_file(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    with Store(":memory:", exclusive=True) as store:  # nothing to lock: allowed, and a no-op
        assert store.idempotent("k", lambda: 1) == (1, False)
    assert list(tmp_path.iterdir()) == []


# --- one server per database (F10) ---------------------------------------------------------

_SECOND_SERVER = textwrap.dedent(
    """
    import sys
    from agentproto.agui._threadstore import ThreadStore
    from agentproto.store import DatabaseInUseError
    try:
        ThreadStore(sys.argv[1], exclusive=True)
    except DatabaseInUseError as exc:
        print(f"REFUSED {exc.holder_pid}")
        print(exc)
        sys.exit(3)
    print("OPENED")
    """
)


def _second_process(db) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", _SECOND_SERVER, str(db)], capture_output=True, text=True, timeout=60
    )


def test_a_second_process_that_wants_to_serve_the_same_database_is_refused(tmp_path):
    db = tmp_path / "served.sqlite3"
    first = ThreadStore(db, exclusive=True)
    try:
        second = _second_process(db)
        assert second.returncode == 3, second.stdout + second.stderr
        assert second.stdout.splitlines()[0] == f"REFUSED {os.getpid()}"
        message = second.stdout.splitlines()[1]
        assert str(db) in message and f"process {os.getpid()}" in message
        assert mode(f"{db}.lock") == 0o600
    finally:
        first.close()
    again = _second_process(db)  # released on close: the next server may start
    assert again.returncode == 0 and again.stdout.strip() == "OPENED", again.stdout + again.stderr


def test_the_lock_error_is_a_store_error_naming_the_holder(tmp_path):
    db = tmp_path / "served.sqlite3"
    with Store(db, exclusive=True):
        with pytest.raises(DatabaseInUseError) as info:
            Store(db, exclusive=True)  # a second server in this very process is refused too
        assert isinstance(info.value, StoreError)
        assert info.value.holder_pid == os.getpid()
        assert info.value.lock_path == f"{db}.lock"
        # in-process uses that do not serve (tests, notebooks, tools) open the file as before
        with Store(db) as reader:
            assert reader.recorded("k") == (False, None)
    with Store(db, exclusive=True):  # closed: free again
        pass


def test_an_ended_agui_run_keeps_its_outcome(tmp_path):
    """F10 on the AG-UI side: a second writer cannot turn an abandoned run into a success."""
    with ThreadStore(tmp_path / "runs.sqlite3") as store:
        store.start_run("t-1", "r-1")
        (abandoned,) = store.abandon_running_runs()  # what a second server's start-up did
        store.finish_run("t-1", "r-1", status="success", outcome={"type": "success"})  # the first, later
        run = store.run("t-1", "r-1")
        assert run.status == "error" and run.error["code"] == "SERVER_RESTARTED"
