"""What a phone loads comes gzipped where that helps (the page over weak club Wi-Fi)."""

from __future__ import annotations

import gzip
from pathlib import Path

import pytest

STATIC = Path(__file__).resolve().parents[2] / "webui" / "static"
GZIP = {"Accept-Encoding": "gzip, deflate, br"}


@pytest.mark.parametrize("name", ["app.js", "style.css", "table.js"])
def test_the_pages_scripts_and_styles_come_gzipped_and_unpack_to_the_files(client, name):
    response = client.get(f"/static/{name}", headers=GZIP)
    assert response.status_code == 200 and response.headers["Content-Encoding"] == "gzip"
    assert gzip.decompress(response.data) == (STATIC / name).read_bytes()
    assert int(response.headers["Content-Length"]) == len(response.data) < (STATIC / name).stat().st_size
    assert "Accept-Encoding" in response.headers["Vary"]


def test_the_page_and_its_state_come_gzipped(client):
    page = client.get("/", headers=GZIP)
    assert page.headers["Content-Encoding"] == "gzip" and b"<html" in gzip.decompress(page.data).lower()
    state = client.get("/api/state", headers=GZIP)
    assert state.headers["Content-Encoding"] == "gzip" and b'"version"' in gzip.decompress(state.data)


def test_a_client_that_takes_no_gzip_gets_the_files_as_they_are(client):
    response = client.get("/static/app.js")
    assert "Content-Encoding" not in response.headers
    assert response.data == (STATIC / "app.js").read_bytes()


def test_pictures_and_errors_pass_as_they_are(client):
    assert "Content-Encoding" not in client.get("/frame.jpg", headers=GZIP).headers
    missing = client.get("/static/missing.js", headers=GZIP)
    assert missing.status_code == 404 and "Content-Encoding" not in missing.headers


def test_an_unchanged_file_is_still_answered_not_modified(client):
    first = client.get("/static/app.js", headers=GZIP)
    again = client.get("/static/app.js", headers={**GZIP, "If-None-Match": first.headers["ETag"]})
    assert again.status_code == 304 and not again.data


def test_the_gzipped_and_plain_files_are_not_tagged_as_the_same_bytes(client):
    gzipped = client.get("/static/app.js", headers=GZIP)
    plain = client.get("/static/app.js", headers={"Accept-Encoding": "identity"})
    assert plain.headers["ETag"].startswith('"') and gzipped.headers["ETag"] == f"W/{plain.headers['ETag']}"
    for tag in (gzipped.headers["ETag"], plain.headers["ETag"]):
        assert client.get("/static/app.js", headers={**GZIP, "If-None-Match": tag}).status_code == 304


def test_the_page_asks_for_every_module_at_once(client):
    """app.js's imports were found one level at a time (app, then overlay, then geometry): a
    round trip each, 0.8 s apiece on a poor link."""
    page = client.get("/").get_data(as_text=True)
    modules = {path.name for path in STATIC.glob("*.js")} - {"app.js"}
    assert {name for name in modules if f'rel="modulepreload" href="/static/{name}"' in page} == modules


def test_a_client_that_refuses_gzip_by_its_quality_gets_the_files_as_they_are(client):
    response = client.get("/static/app.js", headers={"Accept-Encoding": "gzip;q=0, identity"})
    assert "Content-Encoding" not in response.headers
    assert response.data == (STATIC / "app.js").read_bytes()


def test_not_modified_says_what_the_answer_varies_by(client):
    first = client.get("/static/app.js", headers=GZIP)
    again = client.get("/static/app.js", headers={**GZIP, "If-None-Match": first.headers["ETag"]})
    assert again.status_code == 304 and "Accept-Encoding" in again.headers.get("Vary", "")
