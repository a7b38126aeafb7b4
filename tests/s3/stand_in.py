#!/usr/bin/env python3
"""Local stand-ins of the endpoints the S3 client talks to besides S3 itself, for tests.

Serves on 127.0.0.1 only, on a free port it writes to PORT_FILE once it listens:
- EC2 instance metadata, IMDSv2: PUT /latest/api/token, then GET
  /latest/meta-data/iam/security-credentials/[ROLE] with the token (a GET without it is 401).
- container credentials: GET /creds (the Authorization header must be "Bearer-test-token").
- STS AssumeRoleWithWebIdentity: POST / with a form (the token must be "web-token-1").
- a faulty S3 object, GET /faulty/<mode>/<name>: 10000 bytes (b"0123456789" repeated) whose
  first answers fail as <mode> says: "slowdown-N" (N answers 503 SlowDown), "error-N" (500),
  "drop-N" (N answers cut after 3000 bytes of the body; Range honoured), "always-500"; or whose
  every answer has one bit flipped in transit: "flip-md5" (the ETag is the MD5 of the true
  bytes), "flip-crc32", "flip-crc32c", "flip-sha1", "flip-sha256" (a multipart upload's ETag,
  and that x-amz-checksum-* of the true bytes when the request sends x-amz-checksum-mode),
  "flip-none" (a multipart ETag, no checksum); "range-off" answers ranges with a Content-Range
  one byte off; "good-md5", "good-crc32c" are the same objects intact.
- a bucket "flaky" that answers every request with 500 InternalError.
- with UPSTREAM (an S3 server's http://127.0.0.1:PORT), every other request forwarded to it,
  except that a PUT of a key ending in "/_metadata" fails with 500 InternalError: an upload
  that breaks after its data files are in, to show that nothing is left at the output; and a
  GET of a key under a "flip-bit/" prefix (but its "_metadata") has one bit of the body
  flipped in transit, its headers (the ETag, the MD5 of the true bytes) as the server gave them;
  and a LIST of a "shared/" directory under an "unlisted/" prefix answers 500 InternalError (a
  store that serves the objects but fails to list that directory).
Every request is appended to LOG_FILE as one JSON line (method, path, headers).
Usage: stand_in.py PORT_FILE LOG_FILE [UPSTREAM]
"""
import base64
import hashlib
import http.client
import json
import struct
import zlib
import sys
import urllib.parse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

PORT_FILE, LOG_FILE = sys.argv[1], sys.argv[2]
UPSTREAM = urllib.parse.urlparse(sys.argv[3]) if len(sys.argv) > 3 else None
INTERNAL_ERROR = b"<Error><Code>InternalError</Code><Message>We encountered an internal error.</Message></Error>"
BODY = b"0123456789" * 1000
TOKEN = "imds-token-abc"
counts = {}


def creds_json(prefix):
    return json.dumps({"Code": "Success", "AccessKeyId": prefix + "AKID", "SecretAccessKey": prefix + "SECRET",
                       "Token": prefix + "TOKEN", "Expiration": "2099-01-01T00:00:00Z"}).encode()


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def record(self, body=b""):
        with open(LOG_FILE, "a") as f:
            f.write(json.dumps({"method": self.command, "path": self.path,
                                "headers": {k.lower(): v for k, v in self.headers.items()},
                                "body": body.decode("utf-8", "replace")}) + "\n")

    def reply(self, status, body=b"", ctype="text/plain", extra=None):
        self.send_response(status)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(body)))
        for k, v in (extra or {}).items():
            self.send_header(k, v)
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    def body(self):
        n = int(self.headers.get("Content-Length") or 0)
        return self.rfile.read(n) if n else b""

    def forward(self, body=b""):
        """The request as it came, sent to UPSTREAM (loopback only), and its answer passed back."""
        if not UPSTREAM or UPSTREAM.hostname != "127.0.0.1":
            return self.reply(404)
        conn = http.client.HTTPConnection(UPSTREAM.hostname, UPSTREAM.port, timeout=30)
        headers = {k: v for k, v in self.headers.items() if k.lower() not in ("host", "content-length")}
        headers["Content-Length"] = str(len(body))
        conn.request(self.command, self.path, body=body, headers=headers)
        r = conn.getresponse()
        data = r.read()
        key = self.path.split("?")[0]
        if self.command == "GET" and 200 <= r.status < 300 and "/flip-bit/" in key and not key.endswith("/_metadata"):
            data = flipped(data)
        self.send_response(r.status)
        for k, v in r.getheaders():
            if k.lower() not in ("content-length", "transfer-encoding", "connection", "server", "date"):
                self.send_header(k, v)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(data)
        conn.close()

    def do_HEAD(self):
        self.record()
        self.forward()

    def do_DELETE(self):
        self.record()
        self.forward()

    def do_PUT(self):
        body = self.body()
        self.record(body)
        if self.path == "/latest/api/token" and self.headers.get("X-aws-ec2-metadata-token-ttl-seconds"):
            return self.reply(200, TOKEN.encode())
        if UPSTREAM and self.path.split("?")[0].endswith("/_metadata"):
            return self.reply(500, INTERNAL_ERROR, "application/xml")
        if UPSTREAM:
            return self.forward(body)
        self.reply(400)

    def do_POST(self):
        body = self.body()
        self.record(body)
        form = urllib.parse.parse_qs(body.decode())
        if form.get("Action") == ["AssumeRoleWithWebIdentity"]:
            if form.get("WebIdentityToken") != ["web-token-1"]:
                err = b"<ErrorResponse><Error><Code>InvalidIdentityToken</Code><Message>bad token</Message></Error></ErrorResponse>"
                return self.reply(400, err, "text/xml")
            xml = ("<AssumeRoleWithWebIdentityResponse><AssumeRoleWithWebIdentityResult><Credentials>"
                   "<AccessKeyId>STSAKID</AccessKeyId><SecretAccessKey>STSSECRET</SecretAccessKey>"
                   "<SessionToken>STSTOKEN</SessionToken><Expiration>2099-01-01T00:00:00Z</Expiration>"
                   "</Credentials></AssumeRoleWithWebIdentityResult></AssumeRoleWithWebIdentityResponse>")
            return self.reply(200, xml.encode(), "text/xml")
        if UPSTREAM:
            return self.forward(body)
        self.reply(400)

    def do_GET(self):
        self.record()
        p = self.path
        if p.startswith("/latest/meta-data/iam/security-credentials/"):
            if self.headers.get("X-aws-ec2-metadata-token") != TOKEN:
                return self.reply(401)
            role = p[len("/latest/meta-data/iam/security-credentials/"):]
            return self.reply(200, b"ckpt-role" if role == "" else creds_json("IMDS") if role == "ckpt-role" else b"")
        if p == "/creds":
            if self.headers.get("Authorization") != "Bearer-test-token":
                return self.reply(401)
            return self.reply(200, creds_json("CONTAINER"), "application/json")
        if p.startswith("/flaky"):  # a bucket whose every answer is a 500
            return self.reply(500, b"<Error><Code>InternalError</Code><Message>We encountered an internal error.</Message></Error>", "application/xml")
        if p.startswith("/faulty/"):
            return self.faulty(p.split("?")[0].split("/"))
        query = urllib.parse.parse_qs(urllib.parse.urlparse(p).query)
        prefix = query.get("prefix", [""])[0]
        if UPSTREAM and "list-type" in query and "unlisted/" in prefix and prefix.endswith("/shared/"):
            return self.reply(500, INTERNAL_ERROR, "application/xml")
        if UPSTREAM:
            return self.forward()
        self.reply(404)

    def faulty(self, parts):
        mode = parts[2]
        seen = counts.get(self.path.split("?")[0], 0)
        counts[self.path.split("?")[0]] = seen + 1
        kind, _, n = mode.partition("-")
        failing = kind == "always" or (n.isdigit() and seen < int(n))
        if failing and kind == "slowdown":
            return self.reply(503, b"<Error><Code>SlowDown</Code><Message>Please reduce your request rate.</Message></Error>", "application/xml")
        if failing and kind in ("error", "always"):
            return self.reply(500, b"<Error><Code>InternalError</Code><Message>We encountered an internal error.</Message></Error>", "application/xml")
        start, end = 0, len(BODY)
        rng = self.headers.get("Range")
        if rng and rng.startswith("bytes="):
            first, _, last = rng[6:].partition("-")
            start, end = int(first), min(int(last) + 1 if last else len(BODY), len(BODY))
        data = BODY[start:end]
        self.send_response(206 if rng else 200)
        self.send_header("Content-Length", str(len(data)))
        etag = '"faulty-etag"'
        if kind in ("flip", "good"):
            etag = '"%s"' % hashlib.md5(BODY).hexdigest() if n in ("md5", "") else '"%s-2"' % hashlib.md5(b"parts").hexdigest()
            if n not in ("md5", "none", "") and not rng and self.headers.get("x-amz-checksum-mode") == "ENABLED":
                self.send_header("x-amz-checksum-" + n, checksum(n, BODY))
            if kind == "flip":
                data = flipped(data)
        if rng:
            off = 1 if mode == "range-off" else 0
            self.send_header("Content-Range", "bytes %d-%d/%d" % (start + off, end - 1 + off, len(BODY)))
        self.send_header("ETag", etag)
        self.end_headers()
        if failing and kind == "drop":
            self.wfile.write(data[:3000])
            self.wfile.flush()
            self.close_connection = True
            self.connection.shutdown(2)
            return
        self.wfile.write(data)


def flipped(data):
    """`data` with one bit of its middle byte flipped, as a faulty link or middlebox may."""
    if not data:
        return data
    at = len(data) // 2
    return data[:at] + bytes([data[at] ^ 0x10]) + data[at + 1:]


def checksum(name, data):
    """An x-amz-checksum-* value: base64 of the digest, a CRC as 4 big-endian bytes."""
    if name == "crc32":
        raw = struct.pack(">I", zlib.crc32(data) & 0xFFFFFFFF)
    elif name == "crc32c":
        crc = 0xFFFFFFFF
        for b in data:
            crc ^= b
            for _ in range(8):
                crc = (crc >> 1) ^ (0x82F63B78 if crc & 1 else 0)
        raw = struct.pack(">I", crc ^ 0xFFFFFFFF)
    else:
        raw = hashlib.new(name, data).digest()
    return base64.b64encode(raw).decode()


server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
with open(PORT_FILE + ".tmp", "w") as f:
    f.write(str(server.server_address[1]))
import os
os.rename(PORT_FILE + ".tmp", PORT_FILE)
server.serve_forever()
