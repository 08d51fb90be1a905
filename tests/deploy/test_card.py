"""The report card: numbers on the page = the JSON = closed forms; labels escaped; writer; headless chromium (slow)."""

from __future__ import annotations

import json
import math
import os
import shutil
import subprocess
from html.parser import HTMLParser

import numpy as np
import pytest

import mechopt
from mechopt import Mechanism
from mechopt.deploy.card import SECTIONS, Card, Section, card_html, card_json, card_sections, write_card
from mechopt.errors import OutputFileError
from mechopt.results.result import Result

P4 = np.array([0.4, 0.3, 0.2, 0.1])


def _grr(d: int, eps: float) -> np.ndarray:
    Q = np.full((d, d), 1.0 / (math.exp(eps) + d - 1))
    np.fill_diagonal(Q, math.exp(eps) / (math.exp(eps) + d - 1))
    return Q


class Page(HTMLParser):
    """Every ``data-key``/``data-value`` number, the tags and the text of a page, parsed by html.parser."""

    def __init__(self, text: str) -> None:
        super().__init__()
        self.numbers: dict[str, tuple[str, str]] = {}
        self.tags: list[str] = []
        self.text: list[str] = []
        self._open: str | None = None
        self.feed(text)
        self.close()

    def handle_starttag(self, tag, attrs) -> None:
        self.tags.append(tag)
        a = dict(attrs)
        if "data-key" in a:
            self._open = a["data-key"]
            self.numbers[a["data-key"]] = (a["data-value"], "")

    def handle_data(self, data) -> None:
        self.text.append(data)
        if self._open is not None:
            self.numbers[self._open] = (self.numbers[self._open][0], data)
            self._open = None


def _at(doc, key: str):
    for part in key.split("."):
        doc = doc[int(part)] if isinstance(doc, list) else doc[part]
    return doc


def assert_page_matches_json(page: Page, doc: dict) -> None:
    """Every number on the page is the JSON's number at its path, exactly (and shown to 4-10 digits)."""
    assert len(page.numbers) > 20
    for key, (value, text) in page.numbers.items():
        want = _at(doc["sections"], key)
        assert json.loads(value) == want, key
        if want is None:
            assert text == "∞", key
        else:
            assert math.isclose(float(text), want, rel_tol=1e-3, abs_tol=1e-12), key


@pytest.fixture(scope="module")
def grr() -> Mechanism:
    r = mechopt.design(prior=P4, notion="ldp", utility="mi", eps=2.0, solver="exact")  # 4 x 4, full rank
    return Mechanism.from_result(r, prior=P4, inputs=["<script>alert(1)</script>", "b&c", "d", "e"])


def test_the_page_shows_the_json_numbers_and_closed_forms(grr) -> None:
    doc = card_json(grr)
    page = Page(card_html(grr))
    assert_page_matches_json(page, doc)
    s = doc["sections"]
    assert list(s) == ["mechanism", "privacy", "estimator", "composition", "shuffle", "certificate"]
    assert s["privacy"]["notions"]["ldp"]["eps"] <= 2.0 + 1e-9 and s["privacy"]["prior_source"] == "the design prior"
    assert s["certificate"]["status"] == "optimal" and s["certificate"]["audit"]["holds"] is True
    assert s["certificate"]["certificate"]["gap"] <= 1e-9
    Qd = np.asarray(s["mechanism"]["Q"])  # the linear estimator's per-report variance, (R diag λ Rᵀ - diag θ)_xx
    assert s["estimator"]["identifiable"] and Qd.shape == (4, 4)
    R = np.linalg.inv(Qd.T)
    lam = P4 @ Qd
    np.testing.assert_allclose(s["estimator"]["variance"], np.diag((R * lam) @ R.T) - P4, rtol=1e-9)
    assert s["estimator"]["total"] == pytest.approx(sum(s["estimator"]["variance"]))


def test_closed_forms_of_krr_on_the_card() -> None:
    d, eps = 4, 1.0
    m = Mechanism(_grr(d, eps), claim=("ldp", eps))
    s = card_json(m)["sections"]
    e = math.exp(eps)
    assert s["privacy"]["notions"]["ldp"]["eps"] == pytest.approx(eps, abs=1e-12)
    assert s["privacy"]["maximal_leakage"] == pytest.approx(math.log(d * e / (e + d - 1)), abs=1e-12)
    assert s["privacy"]["bayes"]["attacker_success"] == pytest.approx(e / (e + d - 1), abs=1e-12)
    # k-RR, θ̂_x = (f_x - q)/(p - q), fixed data set θ (uniform): n·Var θ̂_x = (θ p(1-p) + (1-θ) q(1-q)) / (p-q)²
    p, q, th = e / (e + d - 1), 1 / (e + d - 1), 1 / d
    want = (th * p * (1 - p) + (1 - th) * q * (1 - q)) / (p - q) ** 2
    assert s["estimator"]["variance"] == pytest.approx([want] * d, rel=1e-10)
    assert s["certificate"]["status"] is None and s["certificate"]["audit"]["holds"] is True


def test_labels_are_escaped(grr) -> None:
    text = card_html(grr)
    assert "<script" not in text and "&lt;script&gt;alert(1)&lt;/script&gt;" in text and "b&amp;c" in text
    page = Page(text)
    assert "script" not in page.tags
    assert "<script>alert(1)</script>" in "".join(page.text)  # shown as text, not run


def test_not_identifiable_says_so() -> None:
    m = Mechanism([[0.6, 0.4], [0.6, 0.4], [0.1, 0.9]], inputs=["a", "b", "c"])
    s = card_json(m)["sections"]["estimator"]
    assert s == {"identifiable": False, "rank": 2, "confounded": [["a", "b"]]}
    assert "Not identifiable" in card_html(m) and "NaN" not in card_html(m)


def test_an_infinite_eps_is_null_and_shown_as_infinity() -> None:
    m = Mechanism([[1.0, 0.0], [0.5, 0.5]])
    doc, page = card_json(m), Page(card_html(m))
    assert doc["sections"]["privacy"]["notions"]["ldp"]["eps"] is None
    assert page.numbers["privacy.notions.ldp.eps"] == ("null", "∞")
    assert_page_matches_json(page, doc)


def test_a_section_is_one_more_function() -> None:
    def extra(card: Card) -> Section:
        return Section("extra", "Extra", {"d": card.mechanism.shape[0]}, "<p>extra</p>")

    got = card_sections(Mechanism(np.eye(2)), sections=[*SECTIONS, extra])
    assert [s.key for s in got][-1] == "extra" and got[-1].data == {"d": 2}


def test_the_writer_never_replaces_a_link_and_refuses_a_dangling_one(tmp_path) -> None:
    m = Mechanism(_grr(3, 1.0))
    real = tmp_path / "real.html"
    real.write_text("old")
    link = tmp_path / "card.html"
    link.symlink_to(real)
    write_card(m, link)
    assert link.is_symlink() and "<!DOCTYPE html>" in real.read_text()  # the link stays, its file is written
    dangling = tmp_path / "dangling.html"
    dangling.symlink_to(tmp_path / "missing.html")
    with pytest.raises(OutputFileError, match="symbolic link"):
        write_card(m, dangling)
    assert dangling.is_symlink() and not (tmp_path / "missing.html").exists()
    assert sorted(os.listdir(tmp_path)) == ["card.html", "dangling.html", "real.html"]  # no temporaries left


def test_result_repr_html_shows_a_heat_map_for_a_large_q() -> None:
    Q = _grr(20, 1.0)
    html = Result(status="optimal", value=0.1, sense="min", objective="mse", mechanism=Q)._repr_html_()
    assert 'src="data:image/png;base64,' in html and "too large for a table" in html


# -- the page in a real browser ----------------------------------------------------------------------------------
CHROMIUM = shutil.which("chromium") or ("/usr/bin/chromium" if os.path.exists("/usr/bin/chromium") else None)


def _chromium(url: str) -> tuple[str, str]:
    run = subprocess.run(
        [
            CHROMIUM,
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--enable-logging=stderr",
            "--v=0",
            "--dump-dom",
            url,
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert run.returncode == 0, run.stderr[-2000:]
    return run.stdout, run.stderr


@pytest.mark.slow
@pytest.mark.skipif(CHROMIUM is None, reason="Debian's chromium is not installed (apt-get install -y chromium)")
def test_the_page_renders_in_headless_chromium(grr, tmp_path, cli) -> None:
    grr.save(tmp_path / "m.json")
    out = tmp_path / "card.html"
    run = cli("report", tmp_path / "m.json", "--html", out, "--json")
    assert run.code == 0, run.err
    bad = tmp_path / "bad.html"  # the control: a console error is seen
    bad.write_text('<!DOCTYPE html><html><body><script>console.error("boom")</script></body></html>')
    assert ":CONSOLE" in _chromium(bad.as_uri())[1]
    dom, log = _chromium(out.as_uri())
    assert ":CONSOLE" not in log, log[-2000:]
    page = Page(dom)
    assert_page_matches_json(page, run.json())
    assert page.tags.count("img") == 2 and "script" not in page.tags
