#!/usr/bin/env python3
# Complete when CHANGELOG.md has an entry for the version in VERSION.
import json, pathlib, sys

ctx = json.load(sys.stdin)  # {"event": ..., "project_dir": ..., "reason": ...}
root = pathlib.Path(ctx["project_dir"])
version = (root / "VERSION").read_text().strip()
log = root / "CHANGELOG.md"
done = log.exists() and f"## {version}" in log.read_text()
json.dump({"complete": done, "feedback": "" if done else f"Add a '## {version}' entry to CHANGELOG.md."}, sys.stdout)
