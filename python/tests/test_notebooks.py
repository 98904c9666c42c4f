"""The notebooks of docs/notebooks run top to bottom in a fresh kernel, and every cell that ends
in a figure shows it as an image, without ``%matplotlib inline``."""

from __future__ import annotations

import base64
from pathlib import Path

import pytest

nbformat = pytest.importorskip("nbformat")
nbclient = pytest.importorskip("nbclient")
pytest.importorskip("ipykernel")

ROOT = Path(__file__).resolve().parents[2]
NOTEBOOKS = sorted((ROOT / "docs" / "notebooks").glob("*.ipynb"))
PNG = b"\x89PNG\r\n\x1a\n"


def test_the_notebooks_are_there():
    assert {p.stem for p in NOTEBOOKS} >= {"first-experiment", "sweep", "python-controller"}


def _ends_in_a_figure(source: str) -> bool:
    last = source.strip().splitlines()[-1]
    return ".plot(" in last or last == "fig"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def test_a_notebook_runs_and_shows_its_figures_as_images(path, tmp_path):
    book = nbformat.read(path, as_version=4)
    code = [c for c in book.cells if c.cell_type == "code"]
    assert not any("%matplotlib" in c.source for c in code), "figures must show without it"
    # Run where a reader would: beside the notebook (it finds the repository from there).
    client = nbclient.NotebookClient(
        book, timeout=120, kernel_name="python3", resources={"metadata": {"path": str(path.parent)}}
    )
    client.execute()
    figure_cells = [c for c in code if _ends_in_a_figure(c.source)]
    assert figure_cells, "each notebook shows at least one figure"
    for cell in code:
        errors = [o for o in cell.outputs if o.output_type == "error"]
        assert not errors, f"{path.name}: {errors[0].ename}: {errors[0].evalue}"
        texts = [o.get("text", "") for o in cell.outputs if o.output_type == "stream"]
        assert not any("Traceback" in t for t in texts), texts
    for cell in figure_cells:
        images = [
            base64.b64decode(o.data["image/png"])
            for o in cell.outputs
            if o.output_type in ("execute_result", "display_data") and "image/png" in o.data
        ]
        assert len(images) == 1, f"{path.name}: one image for {cell.source.splitlines()[-1]!r}"
        assert images[0].startswith(PNG) and len(images[0]) > 10_000
