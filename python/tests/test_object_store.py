"""ckpt.open("s3://...") reads a snapshot in an object store as the program does: in place,
through the library's file system, with the credential chain of the environment. Against
moto_server on 127.0.0.1 (as tests/cli/s3_*)."""

import os
import shutil
import socket
import subprocess
import time
import urllib.request

import pytest

import ckpt
from conftest import SAMPLE, canonical


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Moto:
    """moto_server on a free port of 127.0.0.1, which a test may stop and start again there."""

    def __init__(self, log_path):
        self.port = free_port()
        self.endpoint = f"http://127.0.0.1:{self.port}"
        self.log = open(log_path, "w")
        self.server = None

    def start(self):
        self.server = subprocess.Popen(["moto_server", "-H", "127.0.0.1", "-p", str(self.port)],
                                       stdout=self.log, stderr=self.log)
        for _ in range(600):
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=0.1).close()
                return
            except OSError:
                time.sleep(0.05)
        pytest.fail(f"moto_server did not listen on 127.0.0.1:{self.port} in 30 s")

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
