# base: reference
"""Every answer delegates to the dtree.information function of the same name."""
from dtree import information


def entropy(p, base=2):
    return information.entropy(p, base=base)


def conditional_entropy(table, base=2):
    return information.conditional_entropy(table, base=base)


def information_gain(x, y):
    return information.information_gain_from_labels(x, y)


def gain_ratio(x, y):
    return information.gain_ratio_from_labels(x, y)


def joint_entropy(table, base=2):
    return information.joint_entropy(table, base=base)
