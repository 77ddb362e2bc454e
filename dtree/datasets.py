"""The small tables of the textbooks, and Iris, as pandas DataFrames; an XOR sampler.

Every loader reads a CSV shipped inside the package (``dtree/data/``): no
network and no scikit-learn are needed.  Each call returns a new DataFrame,
so callers may modify it freely.  The provenance of each table is in its
docstring and in ``frame.attrs["source"]``.
"""

from __future__ import annotations

from importlib import resources

import numpy as np
import pandas as pd

__all__ = ["load_animals", "load_weather", "load_student_scores", "load_iris", "make_xor"]


def _read(name: str, source: str, **kwargs) -> pd.DataFrame:
    with resources.files("dtree").joinpath("data", name).open("r", encoding="utf-8") as f:
        frame = pd.read_csv(f, **kwargs)
    frame.attrs["source"] = source
    return frame


def load_animals() -> pd.DataFrame:
    """Four animals described by three yes/no questions.

    A bear, a hawk, a penguin and a dolphin, told apart by "has feathers?",
    "can fly?" and "has fins?": the first decision tree of the book.

    Returns
    -------
    pandas.DataFrame of shape (4, 4)
        Columns ``has_feathers``, ``can_fly``, ``has_fins`` (strings
        ``"yes"``/``"no"``) and the class ``animal``.

    References
    ----------
    A. C. Müller and S. Guido, *Introduction to Machine Learning with
    Python*, O'Reilly 2016, section 2.3.5 (Figure 2-22); the same table is
    Table 6-1 of the textbook chapter "第六章 决策树" (Chapter 6: Decision trees), one of the book's Chinese sources.

    Examples
    --------
    >>> load_animals()
      has_feathers can_fly has_fins   animal
    0           no      no       no     bear
    1          yes     yes       no     hawk
    2          yes      no       no  penguin
    3           no      no      yes  dolphin
    """
    return _read(
        "animals.csv",
        "Müller & Guido, Introduction to Machine Learning with Python (2016), Fig. 2-22",
        dtype=str,
    )


def load_weather(*, numeric: bool = False) -> pd.DataFrame:
    """Quinlan's 14 Saturday mornings: play or not, given the weather.

    Parameters
    ----------
    numeric : bool, default=False
        If False, every feature is categorical (``temperature`` hot / mild /
        cool, ``humidity`` high / normal).  If True, ``temperature`` (degrees
        Fahrenheit) and ``humidity`` (percent) are the measured numbers from
        which those categories were made, the version C4.5 splits by
        thresholds.

    Returns
    -------
    pandas.DataFrame of shape (14, 5)
        Columns ``outlook`` (sunny / overcast / rainy), ``temperature``,
        ``humidity``, ``windy`` (bool) and the class ``play`` (yes / no),
        indexed by ``day`` 1..14.

    References
    ----------
    J. R. Quinlan, "Induction of Decision Trees", *Machine Learning* 1 (1986),
    Table 1; the spelling (rainy, yes/no) and the numeric version follow
    I. H. Witten, E. Frank and M. A. Hall, *Data Mining: Practical Machine
    Learning Tools and Techniques*, 3rd ed., Morgan Kaufmann 2011, Tables 1.2
    and 1.3 (Weka's ``weather.nominal.arff`` and ``weather.numeric.arff``).
    Zhou Yong's blog post "决策树" (2015) works the categorical table by hand.

    Examples
    --------
    >>> weather = load_weather()
    >>> weather["play"].value_counts().to_dict()
    {'yes': 9, 'no': 5}
    >>> load_weather(numeric=True)["temperature"].head(3).tolist()
    [85, 80, 83]
    """
    name = "weather_numeric.csv" if numeric else "weather.csv"
    if numeric:
        dtype = {"outlook": str, "temperature": "int64", "humidity": "int64", "play": str}
    else:
        dtype = {"outlook": str, "temperature": str, "humidity": str, "play": str}
    frame = _read(
        name,
        "Quinlan (1986), Table 1; Witten, Frank & Hall, Data Mining, 3rd ed. (2011), "
        + ("Table 1.3 (numeric)" if numeric else "Table 1.2 (nominal)"),
        dtype=dtype,
        index_col="day",
    )
    frame["windy"] = frame["windy"].astype(bool)
    return frame


def load_student_scores() -> pd.DataFrame:
    """Ten exam scores with a four-level grade and a pass / fail outcome.

    The grade is ``excellent`` for scores in [90, 100], ``good`` in [75, 90),
    ``fair`` in [60, 75) and ``poor`` below 60; a student ``passed`` with a
    score of at least 75.  A decision stump on ``grade`` (four branches) or on
    ``score >= 75`` (two) recovers ``passed`` exactly.

    Returns
    -------
    pandas.DataFrame of shape (10, 3)
        Columns ``score`` (int), ``grade`` and ``passed`` (``"pass"`` /
        ``"fail"``), indexed by ``student_id`` 1..10.

    References
    ----------
    Constructed example of Zhou Yong's blog post "决策树" (2015),
    section "写在前面"; the grade names are translated (优秀 excellent,
    良好 good, 中等 fair, 较差 poor; 过关 pass, 不过关 fail).

    Examples
    --------
    >>> load_student_scores().head(3)
                score grade passed
    student_id
    1              82  good   pass
    2              74  fair   fail
    3              68  fair   fail
    """
    return _read(
        "student_scores.csv",
        "Constructed example, Zhou Yong, blog post 决策树 (2015)",
        dtype={"score": "int64", "grade": str, "passed": str},
        index_col="student_id",
    )


def load_iris() -> pd.DataFrame:
    """Fisher's Iris data: 150 flowers, 4 measurements, 3 species.

    Returns
    -------
    pandas.DataFrame of shape (150, 5)
        Columns ``sepal_length``, ``sepal_width``, ``petal_length``,
        ``petal_width`` (centimetres, float) and the class ``species``
        (setosa, versicolor, virginica; 50 each), in the usual row order.

    References
    ----------
    R. A. Fisher, "The Use of Multiple Measurements in Taxonomic Problems",
    *Annals of Eugenics* 7 (1936), 179-188.  The values are those of
    scikit-learn's ``load_iris`` (which follows Fisher's paper where the UCI
    copy has two transcription errors, in samples 35 and 38); the rows are in
    the same order, so ``load_iris().iloc[:, :4]`` equals its ``data``.

    Examples
    --------
    >>> iris = load_iris()
    >>> iris.shape
    (150, 5)
    >>> iris["species"].value_counts().sort_index().tolist()
    [50, 50, 50]
    """
    return _read(
        "iris.csv",
        "Fisher (1936), as in scikit-learn's load_iris",
        dtype={"species": str},
    )


def make_xor(counts, random_state=None):
    """Points in the four quadrants of the unit square, labelled by XOR.

    The quadrant ``(a, b)`` (``a, b`` in {0, 1}: low or high half of
    :math:`x_1` and :math:`x_2`) gets ``counts`` points drawn uniformly from
    :math:`[a/2, a/2 + 1/2) \\times [b/2, b/2 + 1/2)`, all of class
    ``a XOR b``.  With equal counts neither feature alone tells the classes
    apart: in expectation every root split has zero gain, and a sample shows
    only the small gains of sampling noise, the classic case against
    stopping a tree when the best gain is small.

    Parameters
    ----------
    counts : sequence of 4 non-negative ints
        Points in the quadrants (low, low), (low, high), (high, low),
        (high, high), in that order.
    random_state : int, numpy.random.Generator or None, default=None
        Seed or generator of the uniform draws.

    Returns
    -------
    X : ndarray of shape (sum(counts), 2)
        The points, quadrant by quadrant in the order of ``counts``.
    y : ndarray of shape (sum(counts),)
        Their classes, 0 or 1 (int).

    Raises
    ------
    ValueError
        If ``counts`` is not four non-negative integers.

    Examples
    --------
    >>> X, y = make_xor([1, 2, 2, 1], random_state=0)
    >>> X.shape, y.tolist()
    ((6, 2), [0, 1, 1, 1, 1, 0])
    """
    array = np.asarray(counts)
    if (array.shape != (4,) or not np.issubdtype(array.dtype, np.integer) or (array < 0).any()):
        raise ValueError(f"counts must be 4 non-negative integers, got {counts!r}")
    rng = np.random.default_rng(random_state)
    X, y = [], []
    for (a, b), k in zip([(0, 0), (0, 1), (1, 0), (1, 1)], array.tolist()):
        x1 = rng.uniform(a / 2, a / 2 + 0.5, k)
        x2 = rng.uniform(b / 2, b / 2 + 0.5, k)
        X.append(np.column_stack([x1, x2]))
        y.append(np.full(k, a ^ b))
    return np.vstack(X), np.concatenate(y)
