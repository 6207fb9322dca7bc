from enum import StrEnum


class LinkSessionCreateVendor(StrEnum):
    OCPP = "ocpp"
    SANDBOX_AMPERE = "sandbox-ampere"
    SANDBOX_NIMBUS = "sandbox-nimbus"
    SANDBOX_VOLTA = "sandbox-volta"
    SUNSPEC = "sunspec"

    def __str__(self) -> str:
        return str(self.value)
