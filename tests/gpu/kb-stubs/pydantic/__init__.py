"""Minimal stand-in for pydantic.BaseModel (only what KernelBench's eval uses):
keyword construction, class-level defaults copied per instance, attribute
access and assignment, model_dump()/dict()."""
import copy


class BaseModel:
    def __init__(self, **kwargs):
        for name in self._field_names():
            if name in kwargs:
                setattr(self, name, kwargs.pop(name))
            else:
                setattr(self, name, copy.deepcopy(getattr(type(self), name, None)))
        for name, value in kwargs.items():
            setattr(self, name, value)

    @classmethod
    def _field_names(cls):
        names = []
        for klass in reversed(cls.__mro__):
            for name in getattr(klass, "__annotations__", {}):
                if name not in names:
                    names.append(name)
        return names

    def model_dump(self):
        return {name: getattr(self, name) for name in self._field_names()}

    dict = model_dump

    def __repr__(self):
        fields = " ".join(f"{k}={v!r}" for k, v in self.model_dump().items())
        return f"{type(self).__name__}({fields})"

    __str__ = __repr__
