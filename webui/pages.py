"""The one page: everything else happens in the browser from the JSON state."""

from __future__ import annotations

from flask import Blueprint, render_template

pages = Blueprint("pages", __name__)


@pages.get("/")
def index():
    return render_template("index.html")
