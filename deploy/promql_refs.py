"""Metric references in PromQL, and what a Prometheus text scrape really exports (for deploy/check-manifests.py).

`references(expr)` finds the metric names, label matchers and grouping labels of a PromQL expression (or a Grafana
query such as `label_values(metric{...}, label)`), after replacing Grafana's variables. It is a tokenizer, not a
full parser: enough to name every series an expression reads, which is what has to exist in a scrape.
`Scrape.parse(text)` reads the Prometheus text format: series names, their label names and values.
"""

import re
from dataclasses import dataclass, field

# PromQL words that are never metric names: operators, modifiers, and the aggregations, which may be followed by
# `by (...)` instead of "(" (other functions are recognised by the "(" after them).
KEYWORDS = {"by", "without", "on", "ignoring", "group_left", "group_right", "bool", "and", "or", "unless",
            "offset", "atan2", "inf", "nan", "sum", "avg", "min", "max", "count", "stddev", "stdvar", "topk",
            "bottomk", "quantile", "count_values", "group", "limitk", "limit_ratio"}
GROUPING = {"by", "without", "on", "ignoring", "group_left", "group_right"}
# Series Prometheus makes itself for every target, and labels it attaches from the target (not the exporter).
SYNTHETIC_METRICS = {"up", "scrape_duration_seconds", "scrape_samples_scraped", "scrape_samples_post_metric_relabeling",
                     "scrape_series_added"}
TARGET_LABELS = {"job", "instance", "replica", "namespace", "pod", "service", "container", "endpoint", "node",
                 "__name__"}

TOKEN_RE = re.compile(r"""
    (?P<ws>\s+)
  | (?P<comment>\#[^\n]*)
  | (?P<string>"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'|`[^`]*`)
  | (?P<range>\[[^\]]*\])
  | (?P<number>0x[0-9a-fA-F]+|(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?(?:ms|s|m|h|d|w|y)?)
  | (?P<ident>[a-zA-Z_:][a-zA-Z0-9_:.]*)
  | (?P<op>=~|!~|!=|==|>=|<=|[-+*/%^<>=(){},])
""", re.VERBOSE)


def expand_grafana(expr):
    """Replace Grafana's variables so the expression is plain PromQL: intervals by 5m, others by '.*'."""
    expr = re.sub(r"\$__(rate_)?interval\b|\$__range\b|\[\[[^\]]*\]\]", "5m", expr)
    expr = re.sub(r"\$\{[^}]*\}|\$[A-Za-z_][A-Za-z0-9_]*", ".*", expr)
    return expr


@dataclass
class Selector:
    """One metric read by an expression, with its `label op "value"` matchers."""
    metric: str
    matchers: list = field(default_factory=list)  # [(label, op, value)]


@dataclass
class References:
    """Everything an expression needs from a scrape."""
    selectors: list = field(default_factory=list)
    grouping: set = field(default_factory=set)  # labels in by/without/on/ignoring/group_* lists and label_values


def tokenize(expr):
    pos, out = 0, []
    while pos < len(expr):
        m = TOKEN_RE.match(expr, pos)
        if not m:
            raise ValueError(f"cannot read PromQL at {expr[pos:pos + 30]!r}")
        pos = m.end()
        kind = m.lastgroup
        if kind not in ("ws", "comment"):
            out.append((kind, m.group()))
    return out


def unquote(s):
    return s[1:-1].replace('\\"', '"').replace("\\\\", "\\")


def read_matchers(tokens, i):
    """tokens[i] is '{': returns ([(label, op, value)], index after '}')."""
    matchers, i = [], i + 1
    while tokens[i][1] != "}":
        if tokens[i][1] == ",":
            i += 1
            continue
        label, op, value = tokens[i][1], tokens[i + 1][1], tokens[i + 2]
        if tokens[i][0] != "ident" or op not in ("=", "!=", "=~", "!~") or value[0] != "string":
            raise ValueError(f"bad label matcher near {label!r}")
        matchers.append((label, op, unquote(value[1])))
        i += 3
    return matchers, i + 1


def references(expr):
    """Metric selectors and grouping labels of a PromQL expression or a Grafana label_values() query."""
    refs = References()
    expr = expand_grafana(expr)
    # Grafana's label_values(selector, label) / label_values(label): a selector and a label it must carry.
    m = re.fullmatch(r"\s*label_values\(\s*(?:(.*?)\s*,\s*)?([a-zA-Z_][a-zA-Z0-9_]*)\s*\)\s*", expr, re.S)
    if m:
        refs.grouping.add(m.group(2))
        expr = m.group(1) or ""
    tokens = tokenize(expr)
    i = 0
    while i < len(tokens):
        kind, text = tokens[i]
        nxt = tokens[i + 1][1] if i + 1 < len(tokens) else None
        if kind == "ident" and text in GROUPING:
            i += 1
            if nxt == "(":
                i += 1
                while tokens[i][1] != ")":
                    if tokens[i][0] == "ident":
                        refs.grouping.add(tokens[i][1])
                    i += 1
                i += 1
            continue
        if kind == "ident" and nxt == "(":  # a function or an aggregation
            i += 1
            continue
        if kind == "ident" and text.lower() not in KEYWORDS:
            selector = Selector(text)
            i += 1
            if nxt == "{":
                selector.matchers, i = read_matchers(tokens, i)
            refs.selectors.append(selector)
            continue
        if text == "{":
            matchers, i = read_matchers(tokens, i)
            names = [v for label, op, v in matchers if label == "__name__" and op == "="]
            if not names:
                raise ValueError("a selector without a metric name cannot be checked")
            refs.selectors.append(Selector(names[0], [m for m in matchers if m[0] != "__name__"]))
            continue
        i += 1
    return refs


SAMPLE_RE = re.compile(r"^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})?\s+\S+")
LABEL_RE = re.compile(r'([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"')


@dataclass
class Scrape:
    """Series of a Prometheus text-format scrape: name -> {label name -> set of values}."""
    series: dict = field(default_factory=dict)
    types: dict = field(default_factory=dict)  # family name -> counter|gauge|histogram|summary|untyped

    @classmethod
    def parse(cls, text):
        scrape = cls()
        for line in text.splitlines():
            if line.startswith("# TYPE "):
                parts = line.split()
                if len(parts) >= 4:
                    scrape.types[parts[2]] = parts[3]
                continue
            if not line.strip() or line.startswith("#"):
                continue
            m = SAMPLE_RE.match(line)
            if not m:
                raise ValueError(f"not Prometheus text format: {line[:80]!r}")
            labels = scrape.series.setdefault(m.group(1), {})
            for name, value in LABEL_RE.findall(m.group(2) or ""):
                labels.setdefault(name, set()).add(value)
        return scrape

    def has(self, metric):
        return metric in self.series or metric in SYNTHETIC_METRICS

    def labels(self, metric):
        return self.series.get(metric, {})


def check_expression(expr, scrape, where):
    """Problems of one expression against a scrape: (errors, warnings), each a list of strings."""
    errors, warnings = [], []
    try:
        refs = references(expr)
    except (ValueError, IndexError) as err:
        return [f"{where}: cannot read expression ({err}): {expr}"], []
    if not refs.selectors:
        errors.append(f"{where}: no metric in expression: {expr}")
    known = set(TARGET_LABELS)
    for sel in refs.selectors:
        if not scrape.has(sel.metric):
            errors.append(f"{where}: metric {sel.metric} is not in the scrape")
            continue
        labels = scrape.labels(sel.metric)
        known |= set(labels)
        for label, op, value in sel.matchers:
            if label in TARGET_LABELS:
                continue
            if label not in labels:
                errors.append(f"{where}: {sel.metric} has no label {label!r} in the scrape")
            elif op == "=" and value not in labels[label]:
                warnings.append(f"{where}: {sel.metric}{{{label}=\"{value}\"}} has no sample in the scrape "
                                f"(seen: {', '.join(sorted(labels[label]))})")
    for label in sorted(refs.grouping - known):
        errors.append(f"{where}: label {label!r} is on none of the metrics it groups: {expr}")
    return errors, warnings
