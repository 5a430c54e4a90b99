#!/usr/bin/env python3
"""The differential oracle: fio 3.33 and iomark-as-fio on generated jobs, side by side.

fio's option list is read from the installed fio at run time (`fio --cmdhelp=all`,
`fio --cmdhelp=NAME` for each option's type, default, range and valid values, and
`fio --enghelp=ENGINE[,NAME]` for the engine options of iomark's engines), never from a
copy. From it, seeded, the oracle generates jobs: every option alone on a base job with a
value drawn from its type and range, random combinations of options, several engines,
multi-section job files with stonewall/new_group/wait_for, in command-line and job-file
form. Each job runs under fio (--ref) and under --bin invoked as `fio` (a symlink named
fio), each run in a fresh temporary directory (small sizes, size-bounded, short), two jobs
at a time, and the two runs are compared:

  exit      acceptance and exit code
  stderr    stderr of a successful run (numbers masked)
  json-keys the set of JSON key paths and their types (--output-format=json)
  terse     the field count of each terse line (--output-format=terse)
  ios       size-bounded jobs: total_ios and io_bytes per job and direction
  files     the files a run leaves (names; sizes of the data files)
  offsets   write_iolog's (action, offset, length), in order, for sequential and uniform
            random jobs of one direction (iomark draws random offsets with fio's
            generator, docs/compat/fio.md "Access pattern")
  text      the normal output's line structure (numbers and units masked)

Every difference is explained by a row of the table "Explained differences (the
oracle)" in docs/compat/fio.md (pattern: a regular expression searched in the
difference's text; kind: one of the above or *; reason) or counted as unexplained.
Exit status: 0 when no difference is unexplained, 1 otherwise, 2 on bad usage.

Usage: oracle.py [--bin PATH] [--ref PATH] [--jobs N] [--seed S] [--parallel P]
                 [--write-summary] [--doc PATH] [--verbose]
"""

import argparse
import concurrent.futures
import json
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile
import time

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", ".."))
DOC = os.path.join(ROOT, "docs", "compat", "fio.md")
ENGINES = ["psync", "sync", "io_uring", "libaio", "posixaio", "mmap", "null"]
KINDS = ["exit", "stderr", "json-keys", "terse", "ios", "files", "offsets", "text"]
BEGIN = "<!-- oracle-summary:begin -->"
END = "<!-- oracle-summary:end -->"
TIMEOUT = 60

# Options the oracle does not generate: they would leave the temporary directory (a
# cgroup, the whole machine's scheduler, a network server, another user's files) or only
# name what the job runs under; each still counts as listed, not as covered.
SKIP = {
    "cgroup", "cgroup_weight", "cgroup_nodelete", "ioscheduler", "uid", "gid",
    "exec_prerun", "exec_postrun", "opendir", "directory", "filename", "name",
    "description", "wait_for", "stonewall", "new_group", "unique_filename",
    "read_iolog", "write_iolog", "replay_no_stall", "replay_redirect", "gtod_cpu",
    "cpus_allowed", "cpumask", "numa_cpu_nodes", "numa_mem_policy", "hugepage-size",
    "mem", "iomem", "mem_align", "iomem_align", "ioengine", "kb_base",
    "trim_verify_zero", "log_alternate_epoch_clock_id", "stats",
}

# Values for options whose type alone would give a slow, huge or out-of-directory job:
# a list to draw from.
VALUES = {
    "bs": ["512", "4k", "8k", "16k", "4k,8k", "4k,8k,16k"],
    "ba": ["512", "4k", "8k"],
    "bsrange": ["4k-16k", "512-8k", "4k-8k,8k-16k"],
    "bssplit": ["4k/50:8k/50", "4k/10:16k/90", "4k/50:8k/50,16k"],
    "size": ["64k", "128k", "256k", "50%"],
    "filesize": ["64k", "128k", "64k-128k"],
    "io_size": ["64k", "512k"],
    "offset": ["0", "64k", "10%"],
    "offset_increment": ["0", "64k"],
    "offset_align": ["0", "4k"],
    "number_ios": ["1", "8", "16"],
    "iodepth": ["1", "2", "4", "16"],
    "iodepth_batch": ["1", "2", "4"],
    "iodepth_batch_complete_min": ["0", "1", "2"],
    "iodepth_batch_complete_max": ["1", "2", "4"],
    "iodepth_low": ["0", "1", "2"],
    "nrfiles": ["1", "2", "3"],
    "openfiles": ["1", "2"],
    "numjobs": ["1", "2", "3"],
    "loops": ["1", "2", "3"],
    "fsync": ["0", "1", "4"],
    "fdatasync": ["0", "1", "4"],
    "write_barrier": ["0", "2"],
    "sync_file_range": ["wait_before:4", "write:8", "wait_after:2"],
    "startdelay": ["0", "10ms"],
    "runtime": ["1", "500ms"],
    "ramp_time": ["0", "100ms"],
    "thinktime": ["0", "10", "100"],
    "thinktime_spin": ["0", "5"],
    "thinktime_blocks": ["1", "4"],
    "thinktime_iotime": ["0", "100ms"],
    "rate": ["10m", "50m", "20m,10m"],
    "rate_min": ["1k"],
    "rate_iops": ["5000", "20000"],
    "rate_iops_min": ["1"],
    "rate_cycle": ["1000", "100"],
    "max_latency": ["1s", "10s"],
    "latency_target": ["1s"],
    "latency_window": ["100ms"],
    "latency_percentile": ["99", "50"],
    "steadystate_duration": ["0", "1s"],
    "steadystate_ramp_time": ["0", "100ms"],
    "steadystate": ["iops:10%", "bw_slope:0.1%"],
    "verify_interval": ["512", "4k"],
    "verify_offset": ["40", "64"],
    "verify_backlog": ["4", "16"],
    "verify_backlog_batch": ["1", "4"],
    "verify_pattern": ["0xdeadbeef", "\"abcd\"", "%o", "0xff"],
    "verify_async": ["0", "1"],
    "verify_fatal": ["0", "1"],
    "buffer_pattern": ["0xdeadbeef", "\"abcd\""],
    "log_entries": ["1024", "4096"],
    "log_avg_msec": ["0", "100"],
    "log_hist_msec": ["0", "100"],
    "log_compression": ["1024", "64k"],
    "bwavgtime": ["500", "100"],
    "iopsavgtime": ["500", "100"],
    "filename_format": ["f.$jobnum.$filenum", "$jobname.x.$filenum"],
    "lockfile": ["none", "exclusive", "readwrite"],
    "write_bw_log": ["lg"],
    "write_lat_log": ["lg"],
    "write_iops_log": ["lg"],
    "write_hist_log": ["lg"],
    "dedupe_working_set_percentage": ["5", "50"],
    "zonesize": ["64k"],
    "zonerange": ["64k"],
    "zoneskip": ["0", "64k"],
    "nice": ["0", "5"],
    "prio": ["0", "4"],
    "prioclass": ["0", "2", "3"],
    "hipri": ["0"],
    "cmdprio_percentage": ["10"],
    "cmdprio_class": ["2"],
    "cmdprio": ["4"],
    "cmdprio_bssplit": ["4k/50"],
    "sqthread_poll_cpu": ["0"],
    "replay_scale": ["1"],
    "replay_align": ["4k"],
    "replay_time_scale": ["100"],
    "trim_backlog": ["4"],
    "trim_backlog_batch": ["1"],
    "trim_percentage": ["0", "10"],
    "flow": ["0", "1"],
    "flow_watermark": ["0"],
    "flow_sleep": ["0", "10"],
    "continue_on_error": ["none", "read", "all"],
    "ignore_error": ["EIO", "EIO:ENOSPC"],
    "error_dump": ["0", "1"],
    "percentile_list": ["50:99", "1:5:10:99.9"],
    "significant_figures": ["2", "4", "10"],
    "create_on_open": ["0", "1"],
    "random_distribution": ["random", "zipf:1.2", "pareto:0.3", "normal:20", "zoned:50/10:50/90"],
    "random_generator": ["tausworthe", "lfsr", "tausworthe64"],
    "file_service_type": ["roundrobin", "sequential", "random", "random:4"],
    "rw": ["read", "write", "randread", "randwrite", "rw", "randrw", "write:8k", "randread:4"],
    "max_open_zones": ["0"],
    "job_max_open_zones": ["0"],
    "ignore_zone_limits": ["0"],
    "zone_reset_threshold": ["0"],
    "zone_reset_frequency": ["0"],
    "dedupe_mode": ["repeat", "working_set"],
    "bssplit_": [],
}


def sh(args, **kw):
    return subprocess.run(args, capture_output=True, text=True, errors="replace", **kw)


def bounded(args, cwd):
    """(exit code, stdout, stderr) of ARGS in its own session, or ("timeout", "", "")
    after TIMEOUT s with the whole session killed: fio forks a process per job, and
    killing fio alone left such a child spinning (a posixaio `io_submit_mode=offload`
    job fio 3.33 never ends) long after the sweep."""
    p = subprocess.Popen(args, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         text=True, errors="replace", start_new_session=True)
    try:
        out, err = p.communicate(timeout=TIMEOUT)
        return p.returncode, out, err
    except subprocess.TimeoutExpired:
        try:
            os.killpg(p.pid, 9)
        except ProcessLookupError:
            pass
        kill_left(os.path.realpath(cwd))
        p.communicate()
        return "timeout", "", ""


def kill_left(cwd):
    """SIGKILL every process still running in `cwd`, the run's own fresh directory: fio
    3.33's job processes run in sessions of their own (setsid), so the killpg above
    misses them, and one that never ends (posixaio with `io_submit_mode=offload`) keeps
    fio's stdout open and the oracle waiting."""
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            if os.readlink(f"/proc/{pid}/cwd") == cwd:
                os.kill(int(pid), 9)
        except OSError:
            pass


class Opt:
    """One option of fio's list, as `--cmdhelp`/`--enghelp` describe it."""

    def __init__(self, name, engine=None):
        self.name, self.engine = name, engine
        self.type, self.default, self.lo, self.hi, self.values = "", "", None, None, []

    def parse_help(self, text):
        for line in text.splitlines():
            m = re.match(r"\s*(type|default|range|valid values)?\s*:\s*(.*)", line)
            if not m:
                continue
            key, rest = m.group(1), m.group(2)
            if key == "type":
                self.type = rest
            elif key == "default":
                self.default = rest
            elif key == "range":
                r = re.match(r"min=(-?\d+), max=(-?\d+)", rest)
                if r:
                    self.lo, self.hi = int(r.group(1)), int(r.group(2))
            elif key == "valid values" or (key is None and self.values is not None and line.strip().startswith(":")):
                v = rest.split()
                if v:
                    self.values.append(v[0])
        return self


def fio_options(ref):
    """fio's generic options and the engine options of iomark's engines, from `ref`."""
    out = sh([ref, "--cmdhelp=all"]).stdout
    names = [m.group(1) for m in re.finditer(r"^\s*([A-Za-z0-9_-]+)\s+:", out, re.M)]
    opts = [Opt(n).parse_help(sh([ref, f"--cmdhelp={n}"]).stdout) for n in names]
    for eng in ENGINES:
        text = sh([ref, f"--enghelp={eng}"]).stdout
        for n in re.findall(r"^([A-Za-z0-9_-]+)\s+:", text, re.M):
            opts.append(Opt(n, eng).parse_help(sh([ref, f"--enghelp={eng},{n}"]).stdout))
    return opts


def draw(opt, rng):
    """A value for `opt` from its curated list, its valid values or its type and range."""
    if opt.name in VALUES and VALUES[opt.name]:
        return rng.choice(VALUES[opt.name])
    t = opt.type
    if "boolean" in t:
        return rng.choice(["0", "1"]) if "empty" not in t else rng.choice(["", "0", "1"])
    if opt.values:
        return rng.choice(opt.values)
    if "integer" in t:
        lo = opt.lo if opt.lo is not None else 0
        hi = opt.hi if opt.hi is not None and opt.hi >= 0 else lo + 16
        return str(rng.randint(lo, min(hi, lo + 16)))
    if "floating" in t:
        return rng.choice(["50", "99:99.9", "1.5"])
    if "time" in t:
        return rng.choice(["0", "10ms"])
    if "postfix" in t or "range" in t:
        return rng.choice(["4k", "8k"])
    return None


class Job:
    """A generated job: [global] options and sections, its form and what it promises."""

    def __init__(self, jid, form, glob, sections, engine, note):
        self.jid, self.form, self.glob, self.sections = jid, form, glob, sections
        self.engine, self.note = engine, note

    def options(self):
        return [k for k, _ in self.glob] + [k for s in self.sections for k, _ in s]

    def get(self, key):
        for k, v in self.glob + [kv for s in self.sections for kv in s]:
            if k == key:
                return v
        return None

    def single(self):
        return len(self.sections) == 1 and self.get("numjobs") in (None, "1")

    def bounded(self):
        """Size-bounded: the I/O count follows from the options alone."""
        timed = {"time_based", "runtime", "ramp_time", "steadystate", "steadystate_duration",
                 "max_latency", "latency_target", "exitall", "exitall_on_error", "rate_min",
                 "rate_iops_min", "flow", "flow_id", "continue_on_error", "zonemode",
                 "number_ios", "thinktime_iotime", "io_submit_mode", "exit_what"}
        return not (set(self.options()) & timed)

    def offsets_mode(self):
        """'seq', 'set' or None: how write_iolog's offsets are compared."""
        if not self.single() or not self.bounded():
            return None
        rw = (self.get("rw") or self.get("readwrite") or "read").split(":")[0]
        opts = set(self.options())
        if opts & {"verify", "trim_percentage", "rw_sequencer", "ddir_rwmix",
                   "zonesize", "zonerange", "zoneskip", "offset_increment", "io_size",
                   "sync_file_range"} or ":" in (self.get("rw") or ""):
            return None
        # without randrepeat and without a randseed fio seeds its generators from the
        # system's entropy: its random order differs from run to run
        unseeded = (self.get("randrepeat") or "1").lower() in ("0", "false", "no", "off") \
            and self.get("randseed") is None
        if unseeded and rw in ("randread", "randwrite"):
            return None
        # random offsets, request sizes, distributions, lfsr and the file picks are fio's
        # generators' (src/run/gen/), so in order too
        if rw in ("read", "write", "randread", "randwrite"):
            return "seq"
        return None

    def argv(self, workdir):
        """fio's arguments for this job (writing the job file into `workdir` when needed)."""
        if self.form == "cmdline":
            args = [f"--{k}={v}" for k, v in self.glob]
            for s in self.sections:
                args += [f"--{k}={v}" for k, v in s]
            return args
        path = os.path.join(workdir, "job.fio")
        with open(path, "w") as f:
            f.write(self.text())
        return [path]

    def text(self):
        lines = ["[global]"] + [f"{k}={v}" for k, v in self.glob] if self.glob else []
        for s in self.sections:
            lines.append(f"[{s[0][1]}]")
            lines += [f"{k}={v}" if v != "" else k for k, v in s[1:]]
        return "\n".join(lines) + "\n"

    def command(self):
        if self.form == "cmdline":
            return "fio " + " ".join(f"'--{k}={v}'" for k, v in self.glob + [kv for s in self.sections for kv in s])
        return "fio job.fio  # " + self.text().replace("\n", " | ")


def base(rng, engine, name="j"):
    rw = rng.choice(["read", "write", "randread", "randwrite", "rw", "randrw"])
    return [("name", name), ("ioengine", engine), ("rw", rw), ("bs", "4k"), ("size", "256k")]


def put(section, key, value):
    """Set key=value in a section, replacing an earlier value of the key."""
    for i, (k, _) in enumerate(section):
        if k == key and k != "name":
            section[i] = (key, value)
            return
    section.append((key, value))


def generate(opts, n, seed):
    """`n` jobs from fio's option list, seeded: each option alone first, then combinations
    and multi-section jobs, in command-line and job-file form."""
    rng = random.Random(seed)
    usable = [o for o in opts if o.name not in SKIP and draw(o, random.Random(0)) is not None]
    alone = usable[:]
    rng.shuffle(alone)
    jobs = []
    k = 0
    while len(jobs) < n:
        jid = len(jobs)
        form = rng.choice(["cmdline", "jobfile"])
        kind = "alone" if k < len(alone) and (n >= 2 * len(alone) or rng.random() < 0.5) else rng.choice(["combo", "combo", "multi"])
        if kind == "alone":
            o = alone[k]
            k += 1
            eng = o.engine or rng.choice(ENGINES)
            s = base(rng, eng)
            put(s, o.name, draw(o, rng))
            jobs.append(Job(jid, form, [], [s], eng, f"{o.name} alone"))
        elif kind == "combo":
            eng = rng.choice(ENGINES)
            s = base(rng, eng)
            pool = [o for o in usable if o.engine in (None, eng)]
            picks = rng.sample(pool, rng.randint(2, 4))
            for o in picks:
                put(s, o.name, draw(o, rng))
            jobs.append(Job(jid, form, [], [s], eng, "combination"))
        else:
            jobs.append(multi(jid, form, rng, usable))
    return jobs


def multi(jid, form, rng, usable):
    """Two or three sections with stonewall/new_group/wait_for, common keys in [global]."""
    eng = rng.choice(ENGINES)
    glob = [("ioengine", eng), ("bs", "4k"), ("size", "128k")]
    sections = []
    for i in range(rng.randint(2, 3)):
        s = [("name", f"s{i}"), ("rw", rng.choice(["read", "write", "randread", "randwrite", "randrw"]))]
        if i > 0:
            link = rng.choice(["stonewall", "new_group", "wait_for", "none"])
            if link == "wait_for":
                s.append(("wait_for", f"s{i - 1}"))
            elif link != "none":
                s.append((link, "1") if form == "jobfile" and rng.random() < 0.5 else (link, ""))
        if rng.random() < 0.5:
            o = rng.choice([o for o in usable if o.engine in (None, eng)])
            put(s, o.name, draw(o, rng))
        sections.append(s)
    if form == "cmdline":
        sections = [[(k, v) if v != "" else (k, "1") for k, v in s] for s in sections]
    return Job(jid, form, glob, sections, eng, "multi-section")


def fix_empty(job):
    """`stonewall` with no value is a job-file form; the command line needs `=1`."""
    for s in job.sections:
        for i, (k, v) in enumerate(s):
            if v == "" and job.form == "cmdline":
                s[i] = (k, "1")


class Run:
    """What one side printed and left for one job."""

    def __init__(self):
        self.rc, self.stderr, self.json, self.terse, self.text = None, "", None, [], ""
        self.files, self.iolog = {}, []


def run_side(fio, job, top):
    """Run `job` under `fio` once in a fresh directory, printing all three formats
    (`--output-format=normal,json,terse`: fio prints the terse lines, the JSON document,
    then the normal text), and split what it printed."""
    r = Run()
    d = tempfile.mkdtemp(dir=top, prefix="side.")
    run = os.path.join(d, "run")
    os.mkdir(run)
    args = job.argv(d)
    if job.offsets_mode():
        log = f"write_iolog={os.path.join(d, 'io.log')}"
        if job.form == "cmdline":
            args.append("--" + log)
        else:
            with open(args[0], "a") as f:
                f.write(log + "\n")
    r.rc, out, err = bounded([fio, "--output-format=normal,json,terse"] + args, run)
    r.stderr = err.replace(run, "RUN").replace(d, "DIR")
    text, js, inside = [], [], False
    for line in out.splitlines():
        if line == "{" and not js:
            inside = True
        if inside:
            js.append(line)
            inside = line != "}"
        elif re.match(r"^\d;fio-", line):
            r.terse.append(len(line.split(";")))
        else:
            text.append(line)
    try:
        r.json = json.loads("\n".join(js)) if js else None
    except ValueError:
        r.json = None
    r.text = "\n".join(text).replace(run, "RUN").replace(d, "DIR")
    r.files = files(run)
    r.iolog = iolog(os.path.join(d, "io.log"))
    return r


LOGNAME = re.compile(r"(_bw|_lat|_clat|_slat|_iops|_hist)(\.\d+)?\.log(\.fz)?$|\.log$|\.json$|state$")


def files(run):
    """Relative name -> size (None for logs and state files, whose size follows the clock)."""
    out = {}
    for base_, _, names in os.walk(run):
        for n in names:
            p = os.path.join(base_, n)
            rel = os.path.relpath(p, run)
            try:
                out[rel] = None if LOGNAME.search(n) else os.path.getsize(p)
            except OSError:
                pass
    return out


def iolog(path):
    out = []
    try:
        with open(path) as f:
            for line in f:
                w = line.split()
                if len(w) >= 4 and w[-3] in ("read", "write", "trim"):
                    out.append((w[-4], w[-3], int(w[-2]), int(w[-1])))
    except (OSError, ValueError):
        pass
    return out


def key_paths(v, path="", out=None):
    """Every key path of a JSON value with its type; list items merged as []."""
    out = {} if out is None else out
    if isinstance(v, dict):
        for k, x in v.items():
            k = "#" if re.fullmatch(r"[0-9.]+", k) else k
            key_paths(x, f"{path}.{k}", out)
        if not v:
            out.setdefault(path, set()).add("{}")
    elif isinstance(v, list):
        for x in v:
            key_paths(x, path + "[]", out)
        if not v:
            out.setdefault(path, set()).add("[]")
    else:
        t = {bool: "bool", int: "int", float: "float", str: "str"}.get(type(v), "null")
        out.setdefault(path, set()).add(t)
    return out


def mask_text(text):
    """The normal output's line shapes: numbers, units, dates and pids masked; latency
    distribution and percentile rows (which follow the clock) reduced to a label."""
    shapes = []
    for line in text.splitlines():
        s = line.strip()
        if not s:
            continue
        # the indentation of a line is part of its shape (`    lat percentiles`)
        indent = len(line) - len(line.lstrip(" "))
        s = re.sub(r"pid=\d+: .*", "pid=#: DATE", s)
        s = re.sub(r"\d+(\.\d+)?(e[+-]?\d+)?", "#", s)
        s = re.sub(r"#\s?([KMGTPk]i?B|B|[kKMGTP]i?|nsec|usec|msec|sec|s)?(/s)?(?![A-Za-z])", "#", s)
        s = re.sub(r"\(\s*([KMGTPk]i?B|B)/s\)", "(U)", s)
        s = re.sub(r"\((nsec|usec|msec|sec)\)", "(U)", s)
        s = re.sub(r"\s+", " ", s)
        s = re.sub(r"\[\s*#\]", "[#]", s)
        s = re.sub(r"=\s+#", "=#", s)
        if re.match(r"^(bw|iops)\s*(\(U\))?\s*:", s):
            # fio's sample lines: present when a bw/IOPS sample window closed during the
            # job, which follows the clock on a job of a few milliseconds
            continue
        if re.match(r"^\|\s*#th=\[#\]", s):
            # the rows break where the values' width says; the labels, as typed in
            # percentile_list (fio's percentile_precision), do not
            labels = re.findall(r"\s(\s*[\d.]+)th=\[", line)
            if shapes and shapes[-1].startswith("PERCENTILES"):
                shapes[-1] += "," + ",".join(labels)
            else:
                shapes.append("PERCENTILES " + ",".join(labels))
            continue
        elif re.match(r"^(lat|clat|slat) \(U\) ?:", s):
            s = "LATDIST"
        s = f"{indent}:{s}"
        if not (shapes and s.endswith(":LATDIST") and shapes[-1] == s):
            shapes.append(s)
    return shapes


def mask_err(text):
    return sorted(set(re.sub(r"\d+", "#", line.strip()) for line in text.splitlines() if line.strip()))


def ios(js):
    out = []
    for i, j in enumerate((js or {}).get("jobs", [])):
        for d in ("read", "write", "trim"):
            x = j.get(d, {})
            out.append((i, d, x.get("total_ios"), x.get("io_bytes")))
    return out


def compare(job, a, b):
    """The differences between fio's run `a` and iomark's run `b` of `job`: (kind, text)."""
    d = []
    if a.rc != b.rc:
        # the first line that says something (iomark's `notice:` lines about options it
        # does not apply come first and are no reason for the exit; fio prints none)
        first = lambda e: next((ln for ln in e.splitlines()
                                if ln.strip() and not ln.startswith("notice: ")), "")[:160]
        d.append(("exit", f"fio {a.rc}, iomark {b.rc}: fio says «{first(a.stderr)}» iomark says «{first(b.stderr)}»"))
        return d
    if a.rc != 0:
        return d
    ea, eb = mask_err(a.stderr), mask_err(b.stderr)
    for ln in sorted(set(ea) ^ set(eb)):
        d.append(("stderr", ("fio only: " if ln in ea else "iomark only: ") + ln[:200]))
    if a.json is not None or b.json is not None:
        ka, kb = key_paths(a.json or {}), key_paths(b.json or {})
        for k in sorted(set(ka) | set(kb)):
            if k not in kb:
                d.append(("json-keys", f"missing {k} ({'/'.join(sorted(ka[k]))})"))
            elif k not in ka:
                d.append(("json-keys", f"extra {k} ({'/'.join(sorted(kb[k]))})"))
            elif ka[k] != kb[k] and not ({"int", "float"} >= (ka[k] | kb[k])):
                d.append(("json-keys", f"type {k}: fio {'/'.join(sorted(ka[k]))}, iomark {'/'.join(sorted(kb[k]))}"))
    if a.terse != b.terse:
        d.append(("terse", f"fields fio {a.terse}, iomark {b.terse}"))
    if job.bounded():
        ia, ib = ios(a.json), ios(b.json)
        mixed = (job.get("rw") or "").split(":")[0] in ("rw", "readwrite", "randrw") or any(
            (s_rw or "").split(":")[0] in ("rw", "readwrite", "randrw")
            for s_rw in [v for s in job.sections for k, v in s if k in ("rw", "readwrite")])
        if mixed:
            tot = lambda x: [(i, sum(t or 0 for j, _, t, _ in x if j == i), sum(b_ or 0 for j, _, _, b_ in x if j == i)) for i in sorted({j for j, *_ in x})]
            ia, ib = tot(ia), tot(ib)
        if ia != ib:
            diff = [f"{p} vs {q}" for p, q in zip(ia, ib) if p != q][:3] or [f"{len(ia)} vs {len(ib)} entries"]
            d.append(("ios", ("total " if mixed else "") + "; ".join(diff)))
    fa, fb = a.files, b.files
    for n in sorted(set(fa) | set(fb)):
        if n not in fb:
            d.append(("files", f"fio only: {n}"))
        elif n not in fa:
            d.append(("files", f"iomark only: {n}"))
        elif fa[n] != fb[n] and job.bounded():
            d.append(("files", f"size of {n}: fio {fa[n]}, iomark {fb[n]}"))
    mode = job.offsets_mode()
    if mode:
        la, lb = a.iolog, b.iolog
        if mode == "set":
            la, lb = sorted(la), sorted(lb)
        if la != lb:
            at = next((i for i, (p, q) in enumerate(zip(la, lb)) if p != q), min(len(la), len(lb)))
            d.append(("offsets", f"{mode}: {len(la)} vs {len(lb)} entries, first difference at {at}: "
                      f"{la[at] if at < len(la) else '-'} vs {lb[at] if at < len(lb) else '-'}"))
    ta, tb = mask_text(a.text), mask_text(b.text)
    if ta != tb:
        only_a = [s for s in ta if s not in tb]
        only_b = [s for s in tb if s not in ta]
        for s in only_a[:4]:
            d.append(("text", "fio only: " + s[:160]))
        for s in only_b[:4]:
            d.append(("text", "iomark only: " + s[:160]))
        if not only_a and not only_b:
            d.append(("text", "same lines, another order or count"))
    return d


def explained_rows(doc):
    """The rows of the table "Explained differences (the oracle)" of `doc`."""
    rows, on = [], False
    for line in open(doc, encoding="utf-8"):
        if re.match(r"^#+ Explained differences \(the oracle\)", line):
            on = True
            continue
        if on and line.startswith("#"):
            break
        m = re.match(r"^\|\s*`(.+?)`\s*\|\s*([a-z*-]+)\s*\|\s*(.+?)\s*\|\s*$", line) if on else None
        if m:
            rows.append((re.compile(m.group(1).replace("\\|", "|")), m.group(2), m.group(3)))
    return rows


def opts_text(job):
    return ",".join(f"{k}={v}" for k, v in job.glob + [kv for s in job.sections for kv in s])


def classify(opts, kind, text, rows):
    """The matching row's index, or None (unexplained). The text searched is the
    difference with the job's options in front: `opts: k=v,k=v | text`."""
    full = "opts: " + opts + " | " + text
    for i, (pat, k, _) in enumerate(rows):
        if (k == kind or k == "*") and pat.search(full):
            return i
    return None


def one(job, ref, fio, top):
    d = tempfile.mkdtemp(dir=top, prefix=f"job{job.jid}.")
    try:
        a = run_side(ref, job, d)
        b = run_side(fio, job, d)
        return job, a, b, compare(job, a, b)
    finally:
        shutil.rmtree(d, ignore_errors=True)


def summary(saved, counts, unexplained):
    by = "\n".join(f"| {k} | {counts.get((k, True), 0)} | {counts.get((k, False), 0)} |" for k in KINDS)
    return f"""{BEGIN}
Last full sweep: `{saved['command']}` (fio 3.33 against iomark invoked as `fio`), {saved.get('date', 'date not recorded')}.

| jobs | accepted by fio | options covered | differences | explained | unexplained |
|---|---|---|---|---|---|
| {saved['jobs']} | {saved['accepted']} | {saved['covered']} of {saved['listed']} | {sum(counts.values())} | {sum(counts.values()) - unexplained} | {unexplained} |

| kind | explained | unexplained |
|---|---|---|
{by}
{END}"""


def write_summary(doc, table):
    text = open(doc, encoding="utf-8").read()
    if BEGIN in text and END in text:
        text = text[: text.index(BEGIN)] + table + text[text.index(END) + len(END):]
    else:
        text = text.rstrip("\n") + "\n\n" + table + "\n"
    tmp = doc + ".oracle.tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        f.write(text)
    os.replace(tmp, doc)


def main(argv):
    p = argparse.ArgumentParser(description="fio 3.33 against iomark-as-fio on generated jobs")
    p.add_argument("--bin", default=os.path.join(ROOT, "target", "ci", "iomark"))
    p.add_argument("--ref", default="/usr/bin/fio")
    p.add_argument("--jobs", type=int, default=120)
    p.add_argument("--seed", type=int, default=24)
    p.add_argument("--parallel", type=int, default=2)
    p.add_argument("--doc", default=DOC)
    p.add_argument("--write-summary", action="store_true")
    p.add_argument("--verbose", action="store_true")
    p.add_argument("--save", help="write the differences found to this JSON file")
    p.add_argument("--load", help="classify the differences saved by --save instead of running")
    args = p.parse_args(argv)
    args.cmd = argv
    if not args.load and (not os.access(args.bin, os.X_OK) or not os.access(args.ref, os.X_OK)):
        print(f"oracle: {args.bin} or {args.ref} is not an executable", file=sys.stderr)
        return 2
    if args.load:
        with open(args.load) as f:
            saved = json.load(f)
    else:
        saved = sweep(args)
    if args.save:
        with open(args.save, "w") as f:
            json.dump(saved, f)
    rows = explained_rows(args.doc)
    counts, unexplained = {}, []
    for d in saved["diffs"]:
        row = classify(d["opts"], d["kind"], d["text"], rows)
        counts[(d["kind"], row is not None)] = counts.get((d["kind"], row is not None), 0) + 1
        if row is None:
            unexplained.append(d)
        elif args.verbose:
            print(f"explained job {d['job']} [{d['kind']}] {d['text']}  (row {row + 1})")
    for d in unexplained:
        print(f"UNEXPLAINED job {d['job']} ({d['note']}) [{d['kind']}] {d['text']}\n    {d['command']}")
    print(f"oracle: {saved['jobs']} jobs ({saved['accepted']} accepted by fio), {saved['covered']} of "
          f"{saved['listed']} options covered, {sum(counts.values())} differences, "
          f"{len(unexplained)} unexplained")
    if args.write_summary:
        write_summary(args.doc, summary(saved, counts, len(unexplained)))
    return 1 if unexplained else 0


def sweep(args):
    """Generate the jobs, run both sides, and return every difference found."""
    opts = fio_options(args.ref)
    jobs = generate(opts, args.jobs, args.seed)
    for j in jobs:
        fix_empty(j)
    top = tempfile.mkdtemp(prefix="iomark-oracle.", dir=os.environ.get("ORACLE_TMP", "/var/tmp"))
    try:
        bindir = os.path.join(top, "bin")
        os.mkdir(bindir)
        fio = os.path.join(bindir, "fio")
        os.symlink(os.path.abspath(args.bin), fio)
        results = []
        with concurrent.futures.ThreadPoolExecutor(args.parallel) as ex:
            for r in ex.map(lambda j: one(j, args.ref, fio, top), jobs):
                results.append(r)
                if len(results) % 50 == 0:
                    print(f"oracle: {len(results)} of {len(jobs)} jobs run", file=sys.stderr, flush=True)
    finally:
        shutil.rmtree(top, ignore_errors=True)
    names = {o.name for o in opts}
    used, accepted, diffs = set(), 0, []
    for job, a, _, found in results:
        used |= set(job.options()) & names
        accepted += a.rc == 0
        for kind, text in found:
            diffs.append({"job": job.jid, "note": job.note, "command": job.command(),
                          "opts": opts_text(job), "kind": kind, "text": text})
    return {"jobs": len(jobs), "accepted": accepted, "covered": len(used), "listed": len(names),
            "command": f"nice -n 10 python3 tests/peer/oracle/oracle.py --bin target/ci/iomark "
                       f"--jobs {args.jobs} --seed {args.seed} --parallel {args.parallel} --write-summary",
            "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), "diffs": diffs}


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
