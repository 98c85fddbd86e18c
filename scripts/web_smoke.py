"""Real-browser smoke test of `umbel serve` (headless Chromium driven through Selenium).

Usage: python3 scripts/web_smoke.py target/debug/umbel [--shots DIR]   (or `bash scripts/web_smoke.sh`)

In a throw-away state root, HOME and tmux socket folder, with the fake claude as the CLI, it
starts `umbel serve --listen 127.0.0.1:0`, reads the URL from the first line of its stdout
(`http://127.0.0.1:PORT/?token=TOKEN`) and checks, one printed line each:

  auth       the URL with the token sets the `umbel_token_PORT` cookie and redirects to `/` without the
             token; the fleet page lists worker w1 as `ready` (`table#fleet`,
             `tr.worker[data-name="w1"] td.state`); a second browser with a fresh profile and
             plain HTTP (urllib) get 401 for `/`, `/w/w1` and `/events` without the cookie, and
             for a wrong token
  worker     `/w/w1` shows `span#state`, a non-empty `pre#screen` and `form#send` with a
             `textarea[name=prompt]`; a prompt typed there and submitted gets its answer in an
             `article.turn` of `section#turns` within 15 s, the test never reloading the page
  live       with the page open and marked, a prompt sent with the umbel CLI shows up as a new
             `article.turn` on that same page (no navigation happened)
  approvals  w2 stops at a Bash tool's approval: `section#approval` shows the tool and its input
             (`pre.tool-input`); submitting `form#approve` answers it, the section goes and the
             turn's answer appears
  interrupt  w3 runs a 20 s turn: `span#state` says `busy`; submitting `form#interrupt` ends
             it within 15 s
  csrf       a POST to `/w/w1/send` with the cookie but no `csrf` field is refused with 403, and
             so is one with the page's csrf token but a foreign `Origin`
  shots      PNGs of the fleet page and of `/w/w1` at 1280x900 and at 390x844 (a phone: mobile
             emulation, so the page needs `<meta name=viewport content="width=device-width">`)
             into target/web-smoke/ (or --shots DIR: `--shots docs/web` refreshes the docs' images); at 390 px neither page scrolls sideways
  shutdown   `umbel kill --all --purge` ends the workers; SIGTERM ends the server with exit 0
             within 5 s

Workers are spawned and prompted with the umbel CLI itself; the script never runs tmux (umbel
does, on a socket inside the sandbox). Every wait has a timeout, and the whole run is cut off
after 300 s; the server, the browsers and the workers are ended in a `finally`.

Needs the fakes built next to umbel (`cargo build -p umbel --bins -p sim`), Debian's chromium
and chromium-driver (`apt-get install chromium chromium-driver`) and `pip install
'selenium>=4.20,<5'`. Selenium is given the system chromedriver and browser explicitly, so
Selenium Manager never downloads anything; WEB_SMOKE_CHROMIUM and WEB_SMOKE_CHROMEDRIVER
override /usr/bin/chromium and /usr/bin/chromedriver.
"""

import json
import os
import re
import select
import signal
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
from pathlib import Path

import smoke_sandbox

# Selenium Manager is never needed (the driver and the browser are given); never let it fetch.
os.environ.setdefault("SE_OFFLINE", "true")

from selenium import webdriver  # noqa: E402
from selenium.common.exceptions import (  # noqa: E402
    NoSuchElementException,
    StaleElementReferenceException,
    TimeoutException,
    WebDriverException,
)
from selenium.webdriver.chrome.service import Service  # noqa: E402
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.support.ui import WebDriverWait  # noqa: E402

CHROMIUM = os.environ.get("WEB_SMOKE_CHROMIUM", "/usr/bin/chromium")
CHROMEDRIVER = os.environ.get("WEB_SMOKE_CHROMEDRIVER", "/usr/bin/chromedriver")
# The token's cookie is named after the server's port (`umbel_token_PORT`): set once the
# server printed its URL.
COOKIE = "umbel_token"
WAIT = 15  # seconds the page has for each thing it must show
TOTAL = 300  # seconds the whole run may take
SUBMIT = "button:not([type=button]):not([type=reset]), input[type=submit]"

HELLO = "Hello from the fake."
APPROVAL_TOOL = {"tool": "Bash", "input": {"command": "echo smoke-approval", "description": "Print a marker"}}
SCENARIOS = {
    # A quick answer to the browser's prompt; anything else gets `Response to: <prompt>`.
    "w1": {"turns": [{"match": "Say hello", "reply": HELLO}], "default": {}},
    # The first turn stops at a Bash tool's approval; approved, it answers.
    "w2": {"turns": [{"match": "run it", "reply": "Ran it.", "end": {"permission": APPROVAL_TOOL}}]},
    # 20 s busy before any text: long enough to be interrupted from the page.
    "w3": {"turns": [{"match": "slow", "reply": "Too late.", "delay_ms": 20000}]},
}


class Deadline(Exception):
    """The whole run took longer than TOTAL seconds."""


def passed(check: str, detail: str) -> None:
    print(f"ok {check}: {detail}", flush=True)


def sandbox(root: Path, bins: Path) -> tuple[dict[str, str], Path]:
    """The environment umbel runs in (scripts/smoke_sandbox.py), and the folder claude trusts."""
    return smoke_sandbox.sandbox(root, bins / "fake-claude", os.environ.get("PATH", "/usr/bin:/bin"))


class Umbel:
    """Runs the umbel CLI in the sandbox."""

    def __init__(self, exe: str, env: dict[str, str], project: Path):
        self.exe, self.env, self.project = exe, env, project

    def run(self, *args: str, timeout: float = 60, check: bool = True) -> subprocess.CompletedProcess:
        try:
            ran = subprocess.run(
                [self.exe, *args],
                env=self.env,
                cwd=self.project,
                stdin=subprocess.DEVNULL,
                capture_output=True,
                text=True,
                timeout=timeout,
            )
        except subprocess.TimeoutExpired as e:
            raise AssertionError(f"`umbel {' '.join(args)}` did not finish within {timeout} s") from e
        if check:
            assert ran.returncode == 0, (
                f"`umbel {' '.join(args)}` exited {ran.returncode}\nstdout: {ran.stdout}\nstderr: {ran.stderr}"
            )
        return ran

    def spawn(self, name: str) -> None:
        scenario = json.dumps(SCENARIOS[name], separators=(",", ":"))
        self.run(
            "spawn", "--name", name, "--provider", "claude", "--cwd", str(self.project),
            "--env", f"UMBEL_SIM_SCENARIO={scenario}",
        )

    def state(self, name: str) -> str:
        return json.loads(self.run("status", name, "--json", timeout=20).stdout)["state"]

    def until_state(self, name: str, want: str, timeout: float = WAIT) -> None:
        deadline = time.monotonic() + timeout
        while (now := self.state(name)) != want:
            assert time.monotonic() < deadline, f"{name} is {now!r}, not {want!r}, after {timeout} s"
            time.sleep(0.2)


class Server:
    """`umbel serve` as a child process: its URL, and its stdout drained after the first line."""

    def __init__(self, umbel: Umbel, log: Path):
        self.log_path = log
        self.log = open(log, "wb")
        self.proc = subprocess.Popen(
            [umbel.exe, "serve", "--listen", "127.0.0.1:0"],
            env=umbel.env,
            cwd=umbel.project,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=self.log,
        )
        self.rest: list[bytes] = []

    def url(self, timeout: float = 20) -> str:
        """The first line of its stdout; what follows is drained in the background."""
        line = self._first_line(timeout)
        threading.Thread(target=self._drain, daemon=True).start()
        return line

    def _first_line(self, timeout: float) -> str:
        deadline = time.monotonic() + timeout
        line = b""
        fd = self.proc.stdout.fileno()
        while not line.endswith(b"\n"):
            left = deadline - time.monotonic()
            if left <= 0:
                raise AssertionError(f"`umbel serve` printed no URL line within {timeout} s{self.tail()}")
            ready, _, _ = select.select([fd], [], [], left)
            if not ready:
                continue
            chunk = os.read(fd, 1)  # byte by byte: nothing past the first line is taken here
            if not chunk:
                code = self.proc.wait(timeout=5)
                raise AssertionError(f"`umbel serve` exited {code} before printing its URL{self.tail()}")
            line += chunk
        return line.decode().strip()

    def _drain(self) -> None:
        for chunk in iter(lambda: self.proc.stdout.read1(65536), b""):
            self.rest.append(chunk)

    def tail(self) -> str:
        self.log.flush()
        text = self.log_path.read_text(errors="replace")[-3000:]
        return f"\n--- umbel serve stderr (last 3000 chars) ---\n{text}" if text else ""

    def stop(self, timeout: float) -> int | None:
        """SIGTERM, then the exit code within `timeout` s (None: it had to be killed)."""
        if self.proc.poll() is not None:
            return self.proc.returncode
        self.proc.send_signal(signal.SIGTERM)
        try:
            return self.proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(timeout=10)
            return None


class NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args, **kwargs):
        return None


HTTP = urllib.request.build_opener(urllib.request.ProxyHandler({}), NoRedirect())


def http(url: str, data: dict[str, str] | None = None, headers: dict[str, str] | None = None):
    """(status, headers, body) of one request, redirects not followed, no proxy, 10 s timeout."""
    body = urllib.parse.urlencode(data).encode() if data is not None else None
    request = urllib.request.Request(url, data=body, headers=headers or {})
    if body is not None:
        request.add_header("Content-Type", "application/x-www-form-urlencoded")
    try:
        with HTTP.open(request, timeout=10) as r:
            # /events may stream: only its status and headers are wanted, never a whole body.
            text = b"" if "event-stream" in r.headers.get("Content-Type", "") else r.read(1 << 20)
            return r.status, r.headers, text.decode(errors="replace")
    except urllib.error.HTTPError as e:
        return e.code, e.headers, e.read(1 << 20).decode(errors="replace")


def browser(profile: Path) -> webdriver.Chrome:
    """Headless Chromium on the system chromedriver, with its own fresh profile folder."""
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for arg in (
        "--headless=new",
        "--no-sandbox",  # Chromium refuses to run as root without it
        "--disable-gpu",
        "--disable-dev-shm-usage",
        "--no-first-run",
        "--no-default-browser-check",
        "--disable-extensions",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--metrics-recording-only",
        f"--user-data-dir={profile}",
        "--window-size=1280,900",
    ):
        options.add_argument(arg)
    driver = webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)
    driver.set_page_load_timeout(20)
    driver.set_script_timeout(10)
    viewport(driver, 1280, 900, mobile=False)
    return driver


def viewport(driver: webdriver.Chrome, width: int, height: int, mobile: bool) -> None:
    """An exact viewport (the window's own size is clamped and loses its frame in headless)."""
    metrics = {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": mobile}
    driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", metrics)


def until(driver: webdriver.Chrome, what: str, condition, timeout: float = WAIT):
    """The truthy value of `condition(driver)` within `timeout` s, else an AssertionError."""
    try:
        return WebDriverWait(
            driver, timeout, poll_frequency=0.1,
            ignored_exceptions=(NoSuchElementException, StaleElementReferenceException),
        ).until(condition)
    except TimeoutException:
        raise AssertionError(
            f"timed out after {timeout} s waiting for {what} on {driver.current_url}\n"
            f"--- page ---\n{page_text(driver)}"
        ) from None


def page_text(driver: webdriver.Chrome) -> str:
    try:
        return driver.find_element(By.TAG_NAME, "body").text[:3000]
    except WebDriverException:
        return driver.page_source[:3000]


def one(driver, css: str):
    return driver.find_element(By.CSS_SELECTOR, css)


def visible(driver, css: str) -> bool:
    return any(e.is_displayed() for e in driver.find_elements(By.CSS_SELECTOR, css))


def answers(driver) -> list[str]:
    return [e.text for e in driver.find_elements(By.CSS_SELECTOR, "section#turns article.turn .answer")]


def mark(driver) -> None:
    """Marks the loaded document: a navigation or reload loses the mark."""
    driver.execute_script("window.__umbelSmoke = 'still here';")


def marked(driver) -> bool:
    return driver.execute_script("return window.__umbelSmoke === 'still here';")


def submit(driver, form: str) -> None:
    buttons = driver.find_elements(By.CSS_SELECTOR, f"form#{form} :is({SUBMIT})")
    assert buttons, f"form#{form} has no submit button on {driver.current_url}"
    buttons[0].click()


def state_of(driver) -> str:
    return one(driver, "span#state").text.strip()


def check_auth(driver, base: str, url: str, token: str) -> None:
    # Plain HTTP first: the token is swapped for a cookie and the URL loses it.
    status, headers, _ = http(url)
    assert status in (302, 303, 307), f"GET /?token=… answered {status}, not a redirect"
    location = urllib.parse.urljoin(url, headers.get("Location", ""))
    assert location == base + "/", f"GET /?token=… redirects to {location!r}, not to {base + '/'!r}"
    cookies = headers.get_all("Set-Cookie") or []
    assert any(c.startswith(f"{COOKIE}=") for c in cookies), f"no {COOKIE} cookie set: {cookies}"
    driver.get(url)
    until(driver, "the redirect to / without the token", lambda d: d.current_url == base + "/")
    cookie = driver.get_cookie(COOKIE)
    assert cookie and cookie["value"] == token, f"the browser's {COOKIE} cookie is {cookie}"
    passed("auth", f"the token became the {COOKIE} cookie (httpOnly={cookie.get('httpOnly')}, "
                   f"sameSite={cookie.get('sameSite')}) and / was loaded without it")
    until(driver, "table#fleet", lambda d: one(d, "table#fleet"))
    row = 'table#fleet tr.worker[data-name="w1"] td.state'
    until(driver, f"{row} to say ready", lambda d: one(d, row).text.strip() == "ready")
    passed("fleet", 'table#fleet lists w1 as ready')


def check_locked_out(profile: Path, base: str, token: str) -> None:
    stranger = browser(profile)
    try:
        stranger.get(base + "/")
        assert not stranger.find_elements(By.CSS_SELECTOR, "table#fleet"), "a browser without the cookie sees the fleet"
        assert stranger.get_cookie(COOKIE) is None, "a browser without the token got a cookie"
        # Same-origin fetches from that browser's page: its status codes, no cookie to send.
        script = """
            const done = arguments[arguments.length - 1];
            Promise.all(arguments[0].map(p => fetch(p, {redirect: 'manual'}).then(r => r.status, e => String(e))))
                .then(done);
        """
        codes = stranger.execute_async_script(script, ["/", "/w/w1", "/events"])
        assert codes == [401, 401, 401], f"a browser without the cookie got {codes} for /, /w/w1, /events"
    finally:
        stranger.quit()
    for path in ("/", "/w/w1", "/events"):
        status, _, _ = http(base + path)
        assert status == 401, f"GET {path} without the cookie answered {status}, not 401"
    status, _, _ = http(base + "/?token=" + urllib.parse.quote("not-" + token))
    assert status == 401, f"GET /?token=<wrong> answered {status}, not 401"
    status, _, _ = http(base + "/", headers={"Cookie": f"{COOKIE}=not-{token}"})
    assert status == 401, f"GET / with a wrong {COOKIE} cookie answered {status}, not 401"
    passed("locked out", "no cookie or a wrong token: 401 for /, /w/w1, /events (fresh browser and urllib)")


def check_worker_page(driver, base: str, umbel: Umbel) -> None:
    driver.get(base + "/w/w1")
    until(driver, "span#state", lambda d: one(d, "span#state"))
    until(driver, "a non-empty pre#screen", lambda d: one(d, "pre#screen").text.strip())
    prompt = until(driver, "form#send textarea[name=prompt]", lambda d: one(d, "form#send textarea[name=prompt]"))
    passed("worker page", f"/w/w1 shows span#state ({state_of(driver)!r}), pre#screen and form#send")
    before = len(answers(driver))
    mark(driver)
    prompt.send_keys("Say hello")
    submit(driver, "send")
    until(driver, f"an article.turn answering {HELLO!r}",
          lambda d: len(answers(d)) > before and any(HELLO in a for a in answers(d)))
    how = "in place" if marked(driver) else "after the form's own navigation"
    passed("send", f"the prompt typed in form#send was answered in section#turns ({how}), no reload by the test")

    # Live: a turn sent from elsewhere shows up on the open page without it navigating.
    umbel.until_state("w1", "ready")
    mark(driver)
    before = len(answers(driver))
    umbel.run("send", "w1", "live check")
    until(driver, "the CLI's turn to appear on the open page",
          lambda d: len(answers(d)) > before and any("Response to: live check" in a for a in answers(d)))
    assert marked(driver), "the page navigated to show the new turn instead of updating in place"
    passed("live", "a prompt sent with the umbel CLI appeared on the open /w/w1 page, no navigation")


def check_approval(driver, base: str, umbel: Umbel) -> None:
    # The approval comes while the page has no event stream (Chrome blocks /events, so the
    # browser gives the stream up): drawn before it and told by no event, it shows once the page
    # opened a new stream and fetched what it missed. A page drawn between the tool call and the
    # approval, its stream opened after it, once missed it so (CI, 2026-12-07).
    driver.execute_cdp_cmd("Network.enable", {})
    driver.execute_cdp_cmd("Network.setBlockedURLs", {"urls": ["*/events"]})
    driver.get(base + "/w/w2")
    umbel.run("send", "w2", "run it")
    umbel.until_state("w2", "needs-input")
    assert not visible(driver, "section#approval"), "the page was drawn before the approval"
    driver.execute_cdp_cmd("Network.setBlockedURLs", {"urls": []})
    until(driver, "section#approval to show", lambda d: visible(d, "section#approval"))
    section = one(driver, "section#approval")
    assert APPROVAL_TOOL["tool"] in section.text, f"section#approval does not name the tool: {section.text!r}"
    tool_input = section.find_element(By.CSS_SELECTOR, "pre.tool-input").text
    assert APPROVAL_TOOL["input"]["command"] in tool_input, f"pre.tool-input lacks the command: {tool_input!r}"
    passed("approval shown", f"section#approval names Bash and shows its input ({tool_input.strip()[:60]!r})")
    submit(driver, "approve")
    until(driver, "section#approval to go", lambda d: not visible(d, "section#approval"))
    until(driver, "the approved turn's answer", lambda d: any("Ran it." in a for a in answers(d)))
    passed("approved", "form#approve answered it: section#approval went and the turn's answer appeared")


def check_interrupt(driver, base: str, umbel: Umbel) -> None:
    umbel.run("send", "w3", "slow task")
    driver.get(base + "/w/w3")
    until(driver, "span#state to say busy", lambda d: state_of(d) == "busy")
    submit(driver, "interrupt")
    until(driver, "span#state to leave busy", lambda d: state_of(d) not in ("busy", ""))
    passed("interrupt", f"form#interrupt ended the 20 s turn: span#state is {state_of(driver)!r}, "
                        f"umbel status says {umbel.state('w3')!r}")


def check_csrf(driver, base: str, token: str) -> None:
    cookie = {"Cookie": f"{COOKIE}={token}"}
    status, _, _ = http(base + "/w/w1", headers=cookie)
    assert status == 200, f"GET /w/w1 with the {COOKIE} cookie answered {status}: the cookie is not accepted"
    status, _, body = http(base + "/w/w1/send", data={"prompt": "x"}, headers=cookie)
    assert status == 403, f"POST /w/w1/send without a csrf field answered {status}, not 403: {body[:300]}"
    driver.get(base + "/w/w1")
    csrf = until(driver, "form#send input[name=csrf]", lambda d: one(d, "form#send input[name=csrf]"))
    csrf = csrf.get_attribute("value")
    assert csrf, "form#send input[name=csrf] is empty"
    status, _, body = http(
        base + "/w/w1/send",
        data={"prompt": "x", "csrf": csrf},
        headers={**cookie, "Origin": "http://evil.example"},
    )
    assert status == 403, f"POST /w/w1/send from Origin http://evil.example answered {status}, not 403: {body[:300]}"
    passed("csrf", "POST /w/w1/send without csrf, or with it from a foreign Origin: 403")


def check_screenshots(driver, base: str, shots: Path) -> None:
    shots.mkdir(parents=True, exist_ok=True)
    taken = []
    for width, height, mobile in ((1280, 900, False), (390, 844, True)):
        viewport(driver, width, height, mobile)
        for page, path in (("fleet", "/"), ("worker", "/w/w1")):
            driver.get(base + path)
            ready = "table#fleet" if page == "fleet" else "pre#screen"
            until(driver, ready, lambda d: one(d, ready).text.strip())
            time.sleep(0.3)  # fonts and a first live update settle
            if width == 390:
                scroll = driver.execute_script("return document.documentElement.scrollWidth")
                assert scroll <= 390, (
                    f"{path} at 390 px scrolls sideways (scrollWidth {scroll}); "
                    'does it have <meta name="viewport" content="width=device-width">?'
                )
            png = shots / f"{page}-{width}.png"
            assert driver.save_screenshot(str(png)), f"no screenshot of {path} at {width} px"
            taken.append(png.name)
    viewport(driver, 1280, 900, mobile=False)
    passed("screenshots", f"{', '.join(taken)} in {shots}; no sideways scroll at 390 px")


def main() -> int:
    args = sys.argv[1:]
    if not args or args[0] in ("-h", "--help"):
        print(__doc__, file=sys.stderr if not args else sys.stdout)
        return 2 if not args else 0
    # The docs' images are refreshed on purpose (`just web-smoke --shots docs/web`), not by
    # every test run.
    shots = Path(__file__).resolve().parent.parent / "target" / "web-smoke"
    if len(args) == 3 and args[1] == "--shots":
        shots = Path(args[2]).resolve()
    elif len(args) != 1:
        print(__doc__, file=sys.stderr)
        return 2
    exe = str(Path(args[0]).resolve())
    bins = Path(exe).parent
    for need in (Path(exe), bins / "fake-claude", Path(CHROMIUM), Path(CHROMEDRIVER)):
        if not need.exists():
            print(f"web smoke: {need} is missing (see the docstring: python3 {sys.argv[0]} --help)", file=sys.stderr)
            return 2

    def out_of_time(*_):
        raise Deadline(f"the run took longer than {TOTAL} s")

    signal.signal(signal.SIGALRM, out_of_time)
    signal.alarm(TOTAL)
    try:
        run(exe, bins, shots)
    except (AssertionError, Deadline) as e:
        print(f"web smoke: FAILED: {e}", file=sys.stderr)
        return 1
    print("web smoke: ok")
    return 0


def run(exe: str, bins: Path, shots: Path) -> None:
    with tempfile.TemporaryDirectory(prefix="uw", dir="/tmp") as tmp:
        root = Path(tmp)
        env, project = sandbox(root, bins)
        umbel = Umbel(exe, env, project)
        server = driver = None
        killed = False
        try:
            for name in SCENARIOS:
                umbel.spawn(name)
            passed("spawn", f"workers {', '.join(SCENARIOS)} spawned on the fake claude")
            server = Server(umbel, root / "serve.log")
            url = server.url()
            m = re.fullmatch(r"(http://127\.0\.0\.1:\d+)/\?token=([^&#\s]+)", url)
            assert m, f"the first line of `umbel serve` is {url!r}, not http://127.0.0.1:PORT/?token=TOKEN"
            base, token = m.group(1), urllib.parse.unquote(m.group(2))
            global COOKIE
            COOKIE = "umbel_token_" + base.rsplit(":", 1)[1]
            passed("serve", f"listening at {base}")
            try:
                driver = browser(root / "chrome-a")
                check_auth(driver, base, url, token)
                check_locked_out(root / "chrome-b", base, token)
                check_worker_page(driver, base, umbel)
                check_approval(driver, base, umbel)
                check_interrupt(driver, base, umbel)
                check_csrf(driver, base, token)
                check_screenshots(driver, base, shots)
            except AssertionError as e:
                raise AssertionError(f"{e}{server.tail()}") from None
            driver.quit()
            driver = None
            umbel.run("kill", "--all", "--purge")
            killed = True
            code = server.stop(timeout=5)
            assert code is not None, "`umbel serve` did not exit within 5 s of SIGTERM"
            assert code == 0, f"`umbel serve` exited {code} on SIGTERM, not 0{server.tail()}"
            passed("shutdown", "workers killed and purged; SIGTERM ended the server with exit 0")
        finally:
            signal.alarm(0)
            if driver is not None:
                try:
                    driver.quit()
                except Exception as e:  # still end the server and the workers
                    print(f"web smoke: closing the browser: {e}", file=sys.stderr)
            if server is not None and server.proc.poll() is None:
                server.stop(timeout=5)
            if not killed:
                umbel.run("kill", "--all", "--purge", check=False, timeout=60)


if __name__ == "__main__":
    sys.exit(main())
