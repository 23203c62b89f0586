"""`taxipot serve --port 0` with a fresh state folder for the client and browser tests; the port is read from its banner."""
import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time


failures = []


def check(ok, what):
    """One check's line (`ok` or `FAIL`); failures are counted for `finish`."""
    print(("ok   " if ok else "FAIL ") + what)
    if not ok:
        failures.append(what)


def finish():
    """The closing line the runner reads, and the exit status: 1 when any check failed."""
    print(f"\n{len(failures)} failure(s)")
    sys.exit(1 if failures else 0)


class Server:
    """`token`: the write token the server is started with (TAXIPOT_WRITE_TOKEN), if any."""

    def __init__(self, binary, data, token=None, prefix="taxipot-clients-"):
        self.state = tempfile.mkdtemp(prefix=prefix)
        self.token = token
        env = dict(os.environ, **({"TAXIPOT_WRITE_TOKEN": token} if token else {}))
        self.proc = subprocess.Popen([binary, "serve", "--host", "127.0.0.1", "--port", "0", "--data", data,
                                      "--state-dir", self.state, "--no-access-log"],
                                     stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env, text=True)
        deadline = time.time() + 180
        self.port = None
        while time.time() < deadline:
            line = self.proc.stderr.readline()
            if not line:
                break
            m = re.search(r"on http://127\.0\.0\.1:(\d+)", line)
            if m:
                self.port = int(m.group(1))
                break
        if self.port is None:
            self.stop()
            raise RuntimeError("the server did not start (no 'serving … on http://127.0.0.1:PORT' line)")
        threading.Thread(target=self.proc.stderr.read, daemon=True).start()
        self.base = f"http://127.0.0.1:{self.port}"

    def stop(self):
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
        shutil.rmtree(self.state, ignore_errors=True)
