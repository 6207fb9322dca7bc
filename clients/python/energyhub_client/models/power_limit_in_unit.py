from enum import StrEnum


class PowerLimitInUnit(StrEnum):
    KW = "kw"
    W = "w"

    def __str__(self) -> str:
        return str(self.value)
