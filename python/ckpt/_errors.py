"""ckpt.Error and its subclasses: libckpt's errors (ckpt/error.h) as Python exceptions."""


class Error(Exception):
    """An error of libckpt: what went wrong, in which file, at which byte.

    code:    'corruption', 'not_supported', 'io_error', 'invalid_argument' or 'not_found'
             (the codes of `--json` errors, formats/json.md)
    message: what went wrong, without file and offset
    file:    the file the bytes came from, or None
    offset:  the byte offset in `file`, or None
    context: where in the snapshot ('operator 1f2b..., subtask 0'), or None
    """

    def __init__(self, text, code, message, file=None, offset=None, context=None):
        super().__init__(text)
        self.code = code
        self.message = message
        self.file = file
        self.offset = offset
        self.context = context


class CorruptionError(Error):
    """The bytes contradict the format."""


class NotSupportedError(Error):
    """A valid but unknown version or feature."""


class StorageError(Error, OSError):
    """The file system (or the object store) said no."""


class InvalidArgumentError(Error, ValueError):
    """The caller asked for something impossible."""


class NotFoundError(Error, LookupError):
    """A named thing (file, operator, state) does not exist."""


_BY_CODE = {
    "corruption": CorruptionError,
    "not_supported": NotSupportedError,
    "io_error": StorageError,
    "invalid_argument": InvalidArgumentError,
    "not_found": NotFoundError,
}


def class_of(code):
    return _BY_CODE.get(code, Error)
