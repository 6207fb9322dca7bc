from enum import StrEnum


class PowerInUnit(StrEnum):
    KW = "kw"
    W = "w"

    def __str__(self) -> str:
        return str(self.value)
