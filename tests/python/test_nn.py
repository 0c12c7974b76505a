"""clkit.nn.MLP: the command's results on the same rows and seed, the
estimator's shape, model files, bad input."""
import pathlib

import numpy as np
import pytest

import clkit

LETTERS = (pathlib.Path(__file__).resolve().parents[2] / "examples" / "data"
           / "letter-recognition.data")
ROWS, TRAIN = 260, 200


@pytest.fixture(scope="module")
def letters(tmp_path_factory):
    """The first rows of the UCI letters: a CSV file for the command, and
    the same rows as arrays (classes A .. Z numbered in byte order, as the
    command numbers them)."""
    lines = LETTERS.read_text().splitlines()[:ROWS]
    path = tmp_path_factory.mktemp("letters") / "letters.csv"
    path.write_text("\n".join(lines) + "\n")
    raw = np.array([line.split(",") for line in lines])
    names, y = np.unique(raw[:, 0], return_inverse=True)
    X = raw[:, 1:].astype(np.float64)
    # The command's output layer has a unit a class of the whole file.
    assert y[:TRAIN].max() == len(names) - 1
    return path, X, y, names


def test_same_result_as_the_command(device, cli, letters):
    """The same code path as the command: equal on every device."""
    path, X, y, names = letters
    model = clkit.nn.MLP(layers=(24,), epochs=3, batch=32, lr=0.01,
                         device=device, seed=4)
    assert model.fit(X[:TRAIN], y[:TRAIN]) is model
    expected = cli("run", "nn", "--train", str(path), "--split", str(TRAIN),
                   "--layers", f"16,24,{len(names)}", "--epochs", "3",
                   "--batch", "32", "--lr", "0.01", "--device", device,
                   "--seed", "4")
    found = model.evaluate(X[TRAIN:], y[TRAIN:])
    assert found["accuracy"] == expected["test_accuracy"]
    assert found["loss"] == expected["test_loss"]
    assert model.score(X[TRAIN:], y[TRAIN:]) == expected["test_accuracy"]
    assert len(model.loss_curve_) == model.n_iter_ == 3
    assert model.history_[-1]["epoch"] == 3


def test_predict_shape_and_classes(letters):
    _, X, y, names = letters
    model = clkit.nn.MLP(layers=(16, 8), epochs=2, device="ref").fit(
        X[:TRAIN].astype(np.float32), y[:TRAIN])
    assert model.n_features_in_ == 16
    assert model.classes_.tolist() == list(range(len(names)))
    predicted = model.predict(X[TRAIN:])
    assert predicted.shape == (ROWS - TRAIN,)
    assert predicted.dtype == np.int64
    assert set(predicted) <= set(model.classes_)
    assert np.mean(predicted == y[TRAIN:]) == model.score(X[TRAIN:],
                                                           y[TRAIN:])
    assert [w.shape for w in model.coefs_] == [(16, 16), (16, 8), (8, 26)]
    assert [b.shape for b in model.intercepts_] == [(16,), (8,), (26,)]


def test_float32_and_float64_agree(letters):
    _, X, y, _ = letters
    first = clkit.nn.MLP(layers=(8,), epochs=1, device="ref")
    second = clkit.nn.MLP(layers=(8,), epochs=1, device="ref")
    first.fit(X[:TRAIN], y[:TRAIN])
    second.fit(np.asfortranarray(X[:TRAIN], dtype=np.float32), y[:TRAIN])
    assert first.loss_curve_ == second.loss_curve_


def test_save_and_load_predict_alike(tmp_path, device, letters):
    _, X, y, _ = letters
    model = clkit.nn.MLP(layers=(12,), epochs=2, act="tanh", device=device,
                         seed=2).fit(X[:TRAIN], y[:TRAIN])
    path = tmp_path / "model.ckn"
    model.save(path)
    loaded = clkit.nn.MLP.load(path, device=device)
    assert loaded.layers == (12,) and loaded.act == "tanh"
    assert loaded.n_features_in_ == 16
    assert loaded.predict(X[TRAIN:]).tolist() == \
        model.predict(X[TRAIN:]).tolist()
    assert loaded.score(X, y) == model.score(X, y)


def test_the_command_reads_the_model(tmp_path, cli, letters):
    _, X, y, _ = letters
    model = clkit.nn.MLP(layers=(12,), epochs=2, device="ref").fit(
        X[:TRAIN], y[:TRAIN])
    model.save(tmp_path / "model.ckn")
    rows = tmp_path / "rows.csv"
    np.savetxt(rows, X, fmt="%g", delimiter=",")
    out = tmp_path / "classes.txt"
    cli("run", "nn", "--load", str(tmp_path / "model.ckn"), "--predict",
        str(rows), "--out", str(out), "--device", "ref")
    predicted = model.predict(X)
    assert out.read_text().split() == [str(k) for k in predicted]


def test_params_round_trip():
    model = clkit.nn.MLP(layers=(5,), epochs=4, seed=7, optimizer="sgd",
                         momentum=0.5)
    params = model.get_params()
    assert params == dict(layers=(5,), device=None, seed=7, epochs=4,
                          batch=None, lr=None, momentum=0.5, optimizer="sgd")
    copy = type(model)(**params)
    assert copy.get_params() == params
    assert copy.set_params(lr=0.1, weight_decay=0.01) is copy
    assert copy.get_params()["weight_decay"] == 0.01
    assert repr(clkit.nn.MLP(layers=(3,))) == "MLP(layers=(3,))"


def test_sklearn_clone_and_cross_val(letters):
    sklearn = pytest.importorskip("sklearn")
    from sklearn.base import clone
    from sklearn.model_selection import cross_val_score
    _, X, y, _ = letters
    model = clkit.nn.MLP(layers=(8,), epochs=1, device="ref", act="tanh")
    assert clone(model).get_params() == model.get_params()
    assert len(cross_val_score(model, X, y, cv=2)) == 2
    assert sklearn


@pytest.mark.parametrize("X, y, message", [
    (np.zeros((4, 2)), [0, 1, 0], "X has 4 rows but y has 3"),
    (np.zeros((3, 2)), [0, -1, 1], "negative label -1"),
    (np.zeros((3, 2)), [0, 0.5, 1], "whole class numbers"),
    (np.zeros((3, 2)), ["a", "b", "a"], "whole class numbers"),
    (np.array([[0, 1], [np.nan, 0], [1, 1]]), [0, 1, 0], "NaN"),
    (np.zeros(3), [0, 1, 0], "2-dimensional"),
    (np.zeros((3, 2)), [[0], [1], [0]], "1-dimensional"),
    (np.zeros((0, 2)), [], "no rows"),
    (np.zeros((3, 2)), [0, 70000, 1], r"y holds class 70000; clkit's "
                                      r"networks tell at most 65536 classes"),
    (np.zeros((3, 0)), [0, 1, 0], r"X has no features \(shape \(3, 0\)\)"),
    (np.zeros((3, 2))[:, :0], [0, 1, 0], "X has no features"),
])
def test_bad_input_is_refused(X, y, message):
    with pytest.raises(ValueError, match=message):
        clkit.nn.MLP(device="ref").fit(X, y)


def test_whole_float_labels_are_taken():
    X = np.array([[0.0, 0], [0, 1], [1, 0], [1, 1]])
    model = clkit.nn.MLP(layers=(4,), epochs=1, device="ref")
    assert model.fit(X, np.array([0.0, 1, 1, 0])).classes_.tolist() == [0, 1]


def test_bad_options_and_use():
    X, y = np.zeros((4, 2)), [0, 1, 1, 0]
    with pytest.raises(TypeError, match="unexpected keyword argument"):
        clkit.nn.MLP(nonsense=1)
    with pytest.raises(clkit.ArgumentError, match="--train does not"):
        clkit.nn.MLP(train="x.csv", device="ref").fit(X, y)
    with pytest.raises(TypeError, match="hidden widths"):
        clkit.nn.MLP(layers="wide", device="ref").fit(X, y)
    with pytest.raises(clkit.ArgumentError, match="--lr"):
        clkit.nn.MLP(lr=-1, device="ref").fit(X, y)
    with pytest.raises(clkit.ArgumentError, match="--optimizer sgd"):
        clkit.nn.MLP(momentum=0.5, device="ref").fit(X, y)
    for widths in ((0,), (-4,), (2**40,), (8,) * 16):
        with pytest.raises(ValueError, match="MLP: layers holds") as error:
            clkit.nn.MLP(layers=widths, device="ref").fit(X, y)
        assert "--" not in str(error.value)
    with pytest.raises(TypeError, match="whole widths"):
        clkit.nn.MLP(layers=(True,), device="ref").fit(X, y)
    for seed in (-1, 2**64):
        with pytest.raises(ValueError, match=r"seed .* 2\^64 - 1"):
            clkit.nn.MLP(layers=(4,), seed=seed, device="ref").fit(X, y)
    with pytest.raises(AttributeError, match="not fitted"):
        clkit.nn.MLP().predict(X)
    model = clkit.nn.MLP(layers=(4,), epochs=1, device="ref").fit(X, y)
    with pytest.raises(ValueError, match="the network takes 2"):
        model.predict(np.zeros((2, 3)))
    with pytest.raises(ValueError, match="has 2 classes"):
        model.score(X, [0, 1, 2, 0])
    with pytest.raises(clkit.Error, match="missing.ckn"):
        clkit.nn.MLP.load("missing.ckn", device="ref")
