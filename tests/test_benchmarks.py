"""benchmarks/bench_fit.py --csv and the committed results.csv the book plots.

Nothing here asserts a time: the tests check the file's shape and that every
ratio is the ratio of the two columns it summarises.
"""

import csv
import json
import platform
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import sklearn

import dtree

BENCHMARKS = Path(__file__).resolve().parent.parent / "benchmarks"
# The scikit-learn of the book's pins (requirements.txt), which the committed run used.
PINNED_SKLEARN = next(
    line.split("==")[1].split()[0]
    for line in (BENCHMARKS.parent / "requirements.txt").read_text(encoding="utf-8").splitlines()
    if line.startswith("scikit-learn=="))
COLUMNS = ["task", "criterion", "n_samples", "n_features", "max_depth",
           "dtree_fit_s", "sklearn_fit_s", "fit_ratio",
           "dtree_predict_s", "sklearn_predict_s", "predict_ratio",
           "dtree_peak_rss_mb", "sklearn_peak_rss_mb", "memory_ratio",
           "dtree_version", "sklearn_version", "numpy_version", "python_version", "machine"]
TASKS = {"gini": "classification", "entropy": "classification", "squared_error": "regression",
         "poisson": "regression", "absolute_error": "regression"}


def read(path):
    with open(path, newline="") as f:
        reader = csv.DictReader(f)
        return reader.fieldnames, list(reader)


def check_ratios(row):
    # the ratios are written to 4 significant digits: a relative error below 5e-4
    for ours, theirs, ratio in [("dtree_fit_s", "sklearn_fit_s", "fit_ratio"),
                                ("dtree_predict_s", "sklearn_predict_s", "predict_ratio")]:
        assert float(row[ours]) > 0 and float(row[theirs]) > 0
        assert float(row[ratio]) == pytest.approx(float(row[ours]) / float(row[theirs]), rel=1e-3)


def _benchmark_module(name):
    """Import a script of benchmarks/ (which import each other by name)."""
    import importlib

    sys.path.insert(0, str(BENCHMARKS))
    try:
        return importlib.import_module(name)
    finally:
        sys.path.remove(str(BENCHMARKS))


def run_bench(*args, cwd, script="bench_fit.py"):
    script = BENCHMARKS / script
    return subprocess.run([sys.executable, str(script), *args], cwd=cwd, capture_output=True,
                          text=True, check=True, timeout=300).stdout


def test_csv_option_writes_one_row_per_setting(tmp_path):
    out = run_bench("--sizes", "300", "--criteria", "gini", "squared_error",
                    "--depths", "3", "None", "--repeat", "1", "--no-memory", "--csv", "tiny.csv",
                    cwd=tmp_path)
    assert len(out.splitlines()) == 1 + 4  # the printed table is still there: header + 4 rows
    header, rows = read(tmp_path / "tiny.csv")
    assert header == COLUMNS
    settings = [(r["task"], r["criterion"], r["n_samples"], r["n_features"], r["max_depth"])
                for r in rows]
    assert settings == [("classification", "gini", "300", "20", "3"),
                        ("classification", "gini", "300", "20", "None"),
                        ("regression", "squared_error", "300", "20", "3"),
                        ("regression", "squared_error", "300", "20", "None")]
    for row in rows:
        check_ratios(row)
        assert row["dtree_peak_rss_mb"] == row["sklearn_peak_rss_mb"] == row["memory_ratio"] == ""
        versions = [row[f"{name}_version"] for name in ("dtree", "sklearn", "numpy", "python")]
        assert versions == [dtree.__version__, sklearn.__version__, np.__version__,
                            platform.python_version()]
        assert platform.machine() in row["machine"]
        assert not platform.node() or platform.node() not in row["machine"]  # no host name


def test_csv_append_keeps_one_header_and_checks_it(tmp_path):
    run_bench("--sizes", "200", "--criteria", "entropy", "--depths", "2", "--repeat", "1",
              "--no-memory", "--csv", "runs.csv", cwd=tmp_path)
    run_bench("--sizes", "250", "--criteria", "poisson", "--depths", "2", "--repeat", "1",
              "--csv", "runs.csv", "--append", cwd=tmp_path)
    header, rows = read(tmp_path / "runs.csv")
    assert header == COLUMNS
    assert [(r["criterion"], r["n_samples"]) for r in rows] == [("entropy", "200"),
                                                                ("poisson", "250")]
    memory = rows[1]  # measured: the ratio is dtree's peak over scikit-learn's, floored at 0.1 MiB
    ratio = float(memory["dtree_peak_rss_mb"]) / max(float(memory["sklearn_peak_rss_mb"]), 0.1)
    assert float(memory["memory_ratio"]) == pytest.approx(ratio, rel=1e-3)

    (tmp_path / "other.csv").write_text("a,b\n1,2\n")
    with pytest.raises(subprocess.CalledProcessError, match="exit status 1"):
        run_bench("--sizes", "200", "--criteria", "gini", "--depths", "2", "--repeat", "1",
                  "--no-memory", "--csv", "other.csv", "--append", cwd=tmp_path)
    assert (tmp_path / "other.csv").read_text() == "a,b\n1,2\n"


def expected_settings():
    """The grid of the committed run (benchmarks/README.md): the input of the book's figure."""
    settings = {(c, n, d) for c in ("gini", "entropy", "squared_error", "poisson")
                for n in (1_000, 10_000, 100_000) for d in ("None", "10")}
    settings |= {("absolute_error", n, d) for n in (1_000, 10_000) for d in ("None", "10")}
    settings |= {(c, 1_000_000, "10") for c in ("gini", "squared_error")}
    return settings


def test_committed_results_cover_the_grid_once():
    header, rows = read(BENCHMARKS / "results.csv")
    assert header == COLUMNS
    settings = [(r["criterion"], int(r["n_samples"]), r["max_depth"]) for r in rows]
    assert len(settings) == len(set(settings)), "a setting appears twice"
    assert set(settings) == expected_settings()
    for row in rows:
        assert row["task"] == TASKS[row["criterion"]] and row["n_features"] == "20"
        check_ratios(row)
        ratio = float(row["dtree_peak_rss_mb"]) / max(float(row["sklearn_peak_rss_mb"]), 0.1)
        assert float(row["memory_ratio"]) == pytest.approx(ratio, rel=1e-3)
        assert row["sklearn_version"] == PINNED_SKLEARN  # measured against the pinned one


def test_real_data_benchmark_writes_its_rows(tmp_path):
    out = run_bench("--datasets", "iris", "diabetes", "--repeat", "1", "--no-memory",
                    "--csv", "real.csv", cwd=tmp_path, script="bench_real.py")
    header, rows = read(tmp_path / "real.csv")
    assert header[:7] == ["dataset", "task", "criterion", "n_samples", "n_features",
                          "n_classes", "max_depth"]
    settings = [(r["dataset"], r["criterion"], r["max_depth"]) for r in rows]
    # every criterion of each task, both depths; absolute error on small data
    assert ("iris", "gini", "None") in settings and ("iris", "entropy", "10") in settings
    assert {c for d, c, _ in settings if d == "diabetes"} >= {"squared_error", "poisson",
                                                              "absolute_error"}
    assert len(out.splitlines()) == 1 + len(rows)
    for row in rows:
        check_ratios(row)
        assert row["n_samples"] == {"iris": "150", "diabetes": "442"}[row["dataset"]]
        assert row["n_classes"] == {"iris": "3", "diabetes": ""}[row["dataset"]]


def test_real_data_benchmark_times_id3_and_c45_against_cart(tmp_path):
    run_bench("--multiway", "--multiway-samples", "1500", "--repeat", "1", "--csv", "mw.csv",
              cwd=tmp_path, script="bench_real.py")
    header, rows = read(tmp_path / "mw.csv")
    assert [r["estimator"] for r in rows] == ["ID3", "C4.5"]
    for row in rows:
        assert float(row["cart_ratio"]) == pytest.approx(
            float(row["fit_s"]) / float(row["cart_fit_s"]), rel=1e-3)
        assert int(row["n_leaves"]) >= 2 and row["n_samples"] == "1500"


@pytest.mark.parametrize("name", ["results_real.csv", "results_real_earlier_engine.csv"])
def test_committed_real_data_runs_cover_the_grid(name):
    """results_real.csv (and the earlier engine's run, the baseline the current one is
    compared with): one row per data set, criterion and depth of bench_real.py's grid."""
    bench_real = _benchmark_module("bench_real")
    header, rows = read(BENCHMARKS / name)
    assert header == bench_real.CSV_COLUMNS
    sizes = {r["dataset"]: int(r["n_samples"]) for r in rows}
    expected = [(name, criterion, str(depth)) for name in bench_real.DATASETS
                for criterion in bench_real.criteria(name, "classification" if name in {
                    r["dataset"] for r in rows if r["task"] == "classification"}
                    else "regression", sizes[name])
                for depth in bench_real.depths(name)]
    assert [(r["dataset"], r["criterion"], r["max_depth"]) for r in rows] == expected
    for row in rows:
        check_ratios(row)
        assert row["sklearn_version"] == PINNED_SKLEARN
        assert (row["memory_ratio"] != "") == (int(row["n_samples"]) >= bench_real.MEMORY_MIN_N)
    header, rows = read(BENCHMARKS / "results_multiway.csv")
    assert header == bench_real.MULTIWAY_COLUMNS
    assert [(r["estimator"], r["n_samples"], r["nominal_values"]) for r in rows] == [
        ("ID3", "100000", "1000"), ("C4.5", "100000", "1000")]


def test_sparse_benchmark_writes_its_rows(tmp_path):
    out = run_bench("--size", "300", "--repeat", "1", "--csv", "sparse.csv", cwd=tmp_path,
                    script="bench_sparse.py")
    header, rows = read(tmp_path / "sparse.csv")
    assert [(r["criterion"], r["max_depth"]) for r in rows] == [
        (c, d) for c in ("gini", "entropy", "squared_error") for d in ("", "10")]
    assert len(out.splitlines()) == 1 + len(rows)
    for row in rows:
        check_ratios(row)
        assert row["n_samples"] == row["n_features"] == "300"


def test_committed_sparse_run_covers_the_grid():
    """results_sparse.csv: issue 23's bag-of-words shape, every criterion and depth."""
    bench_sparse = _benchmark_module("bench_sparse")
    header, rows = read(BENCHMARKS / "results_sparse.csv")
    assert header == bench_sparse.CSV_COLUMNS
    assert [(r["criterion"], r["max_depth"]) for r in rows] == [
        (c, "" if d is None else str(d)) for names in bench_sparse.CRITERIA.values()
        for c in names for d in bench_sparse.DEPTHS]
    for row in rows:
        check_ratios(row)
        assert (row["n_samples"], row["n_features"], row["density"]) == ("10000", "10000", "0.005")
        assert row["sklearn_version"] == PINNED_SKLEARN


def test_multioutput_benchmark_writes_its_rows(tmp_path):
    bench_multioutput = _benchmark_module("bench_multioutput")
    out = run_bench("--sizes", "300", "--repeat", "1", "--csv", "mo.csv", cwd=tmp_path,
                    script="bench_multioutput.py")
    header, rows = read(tmp_path / "mo.csv")
    assert header == bench_multioutput.CSV_COLUMNS
    assert [(r["dataset"], r["criterion"], int(r["n_samples"]), r["max_depth"]) for r in rows] == [
        (name, c, n, "" if d is None else str(d))
        for name, c, n, d in bench_multioutput.grid([300])]
    lines = out.splitlines()
    assert len(lines) >= 2 + len(rows)  # header, one line per row, then the trees' comparison
    for row in rows:
        check_ratios(row)
        assert int(row["dtree_nodes"]) >= 1 and int(row["sklearn_nodes"]) >= 1
        assert row["n_outputs"] == {"regression": "3", "classification": "3", "multilabel": "5",
                                    "linnerud": "3"}[row["dataset"]]
    classes = {r["n_classes"] for r in rows if r["dataset"] == "classification"}
    assert classes == {"2 5 10"}
    # every place where the two trees part is a tie between equally good splits
    assert all(line.split(": ")[1].split()[0] == line.split()[-4]
               for line in lines if "places" in line), out


def test_committed_multioutput_run_covers_the_grid():
    """results_multioutput.csv: every data set, criterion and depth at n = 10^4."""
    bench_multioutput = _benchmark_module("bench_multioutput")
    header, rows = read(BENCHMARKS / "results_multioutput.csv")
    assert header == bench_multioutput.CSV_COLUMNS
    assert [(r["dataset"], r["criterion"], int(r["n_samples"]), r["max_depth"]) for r in rows] == [
        (name, c, n, "" if d is None else str(d))
        for name, c, n, d in bench_multioutput.grid(bench_multioutput.SIZES)]
    for row in rows:
        check_ratios(row)
        assert row["sklearn_version"] == PINNED_SKLEARN


@pytest.mark.book   # nbclient and PyYAML: the book's environment (not test-compat's)
def test_chapter_benchmark_writes_a_row_per_notebook(tmp_path):
    """bench_chapters.py: a notebook's code cells, its Run All time and its slowest cell."""
    notebook = tmp_path / "two_cells.ipynb"
    notebook.write_text(json.dumps({
        "cells": [{"cell_type": "markdown", "id": "text", "metadata": {}, "source": "# A"},
                  {"cell_type": "code", "id": "quick", "metadata": {}, "outputs": [],
                   "execution_count": None, "source": "x = 1"},
                  {"cell_type": "code", "id": "slow", "metadata": {}, "outputs": [],
                   "execution_count": None, "source": "import time\ntime.sleep(0.5)"}],
        "metadata": {"kernelspec": {"name": "python3", "display_name": "Python 3",
                                    "language": "python"}},
        "nbformat": 4, "nbformat_minor": 5}), encoding="utf-8")
    out = run_bench(str(notebook), "--csv", "chapters.csv", cwd=tmp_path,
                    script="bench_chapters.py")
    header, rows = read(tmp_path / "chapters.csv")
    assert header == _benchmark_module("bench_chapters").CSV_COLUMNS
    (row,) = rows
    assert (row["code_cells"], row["slowest_cell"]) == ("2", "slow")
    assert 0.5 <= float(row["slowest_cell_s"]) <= float(row["run_all_s"])
    assert len(out.splitlines()) == 2


@pytest.mark.book
def test_committed_chapter_run_covers_the_book():
    """results_chapters.csv: every notebook of _toc.yml, once, in its order."""
    bench_chapters = _benchmark_module("bench_chapters")
    header, rows = read(BENCHMARKS / "results_chapters.csv")
    assert header == bench_chapters.CSV_COLUMNS
    assert [r["notebook"] for r in rows] == bench_chapters.toc_notebooks()
    for row in rows:
        assert float(row["slowest_cell_s"]) <= float(row["run_all_s"])
