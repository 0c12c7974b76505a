"""Multilayer perceptrons (clkit's nn workload) as a scikit-learn
classifier: fit, predict and score NumPy arrays handed to clkit in memory.

    model = clkit.nn.MLP(layers=(64,), device="ref", seed=1)
    model.fit(X_train, y_train).score(X_test, y_test)

scikit-learn is not needed; where it is installed, MLP works in its
pipelines, cross-validation and searches.
"""
import inspect
import numbers
import os
import sys
import warnings

import numpy as np

from . import _clkit
from ._session import resolve
from ._run import (option_params, options_doc, options_table, scratch,
                   seed_value)

__all__ = ["MLP", "NotFittedError", "DataConversionWarning", "HISTORY"]

# The columns of MLP.history_, one row an epoch: `clkit run nn --trace`'s,
# but for the test set, which a fit has not. A set not attached has NaN.
HISTORY = np.dtype([("epoch", np.int64), ("loss", np.float64),
                    ("accuracy", np.float64), ("validation_loss", np.float64),
                    ("validation_accuracy", np.float64),
                    ("learning_rate", np.float64),
                    ("samples_per_s", np.float64), ("seconds", np.float64)])

# The options of `clkit run nn` that are not the MLP's parameters: the data
# and the files a command run reads and writes, and the kernels' form.
_NOT_PARAMETERS = {"train", "test", "train-labels", "test-labels",
                   "label-col", "header", "split", "tiles", "trace", "plot",
                   "save", "load", "predict", "predict-labels", "out",
                   "layers"}
_FIRST = ("epochs", "batch", "lr")
_OPTIONS = _FIRST + tuple(
    name.replace("-", "_") for name in options_table("nn")
    if name not in _NOT_PARAMETERS and name.replace("-", "_") not in _FIRST)
_OWN = ("layers", "device", "seed", "session")
_MOST_CLASSES = min(_clkit.DATASET_MAX_CLASSES, _clkit.NN_MAX_WIDTH)


class NotFittedError(ValueError, AttributeError):
    """An MLP used before fit (scikit-learn's NotFittedError where
    scikit-learn is in use)."""


class DataConversionWarning(UserWarning):
    """y was converted (scikit-learn's DataConversionWarning where
    scikit-learn is in use)."""


_BOTH = {}


def _sklearn(own):
    """clkit's exception or warning class own, also scikit-learn's of the
    same name where scikit-learn is imported."""
    module = sys.modules.get("sklearn.exceptions")
    theirs = getattr(module, own.__name__, None) if module else None
    if theirs is None:
        return own
    if own not in _BOTH:
        _BOTH[own] = type(own.__name__, (own, theirs),
                          {"__module__": __name__, "__doc__": own.__doc__})
    return _BOTH[own]


def _features(X, caller, width=None):
    """X as a C-contiguous (rows, features) float32 array, converted once."""
    if hasattr(X, "toarray") and hasattr(X, "nnz"):
        raise TypeError(f"{caller}: X is a sparse matrix; clkit's networks "
                        f"take dense arrays: pass X.toarray()")
    array = np.asarray(X)
    if array.dtype.kind == "c":
        raise ValueError(f"{caller}: Complex data not supported: X holds "
                         f"complex numbers")
    if array.dtype.kind == "O":
        try:
            array = array.astype(np.float64)
        except (TypeError, ValueError) as error:
            raise type(error)(f"{caller}: X holds a value that is not a "
                              f"number: {error}") from None
    if array.dtype.kind not in "fiub":
        raise ValueError(f"{caller}: X must hold numbers, not "
                         f"{array.dtype}")
    if array.ndim != 2:
        raise ValueError(f"{caller}: X must be a 2-dimensional array "
                         f"(rows, features), not of shape {array.shape}. "
                         f"Reshape your data with X.reshape(-1, 1) for a "
                         f"single feature or X.reshape(1, -1) for a single "
                         f"row")
    if array.shape[1] == 0:
        raise ValueError(f"{caller}: X has 0 feature(s) (shape="
                         f"{array.shape}) while a minimum of 1 is required: "
                         f"a row needs one or more")
    if width is None and array.shape[1] > _clkit.NN_MAX_WIDTH:
        raise ValueError(f"{caller}: X has {array.shape[1]} features a row; "
                         f"clkit's networks take at most "
                         f"{_clkit.NN_MAX_WIDTH}")
    if width is not None and array.shape[1] != width:
        raise ValueError(f"{caller}: X has {array.shape[1]} features, but "
                         f"MLP is expecting {width} features as input")
    array = np.ascontiguousarray(array, dtype=np.float32)
    if not np.all(np.isfinite(array)):
        row = int(np.argwhere(~np.isfinite(array))[0][0])
        raise ValueError(f"{caller}: X holds NaN or infinity (row {row}, "
                         f"0-based), or a value past float32's range")
    return array


def _targets(y, rows, caller):
    """y as a 1-dimensional array of class labels, one a row of X."""
    if y is None:
        raise ValueError(f"{caller}: MLP requires y to be passed, but the "
                         f"target y is None")
    array = np.asarray(y)
    if array.ndim == 2 and array.shape[1] == 1:
        warnings.warn("A column-vector y was passed when a 1d array was "
                      "expected: clkit took y.ravel()",
                      _sklearn(DataConversionWarning), stacklevel=3)
        array = array.ravel()
    if array.ndim != 1:
        raise ValueError(f"{caller}: y must be a 1-dimensional array of "
                         f"class labels, not of shape {array.shape}")
    if len(array) != rows:
        raise ValueError(f"{caller}: X has {rows} rows but y has "
                         f"{len(array)} labels")
    if array.dtype.kind == "c":
        raise ValueError(f"{caller}: Complex data not supported: y holds "
                         f"complex numbers")
    if array.dtype.kind == "f":
        bad = ~np.isfinite(array)
        if bad.any():
            raise ValueError(f"{caller}: y holds NaN or infinity (row "
                             f"{int(np.argmax(bad))}, 0-based)")
        whole = array == np.floor(array)
        if not whole.all():
            value = array[int(np.argmin(whole))]
            raise ValueError(f"{caller}: Unknown label type: continuous (y "
                             f"holds {value!r}); class labels are whole "
                             f"numbers, strings or other discrete values")
    return array


def _classes(y, caller):
    """The sorted distinct labels of y, and each row's class number."""
    try:
        classes, numbers_ = np.unique(y, return_inverse=True)
    except TypeError:
        raise ValueError(f"{caller}: Unknown label type: y mixes labels "
                         f"that cannot be ordered (such as numbers and "
                         f"strings)") from None
    if len(classes) < 2:
        raise ValueError(f"{caller}: y holds one class "
                         f"({classes.tolist()[0]!r}); "
                         f"a classifier needs 2 or more")
    if len(classes) > _MOST_CLASSES:
        raise ValueError(f"{caller}: y holds {len(classes)} classes; "
                         f"clkit's networks tell at most {_MOST_CLASSES}")
    return classes, np.ascontiguousarray(numbers_.reshape(-1),
                                         dtype=np.int32)


# The kinds of labels a model file keeps, each with the type its class
# names take there (clkit/nn.h's ck_nn_class_type), how a label is named,
# and how a name gives the label back.
_KINDS = {
    "text": (_clkit.NN_CLASS_TEXT, str, str),
    "integer": (_clkit.NN_CLASS_INTEGER, lambda label: str(int(label)), int),
    "real": (_clkit.NN_CLASS_REAL, lambda label: repr(float(label)), float),
    "boolean": (_clkit.NN_CLASS_BOOLEAN, lambda label: str(bool(label)),
                lambda name: {"False": False, "True": True}[name]),
    "bytes": (_clkit.NN_CLASS_BYTES, lambda label: bytes(label).decode(),
              str.encode),
}
_KIND_OF_TYPE = {kind[0]: name for name, kind in _KINDS.items()}


def _kind(label):
    """The kind of a label (a key of _KINDS), or None: Python's and
    NumPy's bools, ints, floats, str and bytes."""
    if isinstance(label, (bool, np.bool_)):
        return "boolean"
    if isinstance(label, (int, np.integer)):
        return "integer"
    if isinstance(label, (float, np.floating)):
        return "real"
    if isinstance(label, str):
        return "text"
    if isinstance(label, bytes):
        return "bytes"
    return None


def _shown(label):
    """A label in a message: its repr, cut where it is long."""
    text = repr(label)
    return text if len(text) <= 80 else text[:77] + "..."


def _naming(classes):
    """The classes' names that a model file keeps and their type: None
    (no names) for the integers 0 .. k - 1; else a name a label, from
    which the label comes back exactly. A ValueError names a label that
    no name keeps."""
    labels = classes.tolist()
    kinds = [_kind(label) for label in labels]
    for label, kind in zip(labels, kinds):
        if kind is None:
            raise ValueError(f"the label {_shown(label)} is a "
                             f"{type(label).__name__}; a model file keeps "
                             f"labels that are str, bytes, int, float or "
                             f"bool")
        if kind != kinds[0]:
            raise ValueError(f"the labels {_shown(labels[0])} and "
                             f"{_shown(label)} are of two kinds "
                             f"({type(labels[0]).__name__} and "
                             f"{type(label).__name__}); a model file keeps "
                             f"labels of one")
    type_, name_of, label_of = _KINDS[kinds[0]]
    if kinds[0] == "integer" and labels == list(range(len(labels))):
        return None, type_
    names = []
    for label in labels:
        try:
            name = name_of(label)
            size = len(name.encode("utf-8"))
        except (UnicodeError, ValueError):
            raise ValueError(f"the label {_shown(label)} is not UTF-8 text, "
                             f"which a model file names classes in") from None
        if not 1 <= size <= _clkit.DATASET_MAX_NAME:
            raise ValueError(f"the label {_shown(label)} takes {size} bytes "
                             f"of UTF-8; a model file names a class in 1 to "
                             f"{_clkit.DATASET_MAX_NAME}")
        if any(ord(c) < 0x20 or ord(c) == 0x7F for c in name):
            raise ValueError(f"the label {_shown(label)} holds a control "
                             f"character, which a model file's class names "
                             f"(one a line from `clkit run nn --predict`) "
                             f"cannot")
        if label_of(name) != label:
            raise ValueError(f"the label {_shown(label)} does not read back "
                             f"from its name {name!r}")
        names.append(name)
    return names, type_


def _labels_of(names, class_type, source):
    """A loaded model's classes: its names as the labels they stand for
    (the classes 0 .. k - 1 have their numbers as names, integers). Names
    from a data file, or from a file written before class types, are
    integers where every one is an integer written plainly, else text."""
    if class_type == _clkit.NN_CLASS_DATA:
        plain = all(name.lstrip("-").isdigit() and
                    str(int(name)) == name for name in names)
        class_type = _clkit.NN_CLASS_INTEGER if plain else \
            _clkit.NN_CLASS_TEXT
    kind = _KIND_OF_TYPE.get(class_type)
    if kind is None:
        raise ValueError(f"{source}: unknown class type {class_type}")
    label_of = _KINDS[kind][2]
    labels = []
    for k, name in enumerate(names):
        try:
            labels.append(label_of(name))
        except (KeyError, ValueError):
            raise ValueError(f"{source}: class {k}'s name {name!r} does not "
                             f"stand for a label of its type, {kind}") \
                from None
    if kind != "integer":
        return np.array(labels)
    # NumPy would take ints past int64 as floats, losing their digits.
    for dtype in (np.int64, np.uint64):
        try:
            return np.array(labels, dtype=dtype)
        except OverflowError:
            pass
    return np.array(labels, dtype=object)


def _hidden(layers):
    """The hidden widths as a tuple of ints."""
    if isinstance(layers, numbers.Integral) and not isinstance(layers, bool):
        layers = (layers,)
    try:
        if isinstance(layers, (str, bytes)):
            raise TypeError
        widths = tuple(layers)
    except TypeError:
        raise TypeError(f"MLP: layers must be a sequence of hidden widths, "
                        f"not {type(layers).__name__}") from None
    for width in widths:
        if isinstance(width, (bool, np.bool_)) or \
                not isinstance(width, numbers.Integral):
            raise TypeError(f"MLP: layers must hold whole widths, not "
                            f"{width!r}")
        if not 1 <= width <= _clkit.NN_MAX_WIDTH:
            raise ValueError(f"MLP: layers holds the width {int(width)}; a "
                             f"hidden layer is 1 .. {_clkit.NN_MAX_WIDTH} "
                             f"wide")
    if len(widths) > _clkit.NN_MAX_LAYERS - 1:
        raise ValueError(f"MLP: layers holds {len(widths)} hidden widths; "
                         f"clkit's networks have at most "
                         f"{_clkit.NN_MAX_LAYERS - 1}")
    return tuple(int(width) for width in widths)


def _refuse(key):
    """The TypeError of a keyword argument that is no parameter."""
    if key.replace("_", "-") not in options_table("nn"):
        option_params("nn", "MLP", {key: None})
    raise TypeError(f"MLP() got an unexpected keyword argument '{key}': an "
                    f"MLP takes its rows in fit(X, y), writes its model with "
                    f"save(path) and chooses its kernels by device")


class MLP:
    """A multilayer perceptron classifier trained by clkit on a device."""

    _estimator_type = "classifier"

    def __init__(self, layers=(_clkit.NN_AUTO_HIDDEN,), *, device=None,
                 seed=None, session=None, **options):
        for key in options:
            if key not in _OPTIONS:
                _refuse(key)
        self.layers = layers
        self.device = device
        self.seed = seed
        self.session = session
        for key in _OPTIONS:
            setattr(self, key, options.get(key))

    # ---- scikit-learn's parameters and tags ----------------------------

    def get_params(self, deep=True):
        """The constructor's arguments, as scikit-learn's clone takes them."""
        return {name: getattr(self, name) for name in _OWN + _OPTIONS}

    def set_params(self, **params):
        """Sets constructor arguments; returns self."""
        for key in params:
            if key not in _OWN + _OPTIONS:
                raise ValueError(f"MLP.set_params: invalid parameter {key!r}; "
                                 f"the parameters are "
                                 f"{', '.join(_OWN + _OPTIONS)}")
        for key, value in params.items():
            setattr(self, key, value)
        return self

    def __repr__(self):
        shown = ", ".join(f"{key}={value!r}"
                          for key, value in self.get_params().items()
                          if value is not None)
        return f"MLP({shown})"

    def __sklearn_tags__(self):
        """scikit-learn's tags (1.6 and later): a classifier of dense
        numbers, one label a row, deterministic for a seed."""
        from sklearn.utils import ClassifierTags, InputTags, Tags, TargetTags
        return Tags(estimator_type="classifier",
                    target_tags=TargetTags(required=True),
                    classifier_tags=ClassifierTags(),
                    input_tags=InputTags())

    def _more_tags(self):
        """scikit-learn's tags before 1.6."""
        return {"requires_y": True, "binary_only": False,
                "multioutput": False, "non_deterministic": False}

    def __sklearn_is_fitted__(self):
        return hasattr(self, "network_")

    # ---- training and prediction ---------------------------------------

    def _params(self, features, classes):
        options = {name: getattr(self, name) for name in _OPTIONS}
        widths = (features, *_hidden(self.layers), classes)
        return [("layers", ",".join(str(width) for width in widths))] + \
            option_params("nn", "MLP", options)

    def fit(self, X, y):
        """Trains a new network on X (rows of features) and y (a class
        label a row); returns self. The output layer has a unit a class:
        classes_, the sorted distinct labels of y."""
        X = _features(X, "MLP.fit")
        y = _targets(y, X.shape[0], "MLP.fit")
        if X.shape[0] == 0:
            raise ValueError("MLP.fit: X has no rows")
        classes, numbers_ = _classes(y, "MLP.fit")
        handle, selected = resolve("MLP.fit()", self.device, self.session)
        try:
            names, class_type = _naming(classes)
        except ValueError:
            # Such labels are kept here and by pickles; save refuses them.
            names, class_type = None, _clkit.NN_CLASS_INTEGER
        network, history, report = _clkit.nn_train(
            selected, self._params(X.shape[1], len(classes)),
            seed_value("MLP", self.seed), X, numbers_, len(classes),
            names, class_type, handle)
        self._adopt(network, classes)
        self.history_ = np.array(
            [tuple(row[name] for name in HISTORY.names) for row in history],
            dtype=HISTORY)
        self.loss_curve_ = [row["loss"] for row in history]
        self.n_iter_ = report["epochs"]
        self.best_epoch_ = report["best_epoch"]
        self.stopped_by_ = report["stopped_by"]
        return self

    def _adopt(self, network, classes=None, source=None):
        info = network.describe()
        self.network_ = network
        self.n_features_in_ = info["sizes"][0]
        names = info["class_names"]
        if classes is None:
            classes = _labels_of(names, info["class_type"], source)
        self.classes_ = classes
        self.class_names_ = names

    def _network(self, caller):
        network = getattr(self, "network_", None)
        if network is None:
            raise _sklearn(NotFittedError)(
                f"{caller}: this MLP is not fitted yet; call fit(X, y) or "
                f"MLP.load(path) first")
        return network

    def predict(self, X):
        """The class of each row of X: an array of classes_'s labels."""
        network = self._network("MLP.predict")
        X = _features(X, "MLP.predict", self.n_features_in_)
        if X.shape[0] == 0:
            return self.classes_[:0]
        raw = network.predict(X)
        return self.classes_[np.frombuffer(raw, dtype=np.int32)]

    def predict_proba(self, X):
        """Each row's class probabilities: (rows, classes) float64, in the
        order of classes_, each row summing to 1 (the softmax of the
        outputs, or with loss="mse" the sigmoid outputs over their sum)."""
        network = self._network("MLP.predict_proba")
        X = _features(X, "MLP.predict_proba", self.n_features_in_)
        width = len(self.classes_)
        if X.shape[0] == 0:
            return np.zeros((0, width))
        raw = network.predict_proba(X)
        return np.frombuffer(raw, dtype=np.float64).reshape(-1, width).copy()

    def evaluate(self, X, y):
        """The network's mean loss and accuracy on X and y (labels the
        network was fitted on), as a dict."""
        network = self._network("MLP.evaluate")
        X = _features(X, "MLP.evaluate", self.n_features_in_)
        y = _targets(y, X.shape[0], "MLP.evaluate")
        if X.shape[0] == 0:
            raise ValueError("MLP.evaluate: X has no rows")
        index = {label: k for k, label in enumerate(self.classes_.tolist())}
        numbers_ = np.empty(len(y), dtype=np.int32)
        for row, label in enumerate(y.tolist()):
            if label not in index:
                raise ValueError(f"MLP.evaluate: y holds the label {label!r}, "
                                 f"which is not one of the network's "
                                 f"{len(index)} classes")
            numbers_[row] = index[label]
        loss, accuracy = network.evaluate(X, numbers_)
        return {"loss": loss, "accuracy": accuracy}

    def score(self, X, y):
        """The fraction of rows of X whose predicted class is y's."""
        predicted = self.predict(X)
        y = _targets(y, len(predicted), "MLP.score")
        return float(np.mean(predicted == y)) if len(y) else float("nan")

    @property
    def coefs_(self):
        """Each weight layer's weights, (inputs, outputs) float32."""
        network = self._network("MLP.coefs_")
        return [np.frombuffer(network.weights(layer)[0], dtype=np.float32)
                .reshape(width, -1).T
                for layer, width in enumerate(self._widths()[1:])]

    @property
    def intercepts_(self):
        """Each weight layer's biases, float32."""
        network = self._network("MLP.intercepts_")
        return [np.frombuffer(network.weights(layer)[1], dtype=np.float32)
                for layer in range(len(self._widths()) - 1)]

    def _widths(self):
        return self.network_.describe()["sizes"]

    # ---- model files and pickles ---------------------------------------

    def save(self, path, format=None):
        """Writes the model: clkit's .ckn file, which `clkit run nn --load`
        and MLP.load read, or with format="safetensors" (or a path ending
        .safetensors) a safetensors file for PyTorch, JAX and others.
        Either names the classes so that MLP.load gives back classes_
        exactly; a ValueError names a label no file can name (a pickle
        keeps any)."""
        if format not in (None, "ckn", "safetensors"):
            raise ValueError(f"MLP.save: format must be None, 'ckn' or "
                             f"'safetensors', not {format!r}")
        network = self._network("MLP.save")
        try:
            _naming(self.classes_)
        except ValueError as error:
            raise ValueError(f"MLP.save: {error}; map the labels to ones a "
                             f"file keeps, or pickle the model") from None
        network.save(os.fspath(path), format)

    @classmethod
    def load(cls, path, *, device=None, session=None):
        """An MLP from a .ckn model file (`clkit run nn --save` writes
        them), ready to predict."""
        handle, selected = resolve("MLP.load()", device, session)
        network = _clkit.nn_load(selected, os.fspath(path), handle)
        info = network.describe()
        options = {}
        if len(info["sizes"]) > 2:
            acts = info["activations"]
            options["act"] = acts[0] if len(set(acts)) == 1 else ",".join(acts)
        model = cls(layers=tuple(info["sizes"][1:-1]), device=device,
                    session=session, loss=info["loss"], **options)
        model._adopt(network, source=f"MLP.load: {os.fspath(path)}")
        return model

    def __getstate__(self):
        """A pickle holds the network as the bytes of its .ckn file, and
        no session: one is of its process."""
        state = self.__dict__.copy()
        state["session"] = None
        if "network_" in state:
            with scratch() as folder:
                path = os.path.join(folder, "model.ckn")
                self.network_.save(path)
                with open(path, "rb") as handle:
                    state["network_"] = handle.read()
        return state

    def __setstate__(self, state):
        state = dict(state)
        state.setdefault("session", None)  # pickles made before sessions
        model = state.get("network_")
        if isinstance(model, (bytes, bytearray, memoryview)):
            with scratch() as folder:
                path = os.path.join(folder, "model.ckn")
                with open(path, "wb") as handle:
                    handle.write(model)
                session, selected = resolve("MLP", state.get("device"), None)
                state["network_"] = _clkit.nn_load(selected, path, session)
        self.__dict__.update(state)


# The constructor's signature names every option, as scikit-learn reads
# its parameters from it.
MLP.__init__.__signature__ = inspect.Signature(
    [inspect.Parameter("self", inspect.Parameter.POSITIONAL_OR_KEYWORD),
     inspect.Parameter("layers", inspect.Parameter.POSITIONAL_OR_KEYWORD,
                       default=(_clkit.NN_AUTO_HIDDEN,))] +
    [inspect.Parameter(name, inspect.Parameter.KEYWORD_ONLY, default=None)
     for name in _OWN[1:] + _OPTIONS])

MLP.__init__.__doc__ = """\
layers: the hidden layers' widths (input and output widths come from X and
y in fit).
device: a selector as --device takes ("ref", "ocl:0.0", "pocl"), or a
clkit.Device; None: CLKIT_DEVICE, else the fastest device.
session: a clkit.Session to run on, device then choosing among its devices;
None: the default session of device, kept until the process ends.
seed: the weights' and shuffles' seed (default 1, as the command's).
The other keyword arguments are options of `clkit run nn`, "_" for "-",
with its defaults:
""" + options_doc("nn", skip=_NOT_PARAMETERS)
