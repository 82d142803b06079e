"""TensorBoard in a real browser, on the event files the README's example writes.

The other summary tests read our event files through TensorBoard's Python loader; this
one starts `tensorboard --logdir` on the main example's logs and opens its dashboards in
headless Chromium (Debian's `chromium` and `chromium-driver`, driven by selenium), then
checks what the page shows: the run and its tags on the scalars, histograms and images
dashboards, the model's name scopes as nodes of the graph, a decoded image. Each
dashboard's screenshot and the text the page showed are kept in
`$FERROFLOW_BROWSER_ARTIFACTS` (CI: under `$CARGO_TARGET_DIR`).

Skipped when the browser, its driver, selenium or TensorBoard is missing, unless
`FERROFLOW_REQUIRE_BROWSER=1` (as in CI), which makes that a failure.
"""

from __future__ import annotations

import io
import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
CHROMEDRIVER = shutil.which("chromedriver") or "/usr/bin/chromedriver"
REQUIRED = os.environ.get("FERROFLOW_REQUIRE_BROWSER") == "1"


def _missing() -> str | None:
    for path in (CHROMIUM, CHROMEDRIVER):
        if not os.path.exists(path):
            return f"{path} is not installed (Debian: chromium chromium-driver)"
    for module in ("selenium", "tensorboard"):
        try:
            __import__(module)
        except ImportError:
            return f"{module} is not installed"
    return None


_why = _missing()
if _why is not None:
    if REQUIRED:
        raise RuntimeError(f"FERROFLOW_REQUIRE_BROWSER=1 but {_why}")
    pytest.skip(_why, allow_module_level=True)

from selenium import webdriver  # noqa: E402
from selenium.webdriver.chrome.service import Service  # noqa: E402

# Text and elements inside TensorBoard's web components live in shadow roots, which
# `document.querySelectorAll` and `innerText` do not enter: these walk into them.
DEEP_JS = """
function deepAll(root, selector, out) {
  out = out || [];
  root.querySelectorAll(selector).forEach(e => out.push(e));
  root.querySelectorAll('*').forEach(e => {
    if (e.shadowRoot) deepAll(e.shadowRoot, selector, out);
  });
  return out;
}
function deepText(root, out) {
  out = out || [];
  const skip = {STYLE: 1, SCRIPT: 1, TEMPLATE: 1};
  const walker = document.createTreeWalker(
    root, NodeFilter.SHOW_ELEMENT | NodeFilter.SHOW_TEXT,
    {acceptNode: n => skip[n.nodeName] ? NodeFilter.FILTER_REJECT : NodeFilter.FILTER_ACCEPT});
  for (let n = walker.currentNode; n; n = walker.nextNode()) {
    if (n.nodeType === Node.TEXT_NODE) {
      const t = n.textContent.trim();
      if (t) out.push(t);
    } else if (n.shadowRoot) {
      deepText(n.shadowRoot, out);
    }
  }
  return out;
}
"""


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def artifacts(tmp_path_factory) -> Path:
    where = os.environ.get("FERROFLOW_BROWSER_ARTIFACTS")
    path = Path(where) if where else tmp_path_factory.mktemp("tensorboard-browser")
    path.mkdir(parents=True, exist_ok=True)
    return path


@pytest.fixture(scope="module")
def logdir(tmp_path_factory) -> Path:
    """The README's main job, run as a user runs it, writing its TensorBoard logs."""
    logs = tmp_path_factory.mktemp("example") / "logs"
    subprocess.run(
        [
            sys.executable,
            str(REPO / "examples" / "mlp_classifier.py"),
            "--steps",
            "2000",
            "--save-secs",
            "0.2",
            "--logdir",
            str(logs),
        ],
        check=True,
        timeout=240,
        capture_output=True,
    )
    return logs


@pytest.fixture(scope="module")
def tensorboard_url(logdir):
    port = _free_port()
    log = open(logdir.parent / "tensorboard.log", "wb")
    server = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "tensorboard.main",
            "--logdir",
            str(logdir),
            "--host",
            "127.0.0.1",
            "--port",
            str(port),
            "--reload_interval",
            "0",
        ],
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 90
        while True:
            try:
                with urllib.request.urlopen(f"{url}/data/runs", timeout=5) as response:
                    if b"." in response.read():
                        break
            except OSError:
                pass
            if server.poll() is not None or time.monotonic() > deadline:
                log.close()
                output = (logdir.parent / "tensorboard.log").read_text(errors="replace")
                raise RuntimeError(f"tensorboard did not start serving the run:\n{output}")
            time.sleep(0.5)
        yield url
    finally:
        server.terminate()
        server.wait(timeout=30)
        log.close()


@pytest.fixture(scope="module")
def browser():
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for flag in (
        "--headless=new",
        "--no-sandbox",  # CI runs as root
        "--disable-dev-shm-usage",
        "--disable-gpu",
        "--window-size=1400,1000",
    ):
        options.add_argument(flag)
    driver = webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)
    try:
        yield driver
    finally:
        driver.quit()


def _open(browser, url, dashboard, ready_js, artifacts, params="", timeout=90):
    """Opens `#dashboard` (on a fresh page) and waits until `ready_js` (run with DEEP_JS's
    helpers, returning a truthy value) holds; keeps a screenshot and the page's text;
    returns the text as a list of its text nodes."""
    # A fresh page each time: TensorBoard keeps a visited dashboard's DOM (hidden) when
    # the hash changes, which would let one dashboard's text pass for another's.
    browser.get("about:blank")
    browser.get(f"{url}/#{dashboard}{params}")
    deadline = time.monotonic() + timeout
    while True:
        ready = browser.execute_script(DEEP_JS + ready_js)
        if ready or time.monotonic() > deadline:
            break
        time.sleep(0.5)
    time.sleep(1.0)  # let the charts finish drawing for the screenshot
    text = browser.execute_script(DEEP_JS + "return deepText(document.body);")
    browser.save_screenshot(str(artifacts / f"{dashboard}.png"))
    (artifacts / f"{dashboard}.txt").write_text("\n".join(text))
    assert ready, f"the {dashboard} dashboard did not show what was expected; it showed: {text}"
    return text


def _cards_drawn_js(tags, drawn_at_least):
    """Ready when each tag's card shows its "tag:" line and the charts drew paths."""
    return f"""
        const text = deepText(document.body).join('\\n');
        const drawn = deepAll(document.body, 'svg path')
          .filter(p => (p.getAttribute('d') || '').length > 40);
        return {tags!r}.every(t => text.includes('tag:\\n' + t))
          && drawn.length >= {drawn_at_least};
        """


def test_scalars_dashboard_shows_the_runs_curves(browser, tensorboard_url, artifacts):
    # `tagFilter=.*` lists every tag's card open (categories past the first two start
    # closed); a card's "tag:" line and its drawn line appear once its data is loaded.
    tags = ["loss", "accuracy", "global_step/sec", "input/batch/fraction_of_512_full"]
    text = _open(
        browser,
        tensorboard_url,
        "scalars",
        _cards_drawn_js(tags, len(tags)),
        artifacts,
        params="&tagFilter=.*",
    )
    assert "." in text  # the run: the event file sits in the logdir itself


def test_graphs_dashboard_draws_the_models_nodes(browser, tensorboard_url, artifacts):
    nodes = ["input", "hidden1", "hidden2", "logits", "plane", "global_step", "Adam", "save"]
    text = _open(
        browser,
        tensorboard_url,
        "graphs",
        f"""
        // A node's label is its <text>'s own text (a <title> inside holds the full name).
        const labels = deepAll(document.body, 'svg text').map(t => Array.from(t.childNodes)
          .filter(n => n.nodeType === Node.TEXT_NODE).map(n => n.textContent).join('').trim());
        return {nodes!r}.every(n => labels.includes(n));
        """,
        artifacts,
    )
    assert not any("error" in t.lower() and "graph" in t.lower() for t in text), text


def test_histograms_dashboard_shows_the_weights(browser, tensorboard_url, artifacts):
    tags = [
        f"{layer}_{kind}"
        for layer in ("hidden1", "hidden2", "logits")
        for kind in ("weights", "biases")
    ]
    _open(
        browser,
        tensorboard_url,
        "histograms",
        _cards_drawn_js(tags, len(tags)),
        artifacts,
        params="&tagFilter=.*",
    )


def test_images_dashboard_shows_the_written_image(browser, tensorboard_url, logdir, artifacts):
    import numpy as np
    from PIL import Image

    import ferroflow as tf

    _open(
        browser,
        tensorboard_url,
        "images",
        """
        const imgs = deepAll(document.body, 'img')
          .filter(i => i.complete && i.naturalWidth > 0 && i.src.includes('individualImage'));
        return deepText(document.body).includes('decision_regions/image') && imgs.length > 0;
        """,
        artifacts,
    )
    # The pixels the browser decoded, read back through a canvas (same origin, untainted).
    shown = browser.execute_script(
        DEEP_JS
        + """
        const img = deepAll(document.body, 'img').find(i => i.src.includes('individualImage'));
        const canvas = document.createElement('canvas');
        canvas.width = img.naturalWidth; canvas.height = img.naturalHeight;
        const context = canvas.getContext('2d');
        context.drawImage(img, 0, 0);
        return [img.naturalWidth, img.naturalHeight,
                Array.from(context.getImageData(0, 0, img.naturalWidth, img.naturalHeight).data)];
        """
    )
    width, height, rgba = shown
    shown_rgb = np.array(rgba, np.uint8).reshape(height, width, 4)[..., :3]
    # TensorBoard shows the newest step: the last image in the event file.
    (events,) = [f for f in logdir.iterdir() if "tfevents" in f.name]
    written = [
        v.image.encoded_image_string
        for e in tf.train.summary_iterator(str(events))
        if e.HasField("summary")
        for v in e.summary.value
        if v.tag == "decision_regions/image"
    ]
    assert written, "the example wrote no image summary"
    expected = np.asarray(Image.open(io.BytesIO(written[-1])).convert("RGB"))
    assert (width, height) == (96, 96)
    np.testing.assert_array_equal(shown_rgb, expected)
    # The regions took shape: each class's colour (the example's palette) fills some of
    # the plane, so the picture is of a trained model and not of one class or a blur.
    # `tf.summary.image` scales a non-negative float image so that its maximum is 255.
    palette = np.array([[0.89, 0.29, 0.2], [0.2, 0.55, 0.85], [0.3, 0.7, 0.3]])
    palette *= 255 / palette.max()
    distance = np.abs(expected[:, :, None, :].astype(float) - palette).max(axis=-1)
    assert ((distance < 8).sum(axis=(0, 1)) > 0.05 * width * height).all()
