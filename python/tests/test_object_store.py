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


@pytest.fixture
def moto(tmp_path, monkeypatch):
    if not shutil.which("moto_server"):
        if os.environ.get("CI"):
            pytest.fail("moto_server is not on PATH (pip install 'moto[server]')")
        pytest.skip("moto_server is not on PATH")
    port = free_port()
    log = open(tmp_path / "moto.log", "w")
    server = subprocess.Popen(["moto_server", "-H", "127.0.0.1", "-p", str(port)], stdout=log, stderr=log)
    endpoint = f"http://127.0.0.1:{port}"
    try:
        for _ in range(600):
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.1).close()
                break
            except OSError:
                time.sleep(0.05)
        for name, value in {"AWS_ENDPOINT_URL": endpoint, "AWS_ACCESS_KEY_ID": "AKIAUNCHECKED",
                            "AWS_SECRET_ACCESS_KEY": "unchecked", "AWS_REGION": "us-east-1",
                            "AWS_EC2_METADATA_DISABLED": "true"}.items():
            monkeypatch.setenv(name, value)
        yield endpoint
    finally:
        server.terminate()
        server.wait(10)
        log.close()


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
