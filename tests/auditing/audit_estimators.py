"""diffprivlib's estimators and tools as an analyst calls them, audited on small datasets."""

from __future__ import annotations

import functools
import warnings

import numpy as np


def quiet(function):
    """Run without warnings (diffprivlib's privacy-leak notes, scikit-learn's convergence and
    SciPy's deprecations), as an analyst's script would: pytest turns warnings into errors."""

    @functools.wraps(function)
    def run(*args, **kwargs):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return function(*args, **kwargs)

    return run


@quiet
def tools_mean(data, epsilon=1.0):
    from diffprivlib import tools

    return float(tools.mean(data, epsilon=epsilon, bounds=(0.0, 1.0)))


@quiet
def tools_mean_without_bounds(data, epsilon=1.0):
    from diffprivlib import tools

    return float(tools.mean(data, epsilon=epsilon))


@quiet
def tools_sum(data, epsilon=1.0):
    from diffprivlib import tools

    return float(tools.sum(data, epsilon=epsilon, bounds=(0.0, 1.0)))


@quiet
def tools_var(data, epsilon=1.0):
    from diffprivlib import tools

    return float(tools.var(data, epsilon=epsilon, bounds=(0.0, 1.0)))


@quiet
def tools_count_nonzero(data, epsilon=1.0):
    from diffprivlib import tools

    return int(tools.count_nonzero(data, epsilon=epsilon))


@quiet
def tools_histogram(data, epsilon=1.0):
    from diffprivlib import tools

    counts, _ = tools.histogram(data, epsilon=epsilon, bins=4, range=(0.0, 1.0))
    return [float(c) for c in counts]


@quiet
def tools_quantile(data, epsilon=1.0):
    from diffprivlib import tools

    return float(tools.quantile(data, 0.5, epsilon=epsilon, bounds=(0.0, 1.0)))


@quiet
def scaler_mean(data, epsilon=1.0):
    from diffprivlib.models import StandardScaler

    scaler = StandardScaler(epsilon=epsilon, bounds=([0.0], [1.0])).fit(data.reshape(-1, 1))
    return [float(scaler.mean_[0]), float(scaler.var_[0])]


@quiet
def gaussian_nb(data, epsilon=1.0):
    from diffprivlib.models import GaussianNB

    features = data[:, :1]
    labels = (data[:, 1] > 0.5).astype(int)
    model = GaussianNB(epsilon=epsilon, bounds=([0.0], [1.0]), priors=[0.5, 0.5]).fit(
        features, labels
    )
    return [float(v) for v in np.concatenate([model.theta_.ravel(), model.var_.ravel()])]


@quiet
def linear_regression(data, epsilon=1.0):
    from diffprivlib.models import LinearRegression

    model = LinearRegression(epsilon=epsilon, bounds_X=([0.0], [1.0]), bounds_y=(0.0, 1.0))
    model.fit(data[:, :1], data[:, 1])
    return [float(model.coef_[0]), float(model.intercept_)]


@quiet
def logistic_regression(data, epsilon=1.0):
    from diffprivlib.models import LogisticRegression

    labels = (data[:, 1] > 0.5).astype(int)
    model = LogisticRegression(epsilon=epsilon, data_norm=1.0, max_iter=20).fit(data[:, :1], labels)
    return [float(model.coef_[0][0]), float(model.intercept_[0])]


@quiet
def pca(data, epsilon=1.0):
    from diffprivlib.models import PCA

    model = PCA(n_components=1, epsilon=epsilon, data_norm=1.5, bounds=([0.0, 0.0], [1.0, 1.0]))
    model.fit(data)
    return [float(v) for v in model.components_.ravel()]


@quiet
def kmeans(data, epsilon=1.0):
    from diffprivlib.models import KMeans

    model = KMeans(n_clusters=2, epsilon=epsilon, bounds=([0.0, 0.0], [1.0, 1.0])).fit(data)
    return [float(v) for v in model.cluster_centers_.ravel()]
