from enum import StrEnum


class DeviceMetadataSource(StrEnum):
    CACHE = "cache"
    LIVE = "live"

    def __str__(self) -> str:
        return str(self.value)
