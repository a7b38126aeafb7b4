"""ckpt.open("s3://...") reads a snapshot in an object store as the program does: in place,
through the library's file system, with the credential chain of the environment. Against
moto_server on 127.0.0.1 (as tests/cli/s3_*)."""

import os
import pathlib
import re
import shutil
import socket
import subprocess
import sys
import time
import urllib.request

import pytest

import ckpt
from conftest import SAMPLE, canonical, run_ckpt


class Moto:
    """moto_server on 127.0.0.1, which a test may stop and start again on the same port. The
    first start takes a port of the server's own (-p 0, read from its log): a port found free
    and handed over could be taken first by a server of a test running beside."""

    def __init__(self, log_path):
        self.port = 0
        self.endpoint = None
        self.log_path = log_path
        self.log = open(log_path, "w")
        self.server = None

    def start(self):
        self.log.seek(0)
        self.log.truncate()
        self.server = subprocess.Popen(["moto_server", "-H", "127.0.0.1", "-p", str(self.port)],
                                       stdout=self.log, stderr=self.log)
        for _ in range(600):
            if not self.port:
                found = re.search(r"Running on http://127\.0\.0\.1:(\d+)", pathlib.Path(self.log_path).read_text())
                if found:
                    self.port = int(found.group(1))
                    self.endpoint = f"http://127.0.0.1:{self.port}"
            if self.port:
                try:
                    socket.create_connection(("127.0.0.1", self.port), timeout=0.1).close()
                    return
                except OSError:
                    pass
            if self.server.poll() is not None:
                break
            time.sleep(0.05)
        pytest.fail(f"moto_server did not listen on 127.0.0.1 in 30 s: {pathlib.Path(self.log_path).read_text()}")

    def stop(self):
        if self.server:
            self.server.terminate()
            self.server.wait(10)
            self.server = None


@pytest.fixture
def moto_server(tmp_path, monkeypatch):
    if not shutil.which("moto_server"):
        if os.environ.get("CI"):
            pytest.fail("moto_server is not on PATH (pip install 'moto[server]')")
        pytest.skip("moto_server is not on PATH")
    server = Moto(tmp_path / "moto.log")
    try:
        server.start()
        for name, value in {"AWS_ENDPOINT_URL": server.endpoint, "AWS_ACCESS_KEY_ID": "AKIAUNCHECKED",
                            "AWS_SECRET_ACCESS_KEY": "unchecked", "AWS_REGION": "us-east-1",
                            "AWS_EC2_METADATA_DISABLED": "true"}.items():
            monkeypatch.setenv(name, value)
        monkeypatch.delenv("AWS_MAX_ATTEMPTS", raising=False)
        yield server
    finally:
        server.stop()
        server.log.close()


@pytest.fixture
def moto(moto_server):
    return moto_server.endpoint


def put(url, data=b""):
    # Not the form content type urllib would send: moto would parse the body as a form.
    request = urllib.request.Request(url, data=data, method="PUT", headers={"Content-Type": "application/octet-stream"})
    urllib.request.urlopen(request, timeout=30).close()


def test_s3_snapshot_reads_as_the_local_one(moto):
    put(f"{moto}/python-bucket")
    for f in SAMPLE.iterdir():
        put(f"{moto}/python-bucket/sp/{f.name}", f.read_bytes())
    local = ckpt.open(SAMPLE)
    remote = ckpt.open("s3://python-bucket/sp")
    assert remote.path == "s3://python-bucket/sp"
    assert [canonical(ckpt.entry_json(e)) for e in remote.entries()] == \
        [canonical(ckpt.entry_json(e)) for e in local.entries()]
    metadata = remote.metadata
    assert metadata["snapshot"].startswith("s3://python-bucket/sp")
    assert metadata["operators"] == local.metadata["operators"]
    del remote
    with pytest.raises(ckpt.Error) as caught:
        ckpt.open("s3://python-bucket/missing")
    assert caught.value.code in ("not_found", "io_error")


def upload_sample(endpoint, bucket):
    put(f"{endpoint}/{bucket}")
    for f in SAMPLE.iterdir():
        put(f"{endpoint}/{bucket}/sp/{f.name}", f.read_bytes())


def test_a_store_that_failed_to_answer_is_asked_again_by_the_next_iteration(moto_server, monkeypatch):
    # The structure checks (a LIST of the snapshot's files) run on a handle's first iteration and
    # are kept for its life: a failure to list is not a finding, and must not be kept as one.
    upload_sample(moto_server.endpoint, "outage")
    monkeypatch.setenv("AWS_MAX_ATTEMPTS", "2")  # the store is down: no use waiting out six
    remote = ckpt.open("s3://outage/sp")
    moto_server.stop()
    # The listing ckpt.open() made answers for 10 s (StoreFileSystem's kListingReuse).
    time.sleep(10.5)
    with pytest.raises(ckpt.StorageError) as failed:
        list(remote.entries())
    assert "s3://outage/sp" in str(failed.value)
    moto_server.start()
    upload_sample(moto_server.endpoint, "outage")
    local = ckpt.open(SAMPLE)
    assert [canonical(ckpt.entry_json(e)) for e in remote.entries()] == \
        [canonical(ckpt.entry_json(e)) for e in local.entries()]


FORKED_READER = r"""
import os, sys
import ckpt
uri, local = sys.argv[1], sys.argv[2]
want = [ckpt.entry_json(e) for e in ckpt.open(local).entries()]
it = ckpt.open(uri).entries()
got = []
for e in it:
    got.append(ckpt.entry_json(e))
    if len(got) == len(want) // 2:
        break
pid = os.fork()
if pid == 0:
    child = [ckpt.entry_json(e) for e in ckpt.open(uri).entries()]
    try:
        next(it)  # the parent's: its workers are not in this process
        sys.exit(4)
    except RuntimeError as e:
        if "opened by the parent process" not in str(e):
            sys.exit(5)
    sys.exit(0 if child == want else 3)  # through the interpreter's and the library's exit
got += [ckpt.entry_json(e) for e in it]  # the parent reads on while the child reads
_, status = os.waitpid(pid, 0)
import glob, tempfile
scratch = len(glob.glob(os.path.join(tempfile.gettempdir(), "ckpt-s3-*")))  # the parent's, after the child's exit
print(os.waitstatus_to_exitcode(status), got == want, len(want), scratch)
"""


def test_a_child_forked_in_the_middle_of_a_read_reads_the_bucket_and_exits_while_the_parent_reads_on(
        moto, tmp_path):
    # Python's multiprocessing forks by default on Linux. The parent has, at the fork, a kept
    # connection and a thread reading the state file ahead: the child must make its own (one
    # stream shared by two processes crosses their answers), must not wait for the parent's
    # threads, at its reads or at its exit, and must not remove the parent's cache directory.
    # The parent's iterator, half read, is refused in the child and left to the parent.
    snap = tmp_path / "heap"
    run_ckpt("generate", "--backend", "heap", "--keys", "20000", "--value-size", "100", "--states", "value",
             "--parallelism", "1", "--output", snap)
    state_bytes = sum(f.stat().st_size for f in snap.iterdir() if f.name != "_metadata")
    assert state_bytes > 2 << 20  # read in line long enough to be read ahead
    put(f"{moto}/forked")
    for f in snap.iterdir():
        put(f"{moto}/forked/heap/{f.name}", f.read_bytes())
    tmp = tmp_path / "tmp"  # the cache directories of both processes, and nothing else
    tmp.mkdir()
    r = subprocess.run([sys.executable, "-c", FORKED_READER, "s3://forked/heap", str(snap)],
                       capture_output=True, text=True, timeout=120, env={**os.environ, "TMPDIR": str(tmp)})
    assert r.returncode == 0, r.stderr
    child, parent, entries, scratch = r.stdout.split()
    assert (child, parent) == ("0", "True"), r.stderr
    assert int(entries) == 20000
    assert scratch == "1"  # the parent's cache directory outlives the child's exit
