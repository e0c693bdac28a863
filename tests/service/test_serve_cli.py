"""``bgrl serve`` start-up errors: a bad --host or --port, or a port already taken, is one
clear line and exit status 2, before uvicorn starts (uvicorn's own failure is exit 3)."""

from __future__ import annotations

import socket

import pytest

pytest.importorskip("fastapi")
uvicorn = pytest.importorskip("uvicorn")

from bgrl.cli import main  # noqa: E402


@pytest.fixture(autouse=True)
def _no_uvicorn(monkeypatch):
    def refuse(*args, **kwargs):
        raise AssertionError("uvicorn.run reached: the bad flag was not caught before start-up")

    monkeypatch.setattr(uvicorn, "run", refuse)


def _one_error_line(capsys) -> str:
    lines = [ln for ln in capsys.readouterr().err.splitlines() if ln.strip()]
    assert len(lines) == 1, lines
    assert lines[0].startswith("bgrl: error: ")
    return lines[0]


@pytest.mark.parametrize("host", ["999.1.1.1", "1.2.3.4.5", "no such host!", " "])
def test_bad_host_is_one_line_exit_2(host, capsys):
    assert main(["serve", "--host", host, "--port", "8080"]) == 2
    line = _one_error_line(capsys)
    assert "--host" in line and ("address" in line or "empty" in line)


def test_host_not_on_this_machine(capsys):
    assert main(["serve", "--host", "192.0.2.1"]) == 2  # TEST-NET-1 (RFC 5737): never local
    assert "not an address of this machine" in _one_error_line(capsys)


def test_port_in_use_is_one_line_exit_2(capsys):
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen(1)
        port = taken.getsockname()[1]
        assert main(["serve", "--host", "127.0.0.1", "--port", str(port)]) == 2
    line = _one_error_line(capsys)
    assert f"port {port} is already in use" in line and "--port" in line


@pytest.mark.parametrize("port", ["70000", "-1", "65536"])
def test_port_out_of_range(port, capsys):
    assert main(["serve", "--port", port]) == 2
    assert "--port must be 1..65535" in _one_error_line(capsys)


@pytest.mark.parametrize("port", ["abc", "80.5", ""])
def test_port_not_a_number(port, capsys):
    with pytest.raises(SystemExit) as ei:
        main(["serve", f"--port={port}"])
    assert ei.value.code == 2
    err = capsys.readouterr().err
    assert "argument --port: expected a TCP port number 1..65535" in err and "Traceback" not in err


@pytest.mark.parametrize("value", ["0", "-2", "nan", "inf"])
def test_body_timeout_must_be_positive(value, capsys):
    assert main(["serve", "--body-timeout", value]) == 2
    assert "--body-timeout must be > 0" in _one_error_line(capsys)


def _served(monkeypatch, tmp_path, *flags) -> dict:
    """The keyword arguments (and the app) `bgrl serve` hands to uvicorn.run."""
    seen = {}

    def run(app, **kw):
        seen.update(kw, app=app)
    monkeypatch.setattr(uvicorn, "run", run)
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    assert main(["serve", "--port", str(port), "--store", f"sqlite:///{tmp_path / 'g.db'}", *flags]) == 0
    return seen


def test_forwarded_headers_are_believed_only_from_named_proxies(monkeypatch, tmp_path):
    seen = _served(monkeypatch, tmp_path)
    assert seen["proxy_headers"] is False and "forwarded_allow_ips" not in seen  # a client cannot choose its address
    seen = _served(monkeypatch, tmp_path, "--forwarded-allow-ips", "10.0.0.1, 10.1.0.0/16")
    assert seen["proxy_headers"] is True and seen["forwarded_allow_ips"] == "10.0.0.1,10.1.0.0/16"
    assert seen["app"].state.settings.forwarded_allow_ips == "10.0.0.1,10.1.0.0/16"


def test_review_workers_flag(monkeypatch, tmp_path):
    cfg = _served(monkeypatch, tmp_path, "--review-workers", "3")["app"].state.settings
    assert cfg.review_workers == 3 and cfg.max_reviews == 24


@pytest.mark.parametrize("flags, expected", [
    (["--forwarded-allow-ips", "proxy.example"], "--forwarded-allow-ips: 'proxy.example' is not an IP address"),
    (["--review-workers", "0"], "--review-workers must be >= 1"),
])
def test_bad_proxy_and_review_flags(flags, expected, capsys):
    assert main(["serve", *flags]) == 2
    assert expected in _one_error_line(capsys)


def test_max_connections_bounds_uvicorn_and_is_checked(monkeypatch, tmp_path, capsys):
    """--max-connections is uvicorn's limit_concurrency (stalled clients cannot hold memory
    without bound); default 1,000; below 1 is a one-line error, exit 2."""
    assert _served(monkeypatch, tmp_path)["limit_concurrency"] == 1000
    assert _served(monkeypatch, tmp_path, "--max-connections", "64")["limit_concurrency"] == 64
    assert main(["serve", "--max-connections", "0", "--store", f"sqlite:///{tmp_path / 'g.db'}"]) == 2
    assert "--max-connections must be >= 1" in capsys.readouterr().err
