#!/usr/bin/env python3
"""Validates an lb archive's RO-Crate metadata with roc-validator (PyPI:
roc-validator) against the Workflow Run Crate 0.5 profile, offline.

roc-validator reads the RO-Crate JSON-LD context from its URL, which a machine
without web access cannot reach. The context document itself ships with
ro-crate-py (PyPI: rocrate; version 0.9.0 bundles the RO-Crate 1.1 context,
the one lb's metadata names): this script takes it from there and serves it
to the validator's HTTP calls for that URL only; every other request goes out
as usual. Usage: scripts/rocrate-validate.py ARCHIVE_DIR
"""
import email.message
import glob
import io
import os
import subprocess
import sys
import tempfile
import urllib.request
import zipfile

CONTEXT_URL = "w3id.org/ro/crate/1.1/context"


def context_document() -> bytes:
    cache = os.path.join(tempfile.gettempdir(), "lb-rocrate-0.9.0")
    wheels = glob.glob(os.path.join(cache, "rocrate-0.9.0-*.whl"))
    if not wheels:
        subprocess.run(
            [sys.executable, "-m", "pip", "download", "--quiet", "--no-deps",
             "rocrate==0.9.0", "-d", cache],
            check=True,
        )
        wheels = glob.glob(os.path.join(cache, "rocrate-0.9.0-*.whl"))
    return zipfile.ZipFile(wheels[0]).read("rocrate/data/ro-crate.jsonld")


def main() -> int:
    crate = sys.argv[1]
    body = context_document()
    real_urlopen = urllib.request.urlopen

    class Response(io.BytesIO):
        def __init__(self, url):
            super().__init__(body)
            self.url, self.status = url, 200
            self.headers = email.message.Message()
            self.headers["Content-Type"] = "application/ld+json"

        def geturl(self):
            return self.url

        def info(self):
            return self.headers

        def getcode(self):
            return 200

    def urlopen(req, *a, **k):
        url = getattr(req, "full_url", str(req))
        return Response(url) if CONTEXT_URL in url else real_urlopen(req, *a, **k)

    urllib.request.urlopen = urlopen
    import requests
    import requests.adapters

    real_send = requests.adapters.HTTPAdapter.send

    def send(self, request, *a, **k):
        if CONTEXT_URL not in request.url:
            return real_send(self, request, *a, **k)
        r = requests.Response()
        r.status_code, r._content, r.url, r.request = 200, body, request.url, request
        r.headers["Content-Type"] = "application/ld+json"
        return r

    requests.adapters.HTTPAdapter.send = send
    from rocrate_validator.cli.main import cli

    sys.argv = [
        "rocrate-validator", "-y", "--disable-color", "--no-interactive", "validate",
        "--no-cache", "--no-paging", "--profile-identifier", "workflow-run-crate-0.5", crate,
    ]
    return cli()


if __name__ == "__main__":
    sys.exit(main())
