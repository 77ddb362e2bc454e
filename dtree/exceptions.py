"""Exceptions and warnings raised by dtree's estimators."""

__all__ = ["NotFittedError", "InvalidParameterError", "DataConversionWarning"]


class NotFittedError(ValueError, AttributeError):
    """Raised when a method that needs a fitted tree is called before ``fit``.

    It subclasses both ``ValueError`` and ``AttributeError``, as
    scikit-learn's exception of the same name does, so code that catches
    either keeps working.
    """


class InvalidParameterError(ValueError, TypeError):
    """Raised by ``fit`` when a constructor parameter has an invalid value or type."""


class DataConversionWarning(UserWarning):
    """Warned when ``fit`` reshapes its input in a way the caller may not have meant.

    A column vector ``y`` of shape (n_samples, 1) is read as 1-D, with the
    warning (and the words) of scikit-learn's class of the same name: a
    one-column DataFrame passed as ``y`` is often a slip.
    """
