"""The players' web UI: a Flask app over one table session, served by waitress.

`webui.app.create_app(session, pin, recordings_dir)` builds it; `tablesight serve` and
`tablesight demo` (webui/cli.py) run it. Kept import-free so the CLI starts without Flask.
"""
