"""Runs scikit-learn's own tree tests on dtree's estimators (issue 23): see plugin.py."""
