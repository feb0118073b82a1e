#!/usr/bin/env python3
"""Checks ops/grafana/tilawa-dashboard.json: every panel and target reads the `${datasource}`
variable (no datasource baked in), and every expression is valid PromQL — each one, with
Grafana's variables given values, becomes a recording rule that `promtool check rules` parses.

    scripts/dashboard-check.py ops/grafana/tilawa-dashboard.json
"""
import json
import subprocess
import sys
import tempfile

import yaml  # PyYAML, in the test venv


def main(path):
    dashboard = json.load(open(path))
    problems = []
    variables = {v["name"] for v in dashboard["templating"]["list"]}
    if not {"datasource", "instance"} <= variables:
        problems.append("the datasource and instance variables are missing")
    rules = []
    for panel in dashboard["panels"]:
        if panel["type"] == "row":
            continue
        if panel.get("datasource", {}).get("uid") != "${datasource}":
            problems.append(f"panel {panel['title']!r} does not read the datasource variable")
        for target in panel.get("targets", []):
            if target.get("datasource", {}).get("uid") != "${datasource}":
                problems.append(f"a target of {panel['title']!r} does not read the datasource variable")
            expr = target["expr"].replace("$__rate_interval", "5m").replace("$instance", ".*")
            rules.append({"record": f"dashboard:panel{panel['id']}_{target['refId']}", "expr": expr})
    if not rules:
        problems.append("no expressions")
    with tempfile.NamedTemporaryFile("w", suffix=".yml", delete=False) as out:
        yaml.safe_dump({"groups": [{"name": "dashboard", "rules": rules}]}, out)
    checked = subprocess.run(["promtool", "check", "rules", out.name], capture_output=True, text=True)
    if checked.returncode != 0:
        problems.append("promtool: " + (checked.stdout + checked.stderr).strip())
    for problem in problems:
        print("dashboard-check:", problem, file=sys.stderr)
    print(f"dashboard-check: {len(rules)} expressions in {sum(1 for p in dashboard['panels'] if p['type'] != 'row')} panels"
          + (" parse" if checked.returncode == 0 else " do not all parse"))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
