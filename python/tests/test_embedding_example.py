"""The embedding example (examples/embed-python): Sluice's node2vec walks,
gensim's Word2Vec, and department classification on email-Eu-core. Skipped
where Debian's python3-gensim is not installed."""

import importlib.util
import os

import pytest

SOURCE = os.environ.get("SLUICE_SOURCE_DIR",
                        os.path.join(os.path.dirname(__file__), "..", ".."))


# The example's graph is bundled (examples/data, as the main job's).
GRAPH = os.path.join(SOURCE, "examples", "data", "email-Eu-core.txt.gz")


def test_node2vec_embedding_predicts_departments(capsys):
    pytest.importorskip("gensim")
    assert os.path.exists(GRAPH), GRAPH
    path = os.path.join(SOURCE, "examples", "embed-python",
                        "node2vec_gensim.py")
    spec = importlib.util.spec_from_file_location("node2vec_gensim", path)
    example = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(example)
    accuracy, baseline = example.main(["--threads", "2", "--epochs", "2",
                                       "--dim", "32"])
    out = capsys.readouterr().out
    assert "walks: 9860 x 40" in out  # 986 vertices, 10 walks each
    # Departments are learnable from the graph: far above the majority
    # class (0.12); the full settings reach 0.74 (README.md there).
    assert baseline < 0.2
    assert accuracy > 0.5
