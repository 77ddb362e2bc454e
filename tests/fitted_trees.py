"""Hand-built fitted trees shared by the export and plotting tests."""

import numpy as np

from dtree.tree import Node


class MixedTree:
    """A fitted-looking C4.5-style estimator: a multiway node over a binary one,
    fractional weighted counts."""

    classes_ = np.array(["no", "yes"])
    n_classes_ = 2
    n_features_in_ = 2
    feature_names_in_ = np.array(["outlook", "humidity"], dtype=object)
    _impurity_name = "entropy"

    def __init__(self):
        low = Node(2, 2, 2, np.array([0.0, 2.4]), 0.0)
        high = Node(3, 2, 3, np.array([3.0, 0.6]), 0.65)
        sunny = Node(1, 1, 5, np.array([3.0, 3.0]), 1.0, feature=1, threshold=75.0,
                     children=[low, high])
        overcast = Node(4, 1, 4, np.array([0.0, 4.0]), 0.0)
        self.root_ = Node(0, 0, 9, np.array([3.0, 7.0]), 0.881, feature=0,
                          categories=("sunny", "overcast"), children=[sunny, overcast])
