"""`taxipot serve --port 0` with a fresh state folder for the client tests; the port is read from its banner."""
import os
import re
import shutil
import subprocess
import tempfile
import threading
import time


class Server:
    def __init__(self, binary, data):
        self.state = tempfile.mkdtemp(prefix="taxipot-clients-")
        self.proc = subprocess.Popen([binary, "serve", "--host", "127.0.0.1", "--port", "0", "--data", data,
                                      "--state-dir", self.state, "--no-access-log"],
                                     stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=dict(os.environ), text=True)
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
