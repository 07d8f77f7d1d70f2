#!/usr/bin/env python3
"""Drives a headless Chromium through `store-tool serve`'s pages, as a person
would, and prints what it saw as one JSON object on stdout; the Swift test
(ServeBrowserTests) judges it. Standard library only: Chromium speaks the
DevTools protocol over file descriptors 3 (its input) and 4 (its output),
one JSON message per NUL-terminated chunk (--remote-debugging-pipe).

Usage: drive-serve.py CHROMIUM URL_WITH_TOKEN

The steps: load the URL; follow the Trip link; filter the list; follow a
trip's link; set its nights to 8; set them to "abc" (a bad value); open the
URL with a wrong token. A step that does not finish within STEP_LIMIT
seconds ends the script with exit 1 and a message on stderr (a guard
against hanging, not a measurement).
"""
import json
import os
import subprocess
import sys
import tempfile
import urllib.parse

STEP_LIMIT = 60


class Browser:
    def __init__(self, chromium, profile):
        to_browser_read, self.to_browser = os.pipe()
        self.from_browser, from_browser_write = os.pipe()

        def wire_pipes():
            # Through fresh copies: a pipe may already be 3 or 4, and
            # dup2 of a descriptor onto itself keeps its close-on-exec flag.
            reader, writer = os.dup(to_browser_read), os.dup(from_browser_write)
            os.dup2(reader, 3)
            os.dup2(writer, 4)
            os.set_inheritable(3, True)
            os.set_inheritable(4, True)

        self.process = subprocess.Popen(
            [chromium, "--headless=new", "--remote-debugging-pipe", "--no-sandbox", "--disable-gpu",
             "--disable-dev-shm-usage", "--no-first-run", "--no-default-browser-check",
             "--user-data-dir=" + profile, "about:blank"],
            preexec_fn=wire_pipes, close_fds=False, stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        os.close(to_browser_read)
        os.close(from_browser_write)
        self.buffer = b""
        self.next_id = 0
        self.session = None
        self.loaded = False

    def read_message(self):
        while b"\0" not in self.buffer:
            chunk = os.read(self.from_browser, 65536)
            if not chunk:
                fail("chromium closed its pipe (did it start? is it installed?)")
            self.buffer += chunk
        message, self.buffer = self.buffer.split(b"\0", 1)
        decoded = json.loads(message)
        if decoded.get("method") == "Page.loadEventFired":
            self.loaded = True
        return decoded

    def send(self, method, params=None, session=True):
        self.next_id += 1
        message = {"id": self.next_id, "method": method, "params": params or {}}
        if session and self.session:
            message["sessionId"] = self.session
        os.write(self.to_browser, json.dumps(message).encode() + b"\0")
        while True:
            reply = self.read_message()
            if reply.get("id") == self.next_id:
                if "error" in reply:
                    fail(f"{method}: {reply['error']}")
                return reply.get("result", {})

    def attach(self):
        targets = self.send("Target.getTargets", session=False)["targetInfos"]
        page = next(t for t in targets if t["type"] == "page")
        self.session = self.send("Target.attachToTarget", {"targetId": page["targetId"], "flatten": True},
                                 session=False)["sessionId"]
        self.send("Page.enable")
        self.send("Runtime.enable")

    def wait_for_load(self):
        while not self.loaded:
            self.read_message()

    def navigate(self, url):
        self.loaded = False
        self.send("Page.navigate", {"url": url})
        self.wait_for_load()

    def evaluate(self, expression):
        result = self.send("Runtime.evaluate", {"expression": expression, "returnByValue": True})
        if "exceptionDetails" in result:
            fail(f"{expression}: {result['exceptionDetails']}")
        return result["result"].get("value")

    def act(self, expression):
        """Runs `expression` (a click or a submit) and waits for the page it loads."""
        self.loaded = False
        self.evaluate(expression)
        self.wait_for_load()

    def close(self):
        try:
            self.send("Browser.close", session=False)
        except SystemExit:
            pass
        self.process.wait()


def fail(message):
    print(f"drive-serve.py: {message}", file=sys.stderr)
    sys.exit(1)


def on_timeout(*_):
    fail(f"a step took longer than {STEP_LIMIT} s")


def main():
    chromium, url = sys.argv[1], sys.argv[2]
    base = url.split("/?", 1)[0]
    seen = {}
    import signal
    signal.signal(signal.SIGALRM, on_timeout)
    with tempfile.TemporaryDirectory() as profile:
        browser = Browser(chromium, profile)
        signal.alarm(STEP_LIMIT)
        browser.attach()
        text = "document.body.innerText"

        browser.navigate(url)
        seen["load"] = browser.evaluate(text)

        signal.alarm(STEP_LIMIT)
        browser.act("document.querySelector('a[href=\"/list?entity=Trip\"]').click()")
        form = "document.querySelector('#filter')"
        browser.act(f"{form}.elements['where'].value = 'name contains \"o\"'; {form}.requestSubmit()")
        seen["filterURL"] = urllib.parse.unquote_plus(browser.evaluate("location.search"))
        seen["filtered"] = browser.evaluate(
            "[...document.querySelectorAll('#objects tr td:first-child a')].map(a => a.textContent)")

        signal.alarm(STEP_LIMIT)
        browser.act("document.querySelector('#objects a[href=\"/show?id=Trip%3A1\"]').click()")
        seen["followed"] = browser.evaluate("document.querySelector('h1').textContent")
        seen["links"] = browser.evaluate("[...document.querySelectorAll('#field-stops a')].map(a => a.textContent)")

        signal.alarm(STEP_LIMIT)
        row = "document.querySelector('#field-nights')"
        browser.act(f"{row}.querySelector('input[name=value]').value = '8'; {row}.querySelector('form').requestSubmit()")
        seen["afterEdit"] = browser.evaluate(f"{row}.querySelector('.value').textContent")
        seen["notice"] = browser.evaluate("document.querySelector('#notice') && document.querySelector('#notice').textContent")

        signal.alarm(STEP_LIMIT)
        browser.act(f"{row}.querySelector('input[name=value]').value = 'abc'; {row}.querySelector('form').requestSubmit()")
        seen["badValueError"] = browser.evaluate("document.querySelector('#error') && document.querySelector('#error').textContent")
        seen["afterBadValue"] = browser.evaluate(f"{row}.querySelector('.value').textContent")

        signal.alarm(STEP_LIMIT)
        browser.navigate(base + "/?token=0000000000000000ffffffffffffffff")
        seen["wrongToken"] = browser.evaluate(text)
        signal.alarm(0)
        browser.close()
    print(json.dumps(seen))


if __name__ == "__main__":
    main()
