"""dtree: decision trees from first principles.

The companion package of the dtree book.  Information measures live in
:mod:`dtree.information`, the textbook tables in :mod:`dtree.datasets`, the
estimators at the top level, and text / Graphviz renderings in
:mod:`dtree.export`.  ``import dtree`` pulls in only NumPy and pandas.
"""

from dtree.c45 import C45Classifier
from dtree.cart import DecisionTreeClassifier, DecisionTreeRegressor
from dtree.exceptions import DataConversionWarning, InvalidParameterError, NotFittedError
from dtree.export import export_graphviz, export_rules, export_text, export_trace
from dtree.id3 import ID3Classifier
from dtree.plotting import plot_tree

__version__ = "0.1.0"

__all__ = [
    "ID3Classifier",
    "C45Classifier",
    "DecisionTreeClassifier",
    "DecisionTreeRegressor",
    "export_text",
    "export_graphviz",
    "export_rules",
    "export_trace",
    "plot_tree",
    "NotFittedError",
    "InvalidParameterError",
    "DataConversionWarning",
    "__version__",
]
