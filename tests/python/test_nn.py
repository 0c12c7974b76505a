"""clkit.nn.MLP: the command's results on the same rows and seed,
training that converges, the estimator's shape and scikit-learn's checks,
model files (safetensors too), bad input."""
import hashlib
import json
import pathlib
import pickle
import warnings
from fractions import Fraction

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


def test_defaults_converge_as_the_command(device, cli, letters):
    """With the defaults both stop where the loss stops falling: the same
    epochs and the same test accuracy."""
    path, X, y, names = letters
    model = clkit.nn.MLP(layers=(24,), lr=0.01, tol=0.01, device=device,
                         seed=4).fit(X[:TRAIN], y[:TRAIN])
    expected = cli("run", "nn", "--train", str(path), "--split", str(TRAIN),
                   "--layers", f"16,24,{len(names)}", "--lr", "0.01",
                   "--tol", "0.01", "--device", device, "--seed", "4")
    assert model.stopped_by_ == "patience"
    assert model.n_iter_ == expected["epochs"] < 200
    assert expected["stopped_early"] == 1
    assert model.score(X[TRAIN:], y[TRAIN:]) == expected["test_accuracy"]


def test_validation_and_early_stopping_as_the_command(cli, letters):
    """val holds out the rows --val holds out; patience stops on their
    loss, keeping the best epoch's weights."""
    path, X, y, names = letters
    model = clkit.nn.MLP(layers=(24,), lr=0.02, val=0.25, patience=2,
                         device="ref", seed=4).fit(X[:TRAIN], y[:TRAIN])
    expected = cli("run", "nn", "--train", str(path), "--split", str(TRAIN),
                   "--layers", f"16,24,{len(names)}", "--lr", "0.02",
                   "--val", "0.25", "--patience", "2", "--device", "ref",
                   "--seed", "4")
    assert expected["validation_rows"] == 50
    assert model.stopped_by_ == "patience"
    assert model.n_iter_ == expected["epochs"]
    assert model.best_epoch_ == expected["best_epoch"] < model.n_iter_
    losses = [row["validation_loss"] for row in model.history_]
    assert min(losses) == losses[model.best_epoch_ - 1]
    assert model.score(X[TRAIN:], y[TRAIN:]) == expected["test_accuracy"]
    with pytest.raises(clkit.ArgumentError,
                       match=r"val=0.01 of the 20 rows of X leaves no row"):
        clkit.nn.MLP(val=0.01, device="ref").fit(X[:20], y[:20] % 2)


def test_a_threshold_is_learned_with_the_defaults():
    """4-16-2 on 500 rows of a one-feature threshold: the default
    training runs until the loss stops falling, not for a fixed few
    epochs."""
    rng = np.random.default_rng(1)
    X = rng.normal(size=(600, 4))
    y = (X[:, 0] > 0.3).astype(int)
    model = clkit.nn.MLP(layers=(16,), device="ref", seed=1)
    assert model.fit(X[:500], y[:500]).score(X[500:], y[500:]) >= 0.97
    assert model.n_iter_ > 50
    short = clkit.nn.MLP(layers=(16,), epochs=10, device="ref", seed=1)
    assert short.fit(X[:500], y[:500]).n_iter_ == 10
    assert short.score(X[500:], y[500:]) < 0.9
    loose = clkit.nn.MLP(layers=(16,), tol=0.01, patience=3, device="ref",
                         seed=1).fit(X[:500], y[:500])
    assert loose.stopped_by_ == "patience" and loose.n_iter_ < 50
    drops = -np.diff(loose.loss_curve_[-4:])
    assert (drops <= 0.01).all()


def test_predict_proba(device, letters):
    _, X, y, _ = letters
    for loss in ("ce", "mse"):
        model = clkit.nn.MLP(layers=(12,), epochs=3, loss=loss,
                             device=device).fit(X[:TRAIN], y[:TRAIN])
        probabilities = model.predict_proba(X)
        assert probabilities.shape == (ROWS, 26)
        assert probabilities.dtype == np.float64
        assert np.allclose(probabilities.sum(axis=1), 1, rtol=0, atol=1e-12)
        assert (probabilities >= 0).all()
        assert np.array_equal(model.classes_[probabilities.argmax(axis=1)],
                              model.predict(X))
        assert model.predict_proba(X[:0]).shape == (0, 26)


def test_labels_of_any_kind(tmp_path, cli):
    rng = np.random.default_rng(3)
    X = rng.normal(size=(60, 3))
    kinds = np.array(["cat", "dog", "emu"])
    y = kinds[(X[:, 0] > 0).astype(int) + (X[:, 1] > 0.5)]
    model = clkit.nn.MLP(layers=(8,), epochs=30, lr=0.01, device="ref")
    model.fit(X, y)
    assert model.classes_.tolist() == ["cat", "dog", "emu"]
    assert set(model.predict(X)) <= set(kinds)
    assert model.score(X, y) == np.mean(model.predict(X) == y)
    path = tmp_path / "animals.ckn"
    model.save(path)
    loaded = clkit.nn.MLP.load(path, device="ref")
    assert loaded.classes_.tolist() == ["cat", "dog", "emu"]
    assert np.array_equal(loaded.predict(X), model.predict(X))
    rows = tmp_path / "rows.csv"
    np.savetxt(rows, X, fmt="%.9g", delimiter=",")
    out = tmp_path / "classes.txt"
    cli("run", "nn", "--load", str(path), "--predict", str(rows), "--out",
        str(out), "--device", "ref")
    assert out.read_text().split() == model.predict(X).tolist()
    signs = clkit.nn.MLP(layers=(4,), epochs=2, device="ref").fit(
        X, np.where(X[:, 0] > 0, 1, -1))
    assert signs.classes_.tolist() == [-1, 1]
    signs.save(path)
    assert clkit.nn.MLP.load(path, device="ref").classes_.tolist() == [-1, 1]
    with pytest.raises(ValueError, match="'bird', which is not one of"):
        model.evaluate(X[:2], ["cat", "bird"])
    assert model.score(X[:2], ["bird", "bird"]) == 0


# Labels of each kind scikit-learn's classifiers take, three classes of
# each, with the names and the type a model file gives them.
KEPT_LABELS = [
    ("str", ["cat", "dog", "emu"], ["cat", "dog", "emu"], "text"),
    ("str of digits", ["1", "10", "2"], ["1", "10", "2"], "text"),
    ("str of other scripts and blanks", [" x", "ä b", "日本"],
     [" x", "ä b", "日本"], "text"),
    ("str of 63 bytes", ["b", "é" * 31 + "a", "c"],
     ["b", "c", "é" * 31 + "a"], "text"),
    ("str in an object array", np.array(["p", "q", "r"], dtype=object),
     ["p", "q", "r"], "text"),
    ("bytes", [b"x", b"y z", b"\xc3\xa9"], ["x", "y z", "é"], "bytes"),
    ("int", [-5, 3, 7], ["-5", "3", "7"], "integer"),
    ("int 0 .. k - 1", [0, 1, 2], ["0", "1", "2"], "integer"),
    ("uint64", np.array([1, 2**63, 2**64 - 1], dtype=np.uint64),
     ["1", "9223372036854775808", "18446744073709551615"], "integer"),
    ("numpy int16 scalars", [np.int16(-4), np.int16(0), np.int16(9)],
     ["-4", "0", "9"], "integer"),
    ("float", [0.0, 1.0, 2.0], ["0.0", "1.0", "2.0"], "real"),
    ("float32", np.array([-1, 3, 1e20], dtype=np.float32),
     ["-1.0", "3.0", "1.0000000200408773e+20"], "real"),
    ("bool", [False, True, True], ["False", "True"], "boolean"),
]


def three_classes(labels, rows=40):
    """Rows of 3 features and their labels, each label on some rows."""
    rng = np.random.default_rng(3)
    X = rng.normal(size=(rows, 3))
    which = np.arange(rows) % len(labels)
    y = np.empty(rows, dtype=object)
    y[:] = [labels[k] for k in which]
    return X, np.asarray(y.tolist()) if not isinstance(labels, np.ndarray) \
        else np.asarray(labels)[which]


@pytest.mark.parametrize("labels, names, class_type",
                         [case[1:] for case in KEPT_LABELS],
                         ids=[case[0] for case in KEPT_LABELS])
def test_saved_labels_come_back_exactly(tmp_path, cli, labels, names,
                                        class_type):
    """save then load then predict gives the fitted model's labels, of
    their kind; the safetensors metadata and `clkit run nn --predict` name
    them alike."""
    X, y = three_classes(labels)
    model = clkit.nn.MLP(layers=(4,), epochs=2, device="ref").fit(X, y)
    expected = model.predict(X).tolist()
    assert len(set(map(repr, expected))) > 1
    path = tmp_path / "model.ckn"
    model.save(path)
    loaded = clkit.nn.MLP.load(path, device="ref")
    assert loaded.classes_.tolist() == model.classes_.tolist()
    assert [type(label) for label in loaded.classes_.tolist()] == \
        [type(label) for label in model.classes_.tolist()]
    found = loaded.predict(X).tolist()
    assert found == expected
    assert [type(label) for label in found] == \
        [type(label) for label in expected]
    assert loaded.class_names_ == names
    rows = tmp_path / "rows.csv"
    np.savetxt(rows, X, fmt="%.9g", delimiter=",")
    out = tmp_path / "classes.txt"
    cli("run", "nn", "--load", str(path), "--predict", str(rows), "--out",
        str(out), "--device", "ref")
    named = dict(zip(model.classes_.tolist(), names))
    assert out.read_text(encoding="utf-8").splitlines() == \
        [named[label] for label in expected]
    safetensors = pytest.importorskip("safetensors",
                                      reason="safetensors is not installed")
    model.save(tmp_path / "model.safetensors")
    with safetensors.safe_open(tmp_path / "model.safetensors", "np") as file:
        metadata = file.metadata()
    assert json.loads(metadata["classes"]) == names
    assert metadata["class_type"] == class_type


@pytest.mark.parametrize("labels, kind", [([3, 5, 7], int),
                                           (["a", "b", "c"], str)])
def test_names_from_data_read_as_before(tmp_path, labels, kind):
    """A file whose names come from data (class type 0, as every file
    before class types) gives integers where each name is one, else
    text."""
    X, y = three_classes(labels)
    model = clkit.nn.MLP(layers=(4,), epochs=2, device="ref").fit(X, y)
    path = tmp_path / "model.ckn"
    model.save(path)
    data = bytearray(path.read_bytes()[:-32])
    data[28:32] = (0).to_bytes(4, "little")
    path.write_bytes(bytes(data) + hashlib.sha256(data).digest())
    loaded = clkit.nn.MLP.load(path, device="ref")
    assert loaded.classes_.tolist() == labels
    assert all(type(label) is kind for label in loaded.classes_.tolist())


# Labels no model file names: save refuses them, naming the label.
REFUSED_LABELS = [
    ("empty str", ["", "a", "b"], "the label '' takes 0 bytes"),
    ("newline", ["a\nb", "a", "b"], r"the label 'a\\nb' holds a control"),
    ("tab", ["a", "\tb", "c"], r"the label '\\tb' holds a control"),
    ("NUL", np.array(["a", "b\0c", "d"], dtype=object),
     r"the label 'b\\x00c' holds a control"),
    ("DEL", ["a", "b\x7f", "c"], r"the label 'b\\x7f' holds a control"),
    ("64 bytes", ["a" * 64, "b", "c"],
     "the label 'a{64}' takes 64 bytes of UTF-8"),
    ("lone surrogate", np.array(["a", "\ud800", "b"], dtype=object),
     r"the label '\\ud800' is not UTF-8 text"),
    ("bytes not UTF-8", [b"a", b"\xff", b"c"],
     r"the label b'\\xff' is not UTF-8 text"),
    ("bytes with a newline", [b"a", b"b\n", b"c"],
     r"the label b'b\\n' holds a control"),
    ("int and float", np.array([1, 2.5, 3], dtype=object),
     "the labels 1 and 2.5 are of two kinds"),
    ("objects", np.array([Fraction(1, 2), Fraction(1), Fraction(3)],
                         dtype=object),
     r"the label Fraction\(1, 2\) is a Fraction"),
]


@pytest.mark.parametrize("labels, message",
                         [case[1:] for case in REFUSED_LABELS],
                         ids=[case[0] for case in REFUSED_LABELS])
def test_labels_no_file_names_are_refused_at_save(tmp_path, labels,
                                                  message):
    """Rather than saved as other labels: a ValueError naming the label, in
    either format, and no file; a pickle keeps them."""
    X, y = three_classes(labels)
    model = clkit.nn.MLP(layers=(4,), epochs=1, device="ref").fit(X, y)
    for name in ("model.ckn", "model.safetensors"):
        with pytest.raises(ValueError, match="MLP.save: " + message):
            model.save(tmp_path / name)
        assert not (tmp_path / name).exists()
    copy = pickle.loads(pickle.dumps(model))
    assert copy.predict(X).tolist() == model.predict(X).tolist()


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
    assert params["layers"] == (5,) and params["seed"] == 7
    assert params["epochs"] == 4 and params["momentum"] == 0.5
    assert params["optimizer"] == "sgd"
    assert {"tol", "patience", "val", "act", "batch"} <= set(params)
    assert sum(value is not None for value in params.values()) == 5
    copy = type(model)(**params)
    assert copy.get_params() == params
    assert copy.set_params(lr=0.1, weight_decay=0.01) is copy
    assert copy.get_params()["weight_decay"] == 0.01
    assert repr(clkit.nn.MLP(layers=(3,))) == "MLP(layers=(3,))"
    assert "tol=T" in clkit.nn.MLP.__init__.__doc__
    assert "train=" not in clkit.nn.MLP.__init__.__doc__
    with pytest.raises(ValueError, match="invalid parameter 'nonsense'"):
        copy.set_params(nonsense=1)


def test_pickles_keep_the_network(letters):
    _, X, y, _ = letters
    model = clkit.nn.MLP(layers=(8,), epochs=2, device="ref").fit(
        X[:TRAIN], y[:TRAIN])
    copy = pickle.loads(pickle.dumps(model))
    assert np.array_equal(copy.predict_proba(X), model.predict_proba(X))
    assert copy.get_params() == model.get_params()
    assert copy.loss_curve_ == model.loss_curve_
    unfitted = pickle.loads(pickle.dumps(clkit.nn.MLP(layers=(3,))))
    assert not hasattr(unfitted, "network_")


def test_sklearn_model_selection_and_pipelines(letters):
    pytest.importorskip("sklearn", reason="scikit-learn is not installed")
    from sklearn.base import clone, is_classifier
    from sklearn.model_selection import GridSearchCV, cross_val_score
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler
    _, X, y, _ = letters
    model = clkit.nn.MLP(layers=(8,), epochs=2, device="ref", act="tanh")
    assert clone(model).get_params() == model.get_params()
    assert is_classifier(model)
    assert len(cross_val_score(model, X, y, cv=2)) == 2
    pipeline = make_pipeline(StandardScaler(), clone(model))
    assert 0 <= pipeline.fit(X, y).score(X, y) <= 1
    search = GridSearchCV(model, {"lr": [0.001, 0.01], "layers": [(4,), (8,)]},
                          cv=2).fit(X, y)
    assert search.best_params_["lr"] in (0.001, 0.01)
    assert search.best_estimator_.predict(X[:5]).shape == (5,)


try:
    from sklearn.utils.estimator_checks import parametrize_with_checks
except ImportError:
    parametrize_with_checks = None

if parametrize_with_checks:
    # scikit-learn warns that MLP does not inherit its BaseEstimator: it is
    # no dependency of clkit's.
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", "Estimator MLP does not inherit")
        checks = parametrize_with_checks(
            [clkit.nn.MLP(layers=(16,), device="ref", seed=1)])

    @checks
    def test_sklearn_estimator_checks(estimator, check):
        """Every check of scikit-learn's check_estimator that applies to
        a classifier."""
        check(estimator)
else:
    @pytest.mark.skip(reason="scikit-learn is not installed")
    def test_sklearn_estimator_checks():
        pass


def numpy_forward(tensors, metadata, X):
    """A model's class probabilities from its safetensors file's tensors
    and metadata, in NumPy."""
    activations = {"relu": lambda z: np.maximum(z, 0), "tanh": np.tanh,
                   "sigmoid": lambda z: 1 / (1 + np.exp(-z))}
    h = np.asarray(X, dtype=np.float64)
    if metadata["normalize"] != "none":
        h = (h - tensors["normalize.offset"]) * tensors["normalize.scale"]
        h = h.astype(np.float32).astype(np.float64)
    hidden = metadata["activations"].split(",") if \
        metadata["activations"] else []
    for layer in range(len(hidden) + 1):
        h = h @ tensors[f"{2 * layer}.weight"].T.astype(np.float64) + \
            tensors[f"{2 * layer}.bias"]
        if layer < len(hidden):
            h = activations[hidden[layer]](h)
    if metadata["output"] == "softmax":
        h = np.exp(h - h.max(axis=1, keepdims=True))
    else:
        h = activations["sigmoid"](h)
    return h / h.sum(axis=1, keepdims=True)


def test_safetensors_reproduce_the_predictions(tmp_path, device, letters):
    safetensors = pytest.importorskip("safetensors",
                                      reason="safetensors is not installed")
    from safetensors.numpy import load_file
    _, X, y, _ = letters
    model = clkit.nn.MLP(layers=(20, 12), act="tanh,relu", epochs=3,
                         device=device, seed=5).fit(X[:TRAIN], y[:TRAIN])
    path = tmp_path / "model.safetensors"
    model.save(path)
    tensors = load_file(path)
    with safetensors.safe_open(path, "np") as handle:
        metadata = handle.metadata()
    assert metadata["layers"] == "16,20,12,26"
    assert metadata["activations"] == "tanh,relu"
    assert metadata["loss"] == "ce" and metadata["output"] == "softmax"
    assert metadata["normalize"] == "zscore"
    assert json.loads(metadata["classes"]) == [str(k) for k in range(26)]
    assert {name: array.shape for name, array in tensors.items()} == {
        "normalize.offset": (16,), "normalize.scale": (16,),
        "0.weight": (20, 16), "0.bias": (20,), "2.weight": (12, 20),
        "2.bias": (12,), "4.weight": (26, 12), "4.bias": (26,)}
    assert all(array.dtype == np.float32 for array in tensors.values())
    assert np.array_equal(tensors["2.weight"], model.coefs_[1].T)
    assert np.array_equal(tensors["4.bias"], model.intercepts_[2])
    probabilities = numpy_forward(tensors, metadata, X)
    assert np.allclose(probabilities, model.predict_proba(X), rtol=1e-4,
                       atol=1e-6)
    assert np.array_equal(probabilities.argmax(axis=1), model.predict(X))
    other = tmp_path / "model.bin"
    model.save(other, format="safetensors")
    assert other.read_bytes() == path.read_bytes()
    with pytest.raises(clkit.Error, match="reads its own models"):
        clkit.nn.MLP.load(path, device=device)
    with pytest.raises(ValueError, match="format must be None"):
        model.save(path, format="onnx")


def test_the_command_saves_safetensors(tmp_path, cli, letters):
    pytest.importorskip("safetensors", reason="safetensors is not installed")
    from safetensors import safe_open
    from safetensors.numpy import load_file
    path, X, y, names = letters
    model = clkit.nn.MLP(layers=(24,), epochs=3, batch=32, lr=0.01,
                         device="ref", seed=4).fit(X[:TRAIN], y[:TRAIN])
    saved = tmp_path / "python.safetensors"
    model.save(saved)
    written = tmp_path / "command.safetensors"
    cli("run", "nn", "--train", str(path), "--split", str(TRAIN),
        "--layers", f"16,24,{len(names)}", "--epochs", "3", "--batch", "32",
        "--lr", "0.01", "--device", "ref", "--seed", "4", "--save",
        str(written))
    expected, found = load_file(saved), load_file(written)
    assert expected.keys() == found.keys()
    for name in expected:
        assert np.array_equal(expected[name], found[name]), name
    with safe_open(written, "np") as handle:
        metadata = handle.metadata()
    assert json.loads(metadata["classes"]) == names.tolist()
    assert metadata["layers"] == "16,24,26"


@pytest.mark.parametrize("X, y, message", [
    (np.zeros((4, 2)), [0, 1, 0], "X has 4 rows but y has 3"),
    (np.zeros((3, 2)), [0, 0.5, 1], "Unknown label type: continuous"),
    (np.zeros((3, 2)), [0, np.nan, 1], "y holds NaN"),
    (np.zeros((3, 2)), [1, 1, 1], r"y holds one class \(1\)"),
    (np.zeros((3, 2)), np.array([1, "a", 2], dtype=object),
     "Unknown label type"),
    (np.array([[0, 1], [np.nan, 0], [1, 1]]), [0, 1, 0], "NaN"),
    (np.zeros(3), [0, 1, 0], "2-dimensional .* Reshape your data"),
    (np.zeros((3, 2)), [[0, 1], [1, 0], [0, 1]], "1-dimensional"),
    (np.zeros((0, 2)), [], "no rows"),
    (np.zeros((70002, 1)), np.arange(70002), r"y holds 70002 classes; "
                                             r"clkit's networks tell at most "
                                             r"65536"),
    (np.zeros((3, 0)), [0, 1, 0], r"X has 0 feature\(s\) \(shape=\(3, 0\)\)"),
    (np.zeros((3, 2)) + 1j, [0, 1, 0], "Complex data not supported"),
    (np.array([["a", "b"]] * 3), [0, 1, 0], "X must hold numbers"),
    (None, [0, 1], r"2-dimensional .* not of shape \(\)"),
])
def test_bad_input_is_refused(X, y, message):
    with pytest.raises(ValueError, match=message):
        clkit.nn.MLP(device="ref").fit(X, y)


def test_inputs_scikit_learn_gives():
    X = np.array([[0.0, 1], [1, 0], [1, 1], [0, 0]])
    model = clkit.nn.MLP(layers=(4,), epochs=1, device="ref")
    with pytest.warns(UserWarning, match="A column-vector y was passed"):
        model.fit(X, [[0], [1], [1], [0]])
    assert model.classes_.tolist() == [0, 1]
    model.fit(X.astype(object), [0, 1, 1, 0])
    with pytest.raises(TypeError, match="X holds a value that is not a "
                                        "number: .*argument must be"):
        model.fit(np.array([[{}, 1], [1, 0]], dtype=object), [0, 1])
    with pytest.raises(ValueError, match="requires y to be passed"):
        model.fit(X, None)


def test_sparse_matrices_are_refused():
    scipy_sparse = pytest.importorskip("scipy.sparse",
                                       reason="SciPy is not installed")
    X = scipy_sparse.csr_matrix(np.eye(4))
    with pytest.raises(TypeError, match="X is a sparse matrix; .* "
                                        "X.toarray()"):
        clkit.nn.MLP(device="ref").fit(X, [0, 1, 1, 0])


def test_whole_float_labels_are_taken():
    X = np.array([[0.0, 0], [0, 1], [1, 0], [1, 1]])
    model = clkit.nn.MLP(layers=(4,), epochs=1, device="ref")
    assert model.fit(X, np.array([0.0, 1, 1, 0])).classes_.tolist() == [0, 1]
    assert model.predict(X).dtype == np.float64


def test_bad_options_and_use():
    X, y = np.zeros((4, 2)), [0, 1, 1, 0]
    with pytest.raises(TypeError, match="unexpected keyword argument"):
        clkit.nn.MLP(nonsense=1)
    with pytest.raises(TypeError, match="'train': an MLP takes its rows in "
                                        "fit"):
        clkit.nn.MLP(train="x.csv", device="ref")
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
    with pytest.raises(clkit.nn.NotFittedError, match="not fitted"):
        clkit.nn.MLP().predict(X)
    with pytest.raises(AttributeError, match="not fitted"):
        clkit.nn.MLP().predict_proba(X)
    model = clkit.nn.MLP(layers=(4,), epochs=1, device="ref").fit(X, y)
    with pytest.raises(ValueError, match="X has 3 features, but MLP is "
                                         "expecting 2 features as input"):
        model.predict(np.zeros((2, 3)))
    with pytest.raises(clkit.ArgumentError, match="--tol"):
        clkit.nn.MLP(tol=-1, device="ref").fit(X, y)
    with pytest.raises(clkit.Error, match="missing.ckn"):
        clkit.nn.MLP.load("missing.ckn", device="ref")
