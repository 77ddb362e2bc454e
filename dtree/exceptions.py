"""Exceptions raised by dtree's estimators."""

__all__ = ["NotFittedError", "InvalidParameterError"]


class NotFittedError(ValueError, AttributeError):
    """Raised when a method that needs a fitted tree is called before ``fit``.

    It subclasses both ``ValueError`` and ``AttributeError``, as
    scikit-learn's exception of the same name does, so code that catches
    either keeps working.
    """


class InvalidParameterError(ValueError, TypeError):
    """Raised by ``fit`` when a constructor parameter has an invalid value or type."""
