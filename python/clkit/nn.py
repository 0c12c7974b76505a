"""Multilayer perceptrons (clkit's nn workload) in scikit-learn's estimator
shape: fit, predict and score NumPy arrays handed to clkit in memory.

    model = clkit.nn.MLP(layers=(64,), epochs=20, device="ref", seed=1)
    model.fit(X_train, y_train).score(X_test, y_test)
"""
import numbers
import os

import numpy as np

from . import _clkit
from ._devices import device_id
from ._run import option_params, options_doc, seed_value

__all__ = ["MLP"]

# The MLP's own parameters, beside the workload's options.
_OWN = ("layers", "device", "seed", "epochs", "batch", "lr")


def _features(X, caller, width=None):
    """X as a C-contiguous (rows, features) float32 array, converted once."""
    array = np.asarray(X)
    if array.dtype.kind not in "fiub":
        raise ValueError(f"{caller}: X must hold numbers, not "
                         f"{array.dtype}")
    if array.ndim != 2:
        raise ValueError(f"{caller}: X must be a 2-dimensional array "
                         f"(rows, features), not of shape {array.shape}")
    if array.shape[1] == 0:
        raise ValueError(f"{caller}: X has no features (shape "
                         f"{array.shape}): a row needs one or more")
    if array.shape[1] > _clkit.NN_MAX_WIDTH:
        raise ValueError(f"{caller}: X has {array.shape[1]} features a row; "
                         f"clkit's networks take at most "
                         f"{_clkit.NN_MAX_WIDTH}")
    array = np.ascontiguousarray(array, dtype=np.float32)
    if not np.all(np.isfinite(array)):
        row = int(np.argwhere(~np.isfinite(array))[0][0])
        raise ValueError(f"{caller}: X holds NaN or infinity (row {row}, "
                         f"0-based), or a value past float32's range")
    if width is not None and array.shape[1] != width:
        raise ValueError(f"{caller}: X has {array.shape[1]} features a row; "
                         f"the network takes {width}")
    return array


def _labels(y, rows, caller, classes=None):
    """y as int32 class numbers 0 .. k - 1, one a row of X."""
    array = np.asarray(y)
    if array.ndim != 1:
        raise ValueError(f"{caller}: y must be a 1-dimensional array of "
                         f"class labels, not of shape {array.shape}")
    if len(array) != rows:
        raise ValueError(f"{caller}: X has {rows} rows but y has "
                         f"{len(array)} labels")
    if array.dtype.kind == "f" and np.all(np.isfinite(array)) and \
            np.all(array == np.floor(array)):
        array = array.astype(np.int64)
    if array.dtype.kind not in "iub":
        raise ValueError(f"{caller}: y must hold whole class numbers 0 .. "
                         f"k - 1, not {array.dtype} values (name classes "
                         f"with np.unique(y, return_inverse=True))")
    if rows and array.min() < 0:
        raise ValueError(f"{caller}: y holds the negative label "
                         f"{int(array.min())}; classes are 0 .. k - 1")
    if classes is not None and rows and array.max() >= classes:
        raise ValueError(f"{caller}: y holds class {int(array.max())}, but "
                         f"the network has {classes} classes")
    most = min(_clkit.DATASET_MAX_CLASSES, _clkit.NN_MAX_WIDTH)
    if rows and array.max() >= most:
        raise ValueError(f"{caller}: y holds class {int(array.max())}; "
                         f"clkit's networks tell at most {most} classes, "
                         f"0 .. {most - 1}")
    return np.ascontiguousarray(array, dtype=np.int32)


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


class MLP:
    """A multilayer perceptron classifier trained by clkit on a device."""

    def __init__(self, layers=(_clkit.NN_AUTO_HIDDEN,), *, device=None, seed=None, epochs=None,
                 batch=None, lr=None, **options):
        self.layers = layers
        self.device = device
        self.seed = seed
        self.epochs = epochs
        self.batch = batch
        self.lr = lr
        option_params("nn", "MLP", dict.fromkeys(options),
                      reserved={"layers": "give the hidden widths as layers"})
        self._options = sorted(options)
        for key, value in options.items():
            setattr(self, key, value)

    # ---- scikit-learn's parameters -------------------------------------

    def get_params(self, deep=True):
        """The constructor's arguments, as scikit-learn's clone takes them."""
        names = _OWN + tuple(self._options)
        return {name: getattr(self, name) for name in names}

    def set_params(self, **params):
        """Sets constructor arguments (a workload option too); returns
        self."""
        options = [key for key in params if key not in _OWN]
        option_params("nn", "MLP.set_params", dict.fromkeys(options),
                      reserved={"layers": "give the hidden widths as layers"})
        for key, value in params.items():
            setattr(self, key, value)
        self._options = sorted(set(self._options) | set(options))
        return self

    def __repr__(self):
        shown = ", ".join(f"{key}={value!r}"
                          for key, value in self.get_params().items()
                          if value is not None)
        return f"MLP({shown})"

    # ---- training and prediction ---------------------------------------

    def _params(self, features, classes):
        options = {name: getattr(self, name) for name in self._options}
        options.update(epochs=self.epochs, batch=self.batch, lr=self.lr)
        widths = (features, *_hidden(self.layers), classes)
        return [("layers", ",".join(str(width) for width in widths))] + \
            option_params("nn", "MLP", options)

    def fit(self, X, y):
        """Trains a new network on X (rows of features) and y (class
        numbers 0 .. k - 1); returns self. The output layer has k units,
        and at least 2."""
        X = _features(X, "MLP.fit")
        y = _labels(y, X.shape[0], "MLP.fit")
        if X.shape[0] == 0:
            raise ValueError("MLP.fit: X has no rows")
        classes = max(2, int(y.max()) + 1)
        network, history = _clkit.nn_train(
            device_id(self.device), self._params(X.shape[1], classes),
            seed_value("MLP", self.seed), X, y, classes)
        self._adopt(network)
        self.history_ = history
        self.loss_curve_ = [row["loss"] for row in history]
        self.n_iter_ = len(history)
        return self

    def _adopt(self, network):
        info = network.describe()
        self.network_ = network
        self.n_features_in_ = info["sizes"][0]
        self.classes_ = np.arange(info["sizes"][-1])
        self.class_names_ = info["class_names"]

    def _network(self, caller):
        network = getattr(self, "network_", None)
        if network is None:
            raise AttributeError(f"{caller}: this MLP is not fitted yet; call "
                                 f"fit(X, y) or MLP.load(path) first")
        return network

    def predict(self, X):
        """The class of each row of X: an int64 array."""
        network = self._network("MLP.predict")
        X = _features(X, "MLP.predict", self.n_features_in_)
        if X.shape[0] == 0:
            return np.zeros(0, dtype=np.int64)
        raw = network.predict(X)
        return self.classes_[np.frombuffer(raw, dtype=np.int32)]

    def evaluate(self, X, y):
        """The network's mean loss and accuracy on X and y, as a dict."""
        network = self._network("MLP.evaluate")
        X = _features(X, "MLP.evaluate", self.n_features_in_)
        y = _labels(y, X.shape[0], "MLP.evaluate", len(self.classes_))
        if X.shape[0] == 0:
            raise ValueError("MLP.evaluate: X has no rows")
        loss, accuracy = network.evaluate(X, y)
        return {"loss": loss, "accuracy": accuracy}

    def score(self, X, y):
        """The fraction of rows of X whose class is y's."""
        return self.evaluate(X, y)["accuracy"]

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

    # ---- model files ---------------------------------------------------

    def save(self, path):
        """Writes the model (architecture, input scaling, class names,
        weights) as clkit's .ckn file, which `clkit run nn --load` reads."""
        self._network("MLP.save").save(os.fspath(path))

    @classmethod
    def load(cls, path, *, device=None):
        """An MLP from a .ckn model file (`clkit run nn --save` writes
        them), ready to predict."""
        network = _clkit.nn_load(device_id(device), os.fspath(path))
        info = network.describe()
        options = {}
        if len(info["sizes"]) > 2:
            acts = info["activations"]
            options["act"] = acts[0] if len(set(acts)) == 1 else ",".join(acts)
        model = cls(layers=tuple(info["sizes"][1:-1]), device=device,
                    loss=info["loss"], **options)
        model._adopt(network)
        return model


MLP.__init__.__doc__ = """\
layers: the hidden layers' widths (input and output widths come from X and
y in fit).
device: a selector as --device takes ("ref", "ocl:0.0", "pocl"), or a
clkit.Device; None: CLKIT_DEVICE, else the fastest device.
seed: the weights' and shuffles' seed (default 1, as the command's).
epochs, batch, lr and the other keyword arguments are options of `clkit run
nn`, "_" for "-", with its defaults:
""" + options_doc("nn", skip={"layers", "train", "test", "train-labels",
                              "test-labels", "label-col", "header", "split",
                              "val", "patience", "tiles", "trace", "save",
                              "load", "predict", "predict-labels", "out"})
