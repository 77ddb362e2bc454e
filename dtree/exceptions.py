"""Exceptions and warnings raised by dtree's estimators.

dtree does not import scikit-learn, yet code written for scikit-learn catches
dtree's ``NotFittedError`` with ``except sklearn.exceptions.NotFittedError``
(or ``pytest.raises`` of it).  ``except`` matches with ``issubclass`` on the
*raised* class, so that class must really subclass scikit-learn's; a
metaclass's ``__instancecheck__`` or ``__subclasscheck__`` on dtree's class
would not help, as the check is made on scikit-learn's.  So
``NotFittedError(...)`` builds, when ``sklearn.exceptions`` is already
imported, an instance of a subclass of both classes (made once, on first
use).  Whoever names ``sklearn.exceptions.NotFittedError`` in an ``except``
clause has imported that module before the error is raised, so looking in
``sys.modules`` at raise time is exact, costs nothing and never imports
scikit-learn itself (``importlib.util.find_spec`` and importing it when it is
merely installed would make every error pay for an import of scikit-learn).
"""

import sys

__all__ = ["NotFittedError", "InvalidParameterError", "DataConversionWarning"]


class NotFittedError(ValueError, AttributeError):
    """Raised when a method that needs a fitted tree is called before ``fit``.

    It subclasses both ``ValueError`` and ``AttributeError``, as
    scikit-learn's exception of the same name does, so code that catches
    either keeps working.  When ``sklearn.exceptions`` has been imported, the
    error raised is also an instance of scikit-learn's ``NotFittedError``
    (see the module's notes), so ``except sklearn.exceptions.NotFittedError``
    catches it; dtree never imports scikit-learn for it.

    Examples
    --------
    >>> from dtree import DecisionTreeClassifier, NotFittedError
    >>> try:
    ...     DecisionTreeClassifier().predict([[0.0]])
    ... except NotFittedError as error:
    ...     print(str(error)[:48])
    This DecisionTreeClassifier instance is not fitt
    """

    def __new__(cls, *args, **kwargs):
        if cls is NotFittedError and "sklearn.exceptions" in sys.modules:
            cls = _with_sklearn()
        return super().__new__(cls, *args, **kwargs)


def _with_sklearn():
    """dtree's ``NotFittedError`` that is also scikit-learn's (made on first call, then kept)."""
    both = globals().get("_SklearnNotFittedError")
    if both is None:
        from sklearn.exceptions import NotFittedError as SklearnNotFittedError

        made = type("_SklearnNotFittedError", (NotFittedError, SklearnNotFittedError), {
            "__module__": __name__,
            "__doc__": "dtree's NotFittedError, raised as a subclass of scikit-learn's too.",
        })
        # setdefault: two threads that race here keep one class (pickles name it)
        both = globals().setdefault("_SklearnNotFittedError", made)
    return both


def __getattr__(name):
    # An unpickled error names its class here: make it (importing scikit-learn) if needed.
    if name == "_SklearnNotFittedError":
        return _with_sklearn()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


class InvalidParameterError(ValueError, TypeError):
    """Raised by ``fit`` when a constructor parameter has an invalid value or type."""


class DataConversionWarning(UserWarning):
    """Warned when ``fit`` reshapes its input in a way the caller may not have meant.

    A column vector ``y`` of shape (n_samples, 1) is read as 1-D, with the
    warning (and the words) of scikit-learn's class of the same name: a
    one-column DataFrame passed as ``y`` is often a slip.
    """
