"""The types of the schema's fields (docs/results-schema.md), checked as a record is read.

A value of the wrong type is an error that names the file and line, the record kind, the attribute, the
value and the rule: a page built from a string where a count belongs, or from a list where an object
belongs, would show something the file does not say (or fail deep inside the page's code). An absent key
and a null are both "not given" (the runner writes null for a number it cannot write, e.g. NaN).
"""


class ResultsError(ValueError):
    """Bad input: the message names the file and line, the attribute, the value and the rule."""


def _shown(value):
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _refuse(where, kind, key, value, rule):
    raise ResultsError(f"{where}: {kind} attribute {key!r} is {_shown(value)}: {rule} "
                       f"(docs/results-schema.md)")


def text(record, key, where, kind, default=""):
    """A string attribute; `default` when absent or null."""
    value = record.get(key)
    if value is None:
        return default
    if not isinstance(value, str):
        _refuse(where, kind, key, value, "it must be a string")
    return value


def integer(record, key, where, kind, minimum=0):
    """A whole number >= minimum, or None when absent or null."""
    value = record.get(key)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
        _refuse(where, kind, key, value, f"it must be a whole number >= {minimum}")
    return value


def number(record, key, where, kind):
    """A number, or None when absent or null."""
    value = record.get(key)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        _refuse(where, kind, key, value, "it must be a number")
    return value


def flag(record, key, where, kind):
    """true or false, or None when absent or null."""
    value = record.get(key)
    if value is not None and not isinstance(value, bool):
        _refuse(where, kind, key, value, "it must be true or false")
    return value


def mapping(record, key, where, kind):
    """A JSON object, or None when absent or null."""
    value = record.get(key)
    if value is not None and not isinstance(value, dict):
        _refuse(where, kind, key, value, "it must be a JSON object")
    return value


def array(record, key, where, kind):
    """A JSON array, or None when absent or null."""
    value = record.get(key)
    if value is not None and not isinstance(value, list):
        _refuse(where, kind, key, value, "it must be a JSON array")
    return value


def scalar(record, key, where, kind):
    """A string, number, true/false or null: a value shown as it is written (a seed, a thread count)."""
    value = record.get(key)
    if isinstance(value, (dict, list)):
        _refuse(where, kind, key, value, "it must be a single value, not an object or an array")
    return value
