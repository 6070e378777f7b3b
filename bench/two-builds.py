# two-builds.py - what the two-build benchmarks (compare.sh, async-ps.sh,
# analytic-scale.sh) read back from one side of a run: the JSON result
# without its wall time, and /usr/bin/time's wall seconds and peak RSS.
# They import it from their heredocs (sys.path holds bench/).
import json
import os


def load(tmp, side):
    """(result, wall_s, rss_mb) of side 'old' or 'new' in TMP; three Nones
    when that side did not run."""
    if not os.path.exists("%s/time-%s" % (tmp, side)):
        return None, None, None
    d = json.load(open("%s/%s.json" % (tmp, side)))
    wall, rss_kb = open("%s/time-%s" % (tmp, side)).read().split()[-2:]
    d["simulation"].pop("wall_time_s", None)
    return d, float(wall), int(rss_kb) / 1024
