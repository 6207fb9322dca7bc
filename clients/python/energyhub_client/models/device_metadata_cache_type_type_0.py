from enum import StrEnum


class DeviceMetadataCacheTypeType0(StrEnum):
    EXPEDITE = "expedite"
    NORMAL = "normal"

    def __str__(self) -> str:
        return str(self.value)
