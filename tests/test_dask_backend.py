"""`jpdsim run --scheduler` (``sim.run.dask_backend``): a scheduler that cannot be reached is
one line before any folder is made; the run folder goes to the workers as an absolute path;
the programs a shard starts on a Dask worker end with it."""

import sys
import warnings

import pytest

from sim.cli import main as cli
from sim.run import dask_backend
from tests import faults
from tests.test_katago import config, fake_command, run
from tests.test_referee import gone, pids

distributed = pytest.importorskip("distributed")


@pytest.fixture
def model(tmp_path):
    """A network file (the fake KataGo only checks that it is there)."""
    path = tmp_path / "net.bin.gz"
    path.write_bytes(b"not a network")
    return path


@pytest.fixture
def cluster():
    """An in-process Dask cluster: one worker running two tasks at a time in threads."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        with distributed.LocalCluster(
            n_workers=1, threads_per_worker=2, processes=False, dashboard_address=None
        ) as c:
            yield c.scheduler_address


@pytest.mark.parametrize(
    "address, said",
    [
        ("tcp://127.0.0.1:1", "--scheduler tcp://127.0.0.1:1: cannot connect ("),
        ("not a url", "--scheduler not a url: cannot connect ("),
        (None, "--scheduler needs Dask's distributed (pip install 'jpdsim[dask]')"),
    ],
)
def test_a_scheduler_out_of_reach_is_one_line_before_any_folder(
    address, said, config_file, tmp_path, capsys, monkeypatch
):
    """No scheduler at the address, an address that is not one, or no ``distributed``
    installed: one line, exit 2, no run folder (``run`` and ``report`` connect through
    ``dask_backend.connect``)."""
    monkeypatch.setattr(dask_backend, "CONNECT_TIMEOUT", 1.0)
    if address is None:
        monkeypatch.setitem(sys.modules, "distributed", None)  # as if not installed
    out = tmp_path / "run"
    argv = ["run", str(config_file), "--out", str(out), "--no-progress"]
    assert cli([*argv, "--scheduler", address or "tcp://127.0.0.1:8786"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and said in err, err
    assert not out.exists()


def test_the_run_folder_goes_to_the_workers_as_an_absolute_path(
    config_file, cluster, tmp_path, monkeypatch
):
    """A relative --out reaches the shard tasks as an absolute path (a Dask worker may run in
    another folder), and the run is the same as a local one."""
    sent = []
    play_shard = dask_backend.play_shard

    def recording(cfg, run_dir, index):
        sent.append(run_dir)
        return play_shard(cfg, run_dir, index)

    monkeypatch.setattr(dask_backend, "play_shard", recording)
    monkeypatch.chdir(tmp_path)
    argv = ["run", str(config_file), "--no-progress", "--workers", "1"]
    assert cli([*argv, "--out", "local"]) == 0
    assert cli([*argv, "--out", "dask", "--scheduler", cluster]) == 0
    assert sent and all(d == tmp_path / "dask" for d in sent)
    assert faults.digest(tmp_path / "dask") == faults.digest(tmp_path / "local")


@pytest.mark.slow
def test_no_katago_outlives_its_run_on_a_dask_worker(model, cluster, tmp_path):
    """A KataGo that ignores the end of its input and SIGTERM, played on a Dask worker that
    runs two shards at a time: each shard's own process, ended with its shard (none is left
    in the worker after the run), and the rows of a local run."""
    log = tmp_path / "pids"
    c = config(tmp_path / "c.toml", model, fake_command("play", "--pids", log, "--stubborn"))
    assert run(c, tmp_path / "local", "--workers", "1") == 0
    log.unlink()
    assert run(c, tmp_path / "dask", "--scheduler", cluster) == 0
    assert len(pids(log)) == 4  # the start-up check's and one for each of the 3 shards
    assert all(gone(pid) for pid in pids(log))
    assert faults.digest(tmp_path / "dask") == faults.digest(tmp_path / "local")
