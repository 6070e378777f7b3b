"""Check results.csv's comm_wait_s in a sweep folder against the points' own
JSON (doc/SWEEP.md, "Columns"): the mean of the parameter-server workers'
worker_wait_fraction x iteration_time_s where the run has parameter servers,
else breakdown.comm_exposed_s; a point whose workers wait must not read 0.
Prints one line per point and exits 1 on any mismatch."""
import configparser
import csv
import json
import os
import sys

folder = sys.argv[1]
ini = configparser.ConfigParser(interpolation=None)
ini.read(os.path.join(folder, "sweep.ini"))
bad = 0
for row in csv.DictReader(open(os.path.join(folder, "results.csv"))):
    run = json.load(open(os.path.join(folder, ini["point " + row["point"]]["file"])))
    ps = run.get("parameter_servers")
    if ps:
        waits = ps["worker_wait_fraction"]
        want = sum(waits) / len(waits) * run["iteration_time_s"]
    else:
        want = run["breakdown"]["comm_exposed_s"]
    got = float(row["comm_wait_s"])
    ok = abs(got - want) <= 1e-9 * max(1.0, abs(want)) and (not ps or got > 0)
    bad += not ok
    print("point %s: comm_wait_s %s" % (row["point"], "ok" if ok else "%r, expected %r" % (got, want)))
sys.exit(1 if bad else 0)
